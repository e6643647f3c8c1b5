package rein_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/toolcall"
)

// TestGrammarSpec: a grammar built in Go goes through the Compiler like any
// source: equal grammars built apart share one compile, different ones do
// not, and token terminals work.
func TestGrammarSpec(t *testing.T) {
	voc := vocabtest.Load(t, "qwen3")
	c := newCompiler(t, voc, rein.CompilerOptions{})
	ctx := context.Background()
	build := func(text string) *grammar.Grammar {
		return &grammar.Grammar{Rules: []grammar.Rule{
			{Name: "root", Body: grammar.Cat(grammar.Text("<tool_call>"), grammar.Rep(grammar.Call(1), 0, 1))},
			{Name: "call", Body: grammar.Cat(grammar.Lit("<tool_call>"), grammar.Lit(text), grammar.Token("<|im_end|>"))},
		}}
	}
	for _, g := range []*grammar.Grammar{build("x"), build("x"), build("y")} {
		cg, err := c.Compile(ctx, rein.Grammar(g))
		require.NoError(t, err)
		m := cg.NewMatcher()
		assert.True(t, m.AcceptString("Hi.<tool_call>"))
	}
	lit := build("x")
	lit.Rules[1].Body.Subs[1] = grammar.LitTokens("x")
	_, err := c.Compile(ctx, rein.Grammar(lit))
	require.NoError(t, err)
	st := c.Stats()
	assert.Equal(t, int64(3), st.Compiles, "the two x grammars are one; LitTokens differs from Lit")
	assert.Equal(t, int64(1), st.Hits)

	_, err = c.Compile(ctx, rein.Grammar(nil))
	assert.ErrorIs(t, err, rein.ErrSpec)
	_, err = c.Compile(ctx, rein.Grammar(&grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: grammar.Call(3)}}}))
	assert.ErrorContains(t, err, "out of range")
	_, err = c.Compile(ctx, rein.Grammar(&grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: grammar.Lit("<|im_end|>")}}}))
	assert.ErrorContains(t, err, "special token")
}

// TestGrammarSpecShared: an expression shared by many parents is walked once
// per parent; a grammar whose walk doubles per level is refused by
// Limits.ExprNodes before anything walks it whole.
func TestGrammarSpecShared(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	c := newCompiler(t, voc, rein.CompilerOptions{})
	e := grammar.Lit("a")
	for range 64 {
		e = grammar.Cat(e, e) // 2^64 leaves as a tree
	}
	_, err := c.Compile(context.Background(), rein.Grammar(&grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: e}}}))
	require.ErrorIs(t, err, grammar.ErrLimit)
	assert.ErrorContains(t, err, "ExprNodes")
}

// TestGrammarSpecKeyBytes: the key writes a node shared by many parents
// once and refers back to it after, so its bytes follow the grammar's
// distinct nodes, and it is bounded by Limits.SchemaBytes.
func TestGrammarSpecKeyBytes(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	ctx := context.Background()
	const max = 16 << 10
	c := newCompiler(t, voc, rein.CompilerOptions{Limits: grammar.Limits{SchemaBytes: max}})
	root := func(e *grammar.Expr) *grammar.Grammar {
		return &grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: e}}}
	}
	shared := func(lit string, parents int) *grammar.Expr {
		e := grammar.Lit(lit)
		subs := make([]*grammar.Expr, parents)
		for i := range subs {
			subs[i] = e
		}
		return grammar.Or(subs...)
	}

	_, err := c.Compile(ctx, rein.Grammar(root(grammar.Lit(strings.Repeat("a", max)))))
	require.ErrorIs(t, err, grammar.ErrLimit, "one literal as long as the bound")
	assert.ErrorContains(t, err, "SchemaBytes")

	// 256 parents of one 256-byte literal: 64 KiB as a tree, far less
	// written with back-references.
	lit := strings.Repeat("b", 255) + "c"
	cg, err := c.Compile(ctx, rein.Grammar(root(shared(lit, 256))))
	require.NoError(t, err)
	m := cg.NewMatcher()
	assert.True(t, m.AcceptString(lit))
	assert.True(t, m.CanEnd())
	again, err := c.Compile(ctx, rein.Grammar(root(shared(lit, 256))))
	require.NoError(t, err)
	assert.Same(t, cg, again, "equal grammars built apart share one compile")
	other, err := c.Compile(ctx, rein.Grammar(root(shared(lit, 255))))
	require.NoError(t, err)
	assert.NotSame(t, cg, other)

	// A megabyte shared by 4M parents: the walk passes Limits.ExprNodes
	// (each parent counts its literal once more) and is refused, the
	// literal written once on the way.
	big := newCompiler(t, voc, rein.CompilerOptions{})
	_, err = big.Compile(ctx, rein.Grammar(root(shared(strings.Repeat("d", 1<<20), 4<<20))))
	require.ErrorIs(t, err, grammar.ErrLimit)
	assert.ErrorContains(t, err, "ExprNodes")
}

// TestGrammarSpecCycle: an expression that holds itself is an infinite tree,
// refused by Limits.ExprNodes.
func TestGrammarSpecCycle(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	c := newCompiler(t, voc, rein.CompilerOptions{})
	e := grammar.Cat(grammar.Lit("a"), nil)
	e.Subs[1] = e
	_, err := c.Compile(context.Background(), rein.Grammar(&grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: e}}}))
	require.ErrorIs(t, err, grammar.ErrLimit)
	assert.ErrorContains(t, err, "ExprNodes")
}

// TestStructuralTagSpec: an OpenAI-style response_format through the
// Compiler, token texts resolved against its vocabulary.
func TestStructuralTagSpec(t *testing.T) {
	voc := vocabtest.Load(t, "qwen3")
	c := newCompiler(t, voc, rein.CompilerOptions{})
	ctx := context.Background()
	tag := `{"type": "structural_tag", "format": {"type": "triggered_tags", "triggers": ["<tool_call>"],
		"tags": [{"begin": "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": ",
		          "content": {"type": "json_schema", "json_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
		          "end": "}\n</tool_call>"}]}}`
	cg, err := c.Compile(ctx, rein.StructuralTag(tag))
	require.NoError(t, err)
	m := cg.NewMatcher()
	require.True(t, m.AcceptString("Let me look.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"))
	assert.True(t, m.CanEnd())
	m.Reset()
	assert.False(t, m.AcceptString("<tool_call>\n{\"name\": \"get_time\""), "an unknown tool")

	_, err = c.Compile(ctx, rein.StructuralTag(`{"type": "structural_tag", "format": {"type": "token", "token": "<|no_such|>"}}`))
	require.Error(t, err)
	assert.ErrorContains(t, err, "/format/token")
	_, err = c.Compile(ctx, rein.StructuralTag(`{"format": {"type": "sequence", "elements": [{"type": "nope"}]}}`))
	assert.ErrorContains(t, err, "/format/elements/0")
}

// TestGBNFSpecTokensAndJSON: GBNF specs read token terminals and %json.
func TestGBNFSpecTokensAndJSON(t *testing.T) {
	voc := vocabtest.Load(t, "qwen3")
	c := newCompiler(t, voc, rein.CompilerOptions{})
	src := `root ::= %text -("<tool_call>") ("<tool_call>" call "</tool_call>")? <|im_end|>
call ::= %json {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false}`
	cg, err := c.Compile(context.Background(), rein.GBNF(src, ""))
	require.NoError(t, err)
	m := cg.NewMatcher()
	require.True(t, m.AcceptString(`Sure.<tool_call>{"city": "Oslo"}</tool_call>`))
	end, ok := voc.TokenID("<|im_end|>")
	require.True(t, ok)
	require.True(t, m.AcceptToken(end))
	assert.True(t, m.IsTerminated())
	m.Reset()
	assert.False(t, m.AcceptString(`<tool_call>{"town": "Oslo"}`), "the schema holds")
}

// TestToolCallsSpec: a Qwen3 tool-calling turn from an OpenAI-style request.
func TestToolCallsSpec(t *testing.T) {
	voc := vocabtest.Load(t, "qwen3")
	c := newCompiler(t, voc, rein.CompilerOptions{})
	tools, err := toolcall.ParseTools([]byte(`[
		{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
			"properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false}}},
		{"type": "function", "function": {"name": "get_time", "parameters": {"type": "object",
			"properties": {"tz": {"type": "string"}}, "required": ["tz"]}}}]`))
	require.NoError(t, err)
	no := false
	req := toolcall.Request{Model: toolcall.Qwen3, Tools: tools, Reasoning: true, ParallelToolCalls: &no}
	cg, err := c.Compile(context.Background(), rein.ToolCalls(req))
	require.NoError(t, err)
	again, err := c.Compile(context.Background(), rein.ToolCalls(req))
	require.NoError(t, err)
	assert.Same(t, cg, again, "equal requests share one grammar")

	call := "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
	m := cg.NewMatcher()
	require.True(t, m.AcceptString("The user wants the weather.\n</think>\n\nLet me check.\n"+call))
	assert.True(t, m.CanEnd())
	assert.False(t, m.AcceptString("\n"+call), "parallel_tool_calls is false: one call")
	m.Reset()
	assert.False(t, m.AcceptString("x\n</think>\n\n<tool_call>\n{\"name\": \"get_news\""), "an unknown tool")

	_, err = c.Compile(context.Background(), rein.ToolCalls(toolcall.Request{Model: toolcall.Qwen3, Tools: tools,
		ToolChoice: toolcall.ToolChoice{Mode: toolcall.ChoiceFunction, Function: "nope"}}))
	assert.ErrorIs(t, err, toolcall.ErrInvalid)

	bad := append(tools, toolcall.Tool{Name: "bad", Parameters: []byte(`{"type": "bogus"}`)})
	_, err = c.Compile(context.Background(), rein.ToolCalls(toolcall.Request{Model: toolcall.Qwen3, Tools: bad}))
	assert.ErrorIs(t, err, toolcall.ErrInvalid, "a bad parameters schema is the request's error")
	var e *toolcall.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "/tools/2/parameters/type", e.Pointer)
}
