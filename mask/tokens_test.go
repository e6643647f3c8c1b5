package mask_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/grammar/structtag"
	"github.com/reinlm/rein/internal/masktest"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

func compileRoot(t *testing.T, voc *tokenizer.Vocab, body *grammar.Expr) *mask.Compiled {
	t.Helper()
	c, err := mask.Compile(&grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: body}}}, voc, mask.Options{})
	require.NoError(t, err)
	return c
}

// allowed lists the ids row allows.
func allowed(row []uint32) []int {
	var ids []int
	for i, w := range row {
		for j := 0; j < 32; j++ {
			if w&(1<<j) != 0 {
				ids = append(ids, 32*i+j)
			}
		}
	}
	return ids
}

func fill(t *testing.T, m *mask.Matcher) []uint32 {
	t.Helper()
	b := mask.NewBitmask(1, m.Compiled().VocabSize())
	require.NoError(t, m.FillBitmask(b, 0))
	row := b.Row(0)
	// The index and the token-by-token reference agree.
	require.Empty(t, masktest.DiffRows(m, row, masktest.ReferenceMask(m)))
	return row
}

func tokenID(t *testing.T, voc *tokenizer.Vocab, text string) int {
	t.Helper()
	id, ok := voc.TokenID(text)
	require.True(t, ok, "no token %q", text)
	return id
}

// TestSpecialTokenTerminals: a Llama-3 message, <|start_header_id|>{}<|eot_id|>,
// where <|eot_id|> is also a stop token (as <|eom_id|> ends Llama-3.1's tool
// calls).
func TestSpecialTokenTerminals(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	tag, eom := tokenID(t, voc, "<|start_header_id|>"), tokenID(t, voc, "<|eot_id|>")
	require.Contains(t, voc.StopTokens(), eom)
	c := compileRoot(t, voc, grammar.Cat(grammar.Token("<|start_header_id|>"), grammar.Lit("{}"), grammar.Token("<|eot_id|>")))
	m := c.NewMatcher()
	assert.Equal(t, []int{tag}, allowed(fill(t, m)), "only the special token starts the output")
	assert.False(t, m.AcceptToken(tokenID(t, voc, "<")), "its text is not the token")
	require.True(t, m.AcceptToken(tag))
	require.True(t, m.AcceptToken(tokenID(t, voc, "{}")))
	assert.Equal(t, []int{eom}, allowed(fill(t, m)), "the stop token where the grammar names it")
	require.True(t, m.AcceptToken(eom))
	assert.True(t, m.IsTerminated(), "the grammar may end after it")
	require.NoError(t, m.Rollback(1))
	assert.False(t, m.IsTerminated())
}

func TestSpecialLiteralRefused(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	_, err := mask.Compile(&grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: grammar.Lit("<|eot_id|>")}}}, voc, mask.Options{})
	require.ErrorIs(t, err, mask.ErrSpecialLiteral)
	assert.ErrorContains(t, err, `grammar.Token("<|eot_id|>")`)
	// Inside longer text it is text; LitTokens makes it the token too.
	compileRoot(t, voc, grammar.Lit("<|eot_id|>x"))
	c := compileRoot(t, voc, grammar.LitTokens("<|eot_id|>x"))
	m := c.NewMatcher()
	row := fill(t, m)
	assert.Contains(t, allowed(row), tokenID(t, voc, "<|eot_id|>"))
	assert.Contains(t, allowed(row), tokenID(t, voc, "<"))
	_, err = mask.Compile(&grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: grammar.Token("<|no_such_token|>")}}}, voc, mask.Options{})
	assert.ErrorIs(t, err, mask.ErrVocab)
}

// TestNegatedTokenSet: any token but one, stop tokens and holes aside.
func TestNegatedTokenSet(t *testing.T) {
	base := vocabtest.Load(t, "qwen3")
	voc, err := base.WithLogitWidth(base.Size() + 64)
	require.NoError(t, err)
	end := tokenID(t, voc, "</think>")
	c := compileRoot(t, voc, grammar.Cat(grammar.Rep(grammar.TokenSet(true, []string{"</think>"}, nil), 0, 3), grammar.Token("</think>")))
	m := c.NewMatcher()
	row := fill(t, m)
	ids := allowed(row)
	stops := voc.StopTokens()
	want := 0
	for id := 0; id < voc.Size(); id++ {
		if voc.Bytes(id) != nil && !contains(stops, id) {
			want++
		}
	}
	assert.Len(t, ids, want, "every token that is not a hole or a stop token")
	assert.Contains(t, ids, end)
	assert.Contains(t, ids, tokenID(t, voc, "<|im_start|>"), "special tokens too")
	for _, s := range stops {
		assert.NotContains(t, ids, s)
	}
	// Three tokens of any kind, then only </think>.
	for _, text := range []string{"<|im_start|>", "Hello", "<tool_call>"} {
		require.True(t, m.AcceptToken(tokenID(t, voc, text)), text)
	}
	assert.Equal(t, []int{end}, allowed(fill(t, m)))
}

func contains(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// TestTextTrigger: free text until <tool_call>, then a call. The trigger may
// come as one token, split over several, or after text in one token.
func TestTextTrigger(t *testing.T) {
	voc := vocabtest.Load(t, "qwen3")
	call := grammar.Cat(grammar.Lit("<tool_call>"), grammar.Lit(`{"name": "f"}`), grammar.Lit("</tool_call>"))
	c := compileRoot(t, voc, grammar.Cat(grammar.Text("<tool_call>"), grammar.Rep(grammar.Cat(call, grammar.Text("<tool_call>")), 0, -1)))
	enc, err := voc.Encoder()
	require.NoError(t, err)
	for _, pieces := range [][]string{
		{"Sure.", "<tool_call>"},
		{"Sure.<tool", "_call>"},
		{"Sure.", "<", "tool", "_call", ">"},
	} {
		m := c.NewMatcher()
		for _, p := range pieces {
			ids := enc.Encode(p)
			if id, ok := voc.TokenID(p); ok {
				ids = []int{id}
			}
			for _, id := range ids {
				require.True(t, m.AcceptToken(id), "%q: %q", pieces, voc.Bytes(id))
			}
		}
		row := fill(t, m)
		n := len(allowed(row))
		assert.Less(t, n, 20, "%q: after the trigger only the call: %d tokens allowed", pieces, n)
		assert.Contains(t, allowed(row), tokenID(t, voc, `{"`))
		assert.False(t, m.CanEnd())
	}
}

// TestTokenTerminalBounds: ids past any vocabulary are refused, and a
// grammar whose shared expressions unfold without end is refused before
// anything walks it whole.
func TestTokenTerminalBounds(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	_, err := mask.Compile(&grammar.Grammar{Rules: []grammar.Rule{{Name: "root",
		Body: grammar.TokenSet(true, nil, []grammar.TokenRange{{Lo: 0, Hi: math.MaxInt}})}}}, voc, mask.Options{})
	assert.ErrorContains(t, err, "past any vocabulary")

	e := grammar.LitTokens("<|endoftext|>")
	for range 64 {
		e = grammar.Cat(e, e)
	}
	_, err = mask.Compile(&grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: e}}}, voc, mask.Options{})
	require.ErrorIs(t, err, grammar.ErrLimit)
	assert.ErrorContains(t, err, "ExprNodes")
}

// TestTokenBudget: a structural tag's any_text.max_tokens. After three
// tokens of thinking only the end of the thinking may come, and a rollback
// gives the budget back.
func TestTokenBudget(t *testing.T) {
	voc := vocabtest.Load(t, "qwen3")
	g, err := structtag.Compile([]byte(`{"type": "structural_tag", "format": {"type": "sequence", "elements": [
		{"type": "tag", "begin": "<think>", "content": {"type": "any_text", "max_tokens": 3}, "end": "</think>"},
		{"type": "const_string", "value": "ok"}]}}`), structtag.Options{TokenID: voc.TokenID})
	require.NoError(t, err)
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	m := c.NewMatcher()
	for _, text := range []string{"<think>", "a", "b"} {
		require.True(t, m.AcceptToken(tokenID(t, voc, text)), text)
	}
	row := fill(t, m)
	assert.Contains(t, allowed(row), tokenID(t, voc, "c"), "the third token of thinking")
	require.True(t, m.AcceptToken(tokenID(t, voc, "c")))
	row = fill(t, m)
	assert.NotContains(t, allowed(row), tokenID(t, voc, "d"), "the budget is spent")
	assert.Contains(t, allowed(row), tokenID(t, voc, "</think>"))
	assert.Contains(t, allowed(row), tokenID(t, voc, "</"))
	assert.False(t, m.AcceptToken(tokenID(t, voc, "d")))
	require.NoError(t, m.Rollback(1))
	assert.True(t, m.AcceptToken(tokenID(t, voc, "d")), "rolled back, the budget has one token left")
	require.True(t, m.AcceptToken(tokenID(t, voc, "</think>")))
	require.True(t, m.AcceptToken(tokenID(t, voc, "ok")))
	assert.True(t, m.CanEnd())
	// A fork carries the budget.
	m.Reset()
	for _, text := range []string{"<think>", "a", "b", "c"} {
		require.True(t, m.AcceptToken(tokenID(t, voc, text)), text)
	}
	assert.False(t, m.Fork().AcceptToken(tokenID(t, voc, "d")))
}

// TestLitTokensKeepRuleFields checks that resolving LitTokens literals,
// which rewrites the grammar's rules, keeps what the matcher enforces
// beside their bodies: a schema's distinct items after a special token.
func TestLitTokensKeepRuleFields(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	g, _, err := jsonschema.Compile([]byte(`{"type":"array","items":{"type":"integer"},"uniqueItems":true}`), jsonschema.Options{})
	require.NoError(t, err)
	g.Rules = append(g.Rules, grammar.Rule{Name: "call", Body: grammar.Cat(grammar.LitTokens("<|start_header_id|>"), grammar.Call(g.Root))})
	g.Root = len(g.Rules) - 1
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	m := c.NewMatcher()
	require.True(t, m.AcceptToken(tokenID(t, voc, "<|start_header_id|>")))
	require.True(t, m.AcceptString("[1,2"))
	assert.False(t, m.AcceptString(",2]"), "a repeated item")
	assert.True(t, m.AcceptString(",3]"))
}
