package mask_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
)

// TestValidateTokens: the count of draft tokens the grammar takes in turn,
// with the matcher (its mask, its length, whether it may end) as it was,
// under a regex and under distinct items, whose run must be restored too.
func TestValidateTokens(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	id := func(s string) int { return tokenIDOf(t, voc, s) }
	stop := voc.StopTokens()[0]
	re, err := grammar.FromRegex(`(yes|no), [0-9]{1,3}`, grammar.Limits{})
	require.NoError(t, err)
	uniq, _, err := jsonschema.Compile([]byte(`{"type":"array","items":{"enum":["a","b"]},"uniqueItems":true}`), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		g      *grammar.Grammar
		before []string // accepted first
		draft  []int
		want   int
	}{
		{"all", re, nil, []int{id("yes"), id(","), id(" 4")}, 3},
		{"stops at a refused token", re, nil, []int{id("yes"), id("!"), id(",")}, 1},
		{"none", re, nil, []int{id("maybe")}, 0},
		{"empty draft", re, []string{"no"}, nil, 0},
		{"a stop token where it may end, nothing after", re, []string{"no", ",", " 4"}, []int{id("2"), stop, id("2")}, 2},
		{"a stop token where it may not end", re, []string{"no"}, []int{stop}, 0},
		{"distinct items", uniq, []string{"[\"", "a", "\","}, []int{id("\""), id("b"), id("\"]")}, 3},
		{"an item that can only repeat one", uniq, []string{"[\"", "a", "\","}, []int{id("\""), id("a"), id("\"]")}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := mask.Compile(tc.g, voc, mask.Options{})
			require.NoError(t, err)
			m := c.NewMatcher()
			for _, s := range tc.before {
				require.True(t, m.AcceptToken(id(s)), s)
			}
			bm := mask.NewBitmask(1, voc.Size())
			require.NoError(t, m.FillBitmask(bm, 0))
			before, n, end := slices.Clone(bm.Row(0)), m.NumTokens(), m.CanEnd()
			assert.Equal(t, tc.want, m.ValidateTokens(tc.draft))
			require.NoError(t, m.FillBitmask(bm, 0))
			assert.Equal(t, before, bm.Row(0), "mask")
			assert.Equal(t, n, m.NumTokens())
			assert.Equal(t, end, m.CanEnd())
			assert.False(t, m.IsTerminated())
		})
	}
	var nilMatcher *mask.Matcher
	assert.Zero(t, nilMatcher.ValidateTokens([]int{1}))
	assert.Zero(t, (&mask.Matcher{}).ValidateTokens([]int{1}))
}
