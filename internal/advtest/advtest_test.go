package advtest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/advtest"
	"github.com/reinlm/rein/pda"
)

// TestCasesParse checks that every adversarial case is a well-formed grammar
// or schema whose repeated prefix is a live prefix of its language.
func TestCasesParse(t *testing.T) {
	for _, tc := range advtest.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			var g *grammar.Grammar
			var err error
			if tc.GBNF != "" {
				g, err = grammar.ParseGBNF(tc.GBNF, "root", grammar.Limits{})
			} else {
				g, _, err = jsonschema.Compile([]byte(tc.Schema), jsonschema.Options{})
			}
			require.NoError(t, err)
			p, err := pda.Compile(g, grammar.Limits{})
			require.NoError(t, err)
			st := pda.NewState(p)
			assert.True(t, st.AdvanceBytes([]byte(tc.Prefix)), "the prefix is refused")
		})
	}
}

// TestRandomGBNF checks that the generator is deterministic and that most of
// what it draws parses.
func TestRandomGBNF(t *testing.T) {
	ok := 0
	for i := 0; i < 200; i++ {
		data := []byte{byte(i), byte(i * 7), byte(i * 13), byte(i * 31), 5, 4, 3, 2, 1, byte(i)}
		src, rest := advtest.RandomGBNF(data)
		again, _ := advtest.RandomGBNF(data)
		require.Equal(t, src, again)
		require.LessOrEqual(t, len(rest), len(data))
		if _, err := grammar.ParseGBNF(src, "root", grammar.Limits{}); err == nil {
			ok++
		}
	}
	assert.Greater(t, ok, 150)
}
