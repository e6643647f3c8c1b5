package jumpforward_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/maskstate"
	"github.com/reinlm/rein/internal/vocabtest"
)

// TestNextKeepsSpecialTokens: the re-encoded window never reaches back past
// a special token the grammar took by a token terminal. The Encoder spells
// such a token's text with ordinary pieces, so a window holding it would
// replace the token by its text (where the grammar also takes the text) or
// make a step the grammar refuses (where it takes only the token).
func TestNextKeepsSpecialTokens(t *testing.T) {
	const forced = "hello world, this is forced text"
	voc := vocabtest.Load(t, "llama3")
	header, ok := voc.TokenID("<|start_header_id|>")
	require.True(t, ok)
	require.True(t, voc.IsSpecial(header))
	enc, err := voc.Encoder()
	require.NoError(t, err)
	tests := []struct {
		name    string
		token   *grammar.Expr // how the grammar takes the special token
		before  string        // text the grammar forces before it
		history []string      // text of the tokens the model writes after it
		after   string        // what the step must append to the history
	}{
		{"LitTokens, just after", grammar.LitTokens("<|start_header_id|>"), "", nil, forced},
		{"Token, just after", grammar.Token("<|start_header_id|>"), "", nil, forced},
		{"LitTokens, after text", grammar.LitTokens("<|start_header_id|>"), "Hi", nil, forced},
		{"LitTokens, one token later", grammar.LitTokens("<|start_header_id|>"), "", []string{"hello"}, forced[len("hello"):]},
		{"Token, one token later", grammar.Token("<|start_header_id|>"), "", []string{"hello"}, forced[len("hello"):]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: grammar.Cat(
				grammar.Lit(tt.before), tt.token, grammar.Lit(forced), grammar.Or(grammar.Lit("A"), grammar.Lit("B")),
			)}}}
			require.NoError(t, g.Validate())
			c, fw := compile(t, g, voc)
			m := c.NewMatcher()
			var hist []int
			accept := func(id int) {
				require.True(t, m.AcceptToken(id), "%q", voc.Bytes(id))
				hist = append(hist, id)
			}
			if tt.before != "" {
				for _, id := range enc.Encode(tt.before) {
					accept(id)
				}
			}
			accept(header)
			for _, s := range tt.history {
				id, ok := voc.TokenID(s)
				require.True(t, ok, s)
				accept(id)
			}
			require.Equal(t, tt.after, string(fw.Forced(m)))

			jf := fw.Next(m, hist)
			assert.Zero(t, jf.Rollback, "nothing the model wrote is replaced")
			require.NotEmpty(t, jf.Tokens)
			// The tokens are the canonical encoding of the forced text (the
			// Encoder starts afresh after a special token), less the last
			// ones, which the A or B that follows could merge with.
			canon := enc.Encode(tt.after)
			if len(tt.history) > 0 {
				canon = enc.Encode(forced)[len(tt.history):]
			}
			require.Less(t, len(jf.Tokens), len(canon))
			assert.Equal(t, canon[:len(jf.Tokens)], jf.Tokens)

			seq := append(hist, jf.Tokens...)
			assert.Equal(t, len(seq), m.NumTokens())
			fresh := c.NewMatcher()
			for _, id := range seq {
				require.True(t, fresh.AcceptToken(id))
			}
			assert.Equal(t, maskstate.Of(fresh).Depth(), maskstate.Of(m).Depth())
			assert.ElementsMatch(t, maskstate.Of(fresh).Tops(), maskstate.Of(m).Tops())
		})
	}
}
