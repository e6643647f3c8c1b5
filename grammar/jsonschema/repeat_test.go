package jsonschema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/pda"
)

// TestLongCounts checks string lengths around the boundaries of the parts
// that long minLength and maxLength counts are split into (the first 256
// characters written out, then chunks of 64 held by a rule, the inline
// rest, and multiples of 4,096 for good measure):
// a string is accepted exactly when its length is within the bounds. The pushdown automaton decides, as the
// Earley oracle would be slow on strings of tens of thousands of bytes.
func TestLongCounts(t *testing.T) {
	for _, bounds := range [][2]int{
		{0, 257}, {0, 300}, {0, 1024}, {0, 4351}, {0, 4352}, {0, 8447}, {0, 8448}, {0, 32767},
		{257, 257}, {300, 1000}, {4096, 4096}, {4100, 9000}, {5000, -1}, {9000, 9000}, {1, 65535},
		{100, 1000}, {255, 300}, {256, 256}, {256, 1000}, {257, -1}, {321, 321},
	} {
		lo, hi := bounds[0], bounds[1]
		t.Run(fmt.Sprintf("%d-%d", lo, hi), func(t *testing.T) {
			schema := fmt.Sprintf(`{"type":"string","minLength":%d`, lo)
			if hi >= 0 {
				schema += fmt.Sprintf(`,"maxLength":%d`, hi)
			}
			g, _, err := jsonschema.Compile([]byte(schema+"}"), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
			require.NoError(t, err)
			p, err := pda.Compile(g, grammar.Limits{})
			require.NoError(t, err)
			lengths := map[int]bool{0: true, 1: true, 63: true, 64: true, 65: true, 255: true, 256: true, 257: true}
			for _, b := range []int{lo, hi, 320, 384, hi - 64, 4095, 4096, 4097, 8191, 8192, 8193} {
				for d := -2; d <= 2; d++ {
					if b+d >= 0 {
						lengths[b+d] = true
					}
				}
			}
			for n := range lengths {
				if n > 70000 {
					continue
				}
				// Mix in a two-byte character and an escape: they count as one character each.
				body := strings.Repeat("a", n)
				if n >= 3 {
					body = "é\\n" + strings.Repeat("a", n-2)
				}
				st := pda.NewState(p)
				ok := st.AdvanceBytes([]byte(`"`+body+`"`)) && st.CanEnd()
				want := n >= lo && (hi < 0 || n <= hi)
				assert.Equal(t, want, ok, "length %d", n)
			}
		})
	}
}
