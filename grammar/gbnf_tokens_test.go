package grammar_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
)

// gbnfTokenTests are rule bodies with token terminals, parsed as
// "root ::= body", and the body Grammar.String prints for them.
var gbnfTokenTests = []struct{ body, want string }{
	{`<|im_end|>`, `<|im_end|>`},
	{`<think>`, `<think>`},
	{`<a|b>`, `<a|b>`},
	{`<<a>`, `<<a>`},
	{`<é>`, `<é>`},
	{`<a[b]>`, `<a[b]>`},
	{`<[1000]>`, `<[1000]>`},
	{`<[0]>`, `<[0]>`},
	{`<[2147483647]>`, `<[2147483647]>`},
	{`<[007]>`, `<[7]>`},
	{`!<[1000]>`, `<[^1000]>`},
	{`!<|im_end|>`, `!<|im_end|>`},
	{`<[1,2,3]>`, `<[1-3]>`},
	{`<[5-9,1]>`, `<[1,5-9]>`},
	{`<[1, 5-9 ,12]>`, `<[1,5-9,12]>`},
	{"<[ 3 - 4\t]>", `<[3-4]>`},
	{`<[1-5,3-9]>`, `<[1-9]>`},
	{`<[4-4]>`, `<[4]>`},
	{`<[^1,5-9]>`, `<[^1,5-9]>`},
	{`<[*]>`, `<[*]>`},
	{`<[ * ]>`, `<[*]>`},
	{`<["[TOOL_CALLS]"]>`, `<["[TOOL_CALLS]"]>`},
	{`<["<|im_end|>"]>`, `<|im_end|>`},
	{`<[^"<|im_end|>"]>`, `!<|im_end|>`},
	{`!<["<|im_end|>"]>`, `!<|im_end|>`},
	{`<[7,"[INST]"]>`, `<[7,"[INST]"]>`},
	{`<["[INST]",7]>`, `<[7,"[INST]"]>`},
	{`<["a b","\"","\u00e9"]>`, `<["a b","\"","é"]>`},
	{`<["<[x]>"]>`, `<["<[x]>"]>`},
	{`!<[1,2]>`, `<[^1-2]>`},
	{`<|im_start|> "assistant" <|im_end|>`, `(<|im_start|> "assistant" <|im_end|>)`},
	{`"<|im_end|>" <|im_end|>`, `("<|im_end|>" <|im_end|>)`},
	{`<[*]>*`, `<[*]>{0,}`},
	{`!<x>+`, `!<x>{1,}`},
	{`<[1]>{2,3}`, `<[1]>{2,3}`},
	{`<a><b>`, `(<a> <b>)`},
	{`<|a|>|<|b|>`, `(<|a|> | <|b|>)`},
	{`("x" | <[1]>)`, `("x" | <[1]>)`},
	{"(<a>\n| !<a>)", `(<a> | !<a>)`},
}

// gbnfTokenErrorTests are grammars with malformed token terminals and the
// whole error message for each.
var gbnfTokenErrorTests = []struct{ src, want string }{
	{`root ::= <>`, `gbnf:1:10: <> names no token`},
	{`root ::= < a>`, `gbnf:1:11: expected '>' to end the token text that starts at 1:10, found ' ' (a token's text holds no blank, control character, quote or backslash)`},
	{`root ::= <a b>`, `gbnf:1:12: expected '>' to end the token text that starts at 1:10, found ' ' (a token's text holds no blank, control character, quote or backslash)`},
	{`root ::= <a"b>`, `gbnf:1:12: expected '>' to end the token text that starts at 1:10, found '"' (a token's text holds no blank, control character, quote or backslash)`},
	{`root ::= <a\>`, `gbnf:1:12: expected '>' to end the token text that starts at 1:10, found '\\' (a token's text holds no blank, control character, quote or backslash)`},
	{`root ::= <a`, `gbnf:1:12: expected '>' to end the token text that starts at 1:10, found end of input (a token's text holds no blank, control character, quote or backslash)`},
	{"root ::= <a\nb>", `gbnf:1:12: expected '>' to end the token text that starts at 1:10, found end of line (a token's text holds no blank, control character, quote or backslash)`},
	{"root ::= <a\x00>", `gbnf:1:12: expected '>' to end the token text that starts at 1:10, found '\x00' (a token's text holds no blank, control character, quote or backslash)`},
	{"root ::= <\xff>", `gbnf:1:10: token text "<\xff>" is not valid UTF-8`},
	{`root ::= <[]>`, `gbnf:1:12: expected a token id, a range of ids or a quoted token text in a token set, found ']'`},
	{`root ::= <[^]>`, `gbnf:1:13: expected a token id, a range of ids or a quoted token text in a token set, found ']'`},
	{`root ::= <[a]>`, `gbnf:1:12: expected a token id, a range of ids or a quoted token text in a token set, found 'a'`},
	{`root ::= <[-1]>`, `gbnf:1:12: expected a token id, a range of ids or a quoted token text in a token set, found '-'`},
	{`root ::= <[1,]>`, `gbnf:1:14: expected a token id, a range of ids or a quoted token text in a token set, found ']'`},
	{`root ::= <[1 2]>`, `gbnf:1:14: expected ',' or "]>" to close the token set that starts at 1:10, found '2'`},
	{`root ::= <[1]`, `gbnf:1:14: expected '>' to close the token set that starts at 1:10, found end of input`},
	{`root ::= <[1] >`, `gbnf:1:14: expected '>' to close the token set that starts at 1:10, found ' '`},
	{`root ::= <[*,1]>`, `gbnf:1:13: expected "]>" to close the token set that starts at 1:10, found ','`},
	{`root ::= <[2147483648]>`, `gbnf:1:12: token id 2147483648 is above 2147483647`},
	{`root ::= <[1-99999999999999999999999999]>`, `gbnf:1:14: token id 99999999999999999999... is above 2147483647`},
	{`root ::= <[9-5]>`, `gbnf:1:12: token range 9-5 has its end below its start`},
	{`root ::= <[1-]>`, `gbnf:1:14: expected a token id after '-' in a token set, found ']'`},
	{`root ::= <[""]>`, `gbnf:1:12: an empty text names no token`},
	{`root ::= <["a]>`, `gbnf:1:12: unterminated string literal`},
	{`root ::= <["\q"]>`, `gbnf:1:13: unknown escape \q`},
	{`root ::= !<[^1]>`, `gbnf:1:10: '!' before a token set that is negated already (<[^...]> or <[*]>)`},
	{`root ::= !<[*]>`, `gbnf:1:10: '!' before a token set that is negated already (<[^...]> or <[*]>)`},
	{`root ::= !!<a>`, `gbnf:1:11: expected a token terminal <token> or <[...]> after '!', found '!'`},
	{`root ::= ! <a>`, `gbnf:1:11: expected a token terminal <token> or <[...]> after '!', found ' '`},
	{`root ::= !`, `gbnf:1:11: expected a token terminal <token> or <[...]> after '!', found end of input`},
	{"root ::= <a> x\n<b> ::= \"y\"", "gbnf:1:14: undefined rule \"x\"\ngbnf:2:1: expected rule name, found '<' (a rule goes on to the next line only after \"::=\", '|' or inside parentheses)"},
}

func TestParseGBNFTokens(t *testing.T) {
	for _, tc := range gbnfTokenTests {
		g, err := grammar.ParseGBNF("root ::= "+tc.body, "", grammar.Limits{})
		if !assert.NoError(t, err, "%q", tc.body) {
			continue
		}
		require.NoError(t, g.Validate())
		assert.Equal(t, "root ::= "+tc.want+"\n", g.String(), "%q", tc.body)
	}
}

func TestParseGBNFTokenErrors(t *testing.T) {
	for _, tc := range gbnfTokenErrorTests {
		g, err := grammar.ParseGBNF(tc.src, "", grammar.Limits{})
		if !assert.Error(t, err, "%q", tc.src) {
			continue
		}
		assert.Nil(t, g)
		assert.Equal(t, tc.want, err.Error(), "%q", tc.src)
		assert.Equal(t, strings.Contains(tc.want, "is above 2147483647"), errors.Is(err, grammar.ErrLimit), "%q: ErrLimit", tc.src)
		checkGBNFError(t, tc.src, err)
	}
}

// TestParseGBNFTokenStructure: what each spelling builds, field by field.
func TestParseGBNFTokenStructure(t *testing.T) {
	for _, tc := range []struct {
		body string
		want *grammar.Expr
	}{
		{`<|im_end|>`, grammar.Token("<|im_end|>")},
		{`!<|im_end|>`, grammar.TokenSet(true, []string{"<|im_end|>"}, nil)},
		{`<[1000]>`, grammar.TokenIDs(1000)},
		{`!<[1000]>`, grammar.TokenSet(true, nil, []grammar.TokenRange{{Lo: 1000, Hi: 1000}})},
		{`<[1,5-9,12]>`, grammar.TokenSet(false, nil, []grammar.TokenRange{{Lo: 1, Hi: 1}, {Lo: 5, Hi: 9}, {Lo: 12, Hi: 12}})},
		{`<[^"[TOOL_CALLS]",0-2]>`, grammar.TokenSet(true, []string{"[TOOL_CALLS]"}, []grammar.TokenRange{{Lo: 0, Hi: 2}})},
		{`<[*]>`, grammar.AnyToken()},
	} {
		g, err := grammar.ParseGBNF("root ::= "+tc.body, "", grammar.Limits{})
		require.NoError(t, err, tc.body)
		got := g.Rules[0].Body
		assert.Equal(t, grammar.OpToken, got.Op, tc.body)
		assert.Equal(t, tc.want.Negate, got.Negate, tc.body)
		assert.Equal(t, tc.want.TokenNames, got.TokenNames, tc.body)
		assert.Equal(t, len(tc.want.Tokens), len(got.Tokens), tc.body)
		if len(tc.want.Tokens) > 0 {
			assert.Equal(t, tc.want.Tokens, got.Tokens, tc.body)
		}
	}
}

// TestParseGBNFTokenLimits: a token list and a %text -(...) list hold at
// most Limits.Enum items.
func TestParseGBNFTokenLimits(t *testing.T) {
	for _, tc := range []struct{ ok, over string }{
		{`root ::= <[1,2-3,"x"]>`, `root ::= <[1,2-3,"x",4]>`},
		{`root ::= <[^1,2,3]>`, `root ::= <[^1,2,3,4]>`},
		{`root ::= %text -("a" | "b" | "c")`, `root ::= %text -("a" | "b" | "c" | "d")`},
	} {
		lim := grammar.Limits{Enum: 3}
		_, err := grammar.ParseGBNF(tc.ok, "", lim)
		assert.NoError(t, err, tc.ok)
		_, err = grammar.ParseGBNF(tc.over, "", lim)
		assert.ErrorIs(t, err, grammar.ErrLimit, tc.over)
		assert.ErrorContains(t, err, "Limits.Enum (3)", tc.over)
		checkGBNFError(t, tc.over, err)
	}
}

// TestGBNFTokensEndToEnd compiles a Qwen3 tool call written in GBNF, with
// token terminals, free text and a %json schema, against Qwen3's own
// vocabulary and drives a matcher through it. Qwen3 adds <think>,
// <tool_call> and their ends as ordinary tokens and <|im_end|> as a special
// one; a token terminal names either by identity.
func TestGBNFTokensEndToEnd(t *testing.T) {
	const src = `root ::= <think> %text -("</think>") </think> "\n\n" call+ <|im_end|>
call ::= <tool_call> "\n" %json {"type": "object", "properties": {"name": {"const": "get_weather"}}, "required": ["name"], "additionalProperties": false} "\n" </tool_call>
`
	g, err := grammar.ParseGBNFOptions(src, grammar.GBNFOptions{JSONSchema: jsonschema.Embed})
	require.NoError(t, err)
	voc := vocabtest.Load(t, "qwen3")
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	id := func(text string) int {
		i, ok := voc.TokenID(text)
		require.True(t, ok, "no token %q", text)
		return i
	}
	think, endThink, call, endCall, imEnd := id("<think>"), id("</think>"), id("<tool_call>"), id("</tool_call>"), id("<|im_end|>")
	m := c.NewMatcher()
	b := mask.NewBitmask(1, c.VocabSize())
	allowed := func() *mask.Bitmask {
		require.NoError(t, m.FillBitmask(b, 0))
		return b
	}
	assert.Equal(t, 1, allowed().Count(0), "only <think> starts")
	assert.True(t, b.Allowed(0, think))
	require.True(t, m.AcceptToken(think))

	allowed()
	assert.True(t, b.Allowed(0, endThink), "the special token ends the thought")
	assert.True(t, b.Allowed(0, id("Hello")), "text")
	assert.False(t, b.Allowed(0, id("<|im_start|>")), "no special token inside the text")
	require.False(t, voc.IsSpecial(call))
	assert.True(t, b.Allowed(0, call), "Qwen3's <tool_call> is an ordinary token, text here")
	require.True(t, m.AcceptString("Let me look it up. </thi"), "text may end with part of the excluded string")
	assert.False(t, m.AcceptString("nk>"), "but holds none of it whole")
	require.True(t, m.AcceptToken(endThink))
	require.True(t, m.AcceptString("\n\n"))

	allowed()
	assert.Equal(t, 1, b.Count(0), "only <tool_call> after the thought")
	assert.True(t, b.Allowed(0, call))
	require.True(t, m.AcceptToken(call))
	assert.False(t, m.AcceptString(`\n{"name": "get_time"}`), "the schema holds")
	require.True(t, m.AcceptString("\n"+`{"name": "get_weather"}`+"\n"))
	assert.False(t, m.AcceptToken(imEnd), "the call is not closed")
	require.True(t, m.AcceptToken(endCall))

	allowed()
	assert.True(t, b.Allowed(0, call), "another call")
	assert.True(t, b.Allowed(0, imEnd), "or the end")
	require.True(t, m.AcceptToken(imEnd))
}
