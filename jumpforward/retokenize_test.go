package jumpforward

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/maskstate"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

func TestCompleteUTF8(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0}, {"abc", 3}, {"é", 2}, {"a\xc3", 1}, {"日", 3}, {"a\xe6\x97", 1}, {"\xe6", 0},
		{"😀", 4}, {"x\xf0\x9f\x98", 1}, {"\x80", 1}, {"a\xff", 2},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, completeUTF8([]byte(tt.in)), "%q", tt.in)
	}
}

// TestApplyUndo: when the grammar refuses a token, apply leaves the matcher
// where it was, the tokens rolled back accepted again.
func TestApplyUndo(t *testing.T) {
	voc, err := gpt2.Vocab()
	require.NoError(t, err)
	g, err := grammar.FromRegex(`(abc|abd)e`, grammar.Limits{})
	require.NoError(t, err)
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	m := c.NewMatcher()
	a, _ := voc.TokenID("a")
	b, _ := voc.TokenID("b")
	cc, _ := voc.TokenID("c")
	x, _ := voc.TokenID("x")
	require.True(t, m.AcceptToken(a))
	require.True(t, m.AcceptToken(b))
	depth := maskstate.Of(m).Depth()
	assert.False(t, apply(m, []int{a, b}, 1, []int{b, cc, x}))
	assert.Equal(t, 2, m.NumTokens())
	assert.Equal(t, depth, maskstate.Of(m).Depth())
	assert.True(t, apply(m, []int{a, b}, 1, []int{b, cc}))
	assert.Equal(t, 3, m.NumTokens())
	assert.False(t, apply(m, []int{a, b, cc}, 4, nil), "rollback past the start")
	assert.Equal(t, 3, m.NumTokens())
}
