package grammar_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/oracle"
)

// gbnfExtensionTests are rule bodies with rein's extensions, parsed as
// "root ::= body", and the body Grammar.String prints for them.
var gbnfExtensionTests = []struct{ body, want string }{
	{`/[0-9]+/`, `/[0-9]+/`},
	{`/a\/b/`, `/a\/b/`},
	{`/[\/]/`, `/\//`},
	{`/^ab$/`, `/ab/`},
	{`/(x)(?:y)/`, `/xy/`},
	{`/a\\/`, `/a\\/`},
	{`/\n/`, `/\n/`},
	{`/(?i)ok/`, `/(?i:OK)/`},
	{`//`, `/(?:)/`},
	{`"a" /b+/ "c"`, `("a" /b+/ "c")`},
	{`/x/*`, `/x/{0,}`},
	{`%text`, `%text`},
	{`%text*`, `%text{0,}`},
	{`%text -("</tool_call>")`, `%text -("</tool_call>")`},
	{`%text -( "a" | "b\n" )`, `%text -("a" | "b\n")`},
	{"(%text -(\n  \"a\" |\n  \"b\"\n))", `%text -("a" | "b")`},
	{`%text - ("a")`, `%text -("a")`},
	{`%text-("a")`, `%text -("a")`},
	{`%text -x` + "\n-x ::= \"x\"", `(%text -x)` + "\n-x ::= \"x\""},
	{`%text -("a")*`, `%text -("a"){0,}`},
	{`"x" %text "y"`, `("x" %text "y")`},
	{`%lit_tokens "<|im_start|>assistant\n"`, `%lit_tokens "<|im_start|>assistant\n"`},
	{`%lit_tokens ""`, `""`},
	{`%lit_tokens "a" | "a"`, `(%lit_tokens "a" | "a")`},
}

// gbnfExtensionErrorTests are grammars with malformed extensions and the
// whole error message for each.
var gbnfExtensionErrorTests = []struct{ src, want string }{
	{`root ::= /a`, `gbnf:1:10: unterminated regular expression (it ends at the next '/' on its line; write a slash inside it as \/)`},
	{"root ::= /a\n/", `gbnf:1:10: unterminated regular expression (it ends at the next '/' on its line; write a slash inside it as \/)`},
	{"root ::= /a\\\n/", `gbnf:1:10: unterminated regular expression (it ends at the next '/' on its line; write a slash inside it as \/)`},
	{`root ::= /a\/`, `gbnf:1:10: unterminated regular expression (it ends at the next '/' on its line; write a slash inside it as \/)`},
	{`root ::= "x" /(?=a)b/`, `gbnf:1:15: regular expression: lookahead is not supported`},
	{`root ::= /a(b/`, `gbnf:1:12: regular expression: missing closing ): ` + "`a(b`"},
	{`root ::= /a^b/`, `gbnf:1:12: regular expression: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`root ::= %foo`, `gbnf:1:10: unknown extension %foo (there are %json, %text and %lit_tokens)`},
	{`root ::= %`, `gbnf:1:10: unknown extension % (there are %json, %text and %lit_tokens)`},
	{`root ::= %texts`, `gbnf:1:10: unknown extension %texts (there are %json, %text and %lit_tokens)`},
	{`root ::= %text -`, `gbnf:1:16: undefined rule "-"`},
	{`root ::= %text -()`, `gbnf:1:18: expected a string literal in %text -(...), found ')'`},
	{`root ::= %text -("")`, `gbnf:1:18: %text -(...) cannot exclude the empty string`},
	{`root ::= %text -("a" "b")`, `gbnf:1:22: expected '|' or ')' to close the %text -( at 1:16, found '"'`},
	{`root ::= %text -("a" |)`, `gbnf:1:23: expected a string literal in %text -(...), found ')'`},
	{`root ::= %text -("a"`, `gbnf:1:21: expected '|' or ')' to close the %text -( at 1:16, found end of input`},
	{`root ::= %text -("a", "b")`, `gbnf:1:21: expected '|' or ')' to close the %text -( at 1:16, found ','`},
	{`root ::= %lit_tokens x`, `gbnf:1:22: expected a string literal after %lit_tokens, found 'x'`},
	{`root ::= %json`, `gbnf:1:15: expected a JSON object after %json, found end of input`},
	{`root ::= %json []`, `gbnf:1:16: expected a JSON object after %json, found '['`},
	{`root ::= %json {"a": [}`, `gbnf:1:23: '}' does not close the '[' before it in the %json object`},
	{`root ::= %json {"a": "}`, `gbnf:1:22: unterminated string in the %json object`},
	{"root ::= %json {\"a\": 1", `gbnf:1:16: unclosed %json object`},
}

func TestParseGBNFExtensions(t *testing.T) {
	for _, tc := range gbnfExtensionTests {
		g, err := grammar.ParseGBNF("root ::= "+tc.body, "", grammar.Limits{})
		if !assert.NoError(t, err, "%q", tc.body) {
			continue
		}
		assert.Equal(t, "root ::= "+tc.want+"\n", g.String(), "%q", tc.body)
	}
}

func TestParseGBNFExtensionErrors(t *testing.T) {
	opts := grammar.GBNFOptions{JSONSchema: jsonschema.Embed}
	for _, tc := range gbnfExtensionErrorTests {
		g, err := grammar.ParseGBNFOptions(tc.src, opts)
		if !assert.Error(t, err, "%q", tc.src) {
			continue
		}
		assert.Nil(t, g)
		assert.Equal(t, tc.want, err.Error(), "%q", tc.src)
		checkGBNFError(t, tc.src, err)
	}
	_, err := grammar.ParseGBNF(`root ::= /(?=a)/`, "", grammar.Limits{})
	assert.ErrorIs(t, err, grammar.ErrUnsupported, "the regex front-end's sentinel comes through")
	_, err = grammar.ParseGBNF(`root ::= /a{2000}/`, "", grammar.Limits{})
	assert.ErrorIs(t, err, grammar.ErrLimit)
	_, err = grammar.ParseGBNF(`root ::= /aaaa/`, "", grammar.Limits{RegexBytes: 3})
	assert.ErrorIs(t, err, grammar.ErrLimit)
	assert.ErrorContains(t, err, "Limits.RegexBytes")
}

// gbnfJSONSources are grammars with %json schemas.
var gbnfJSONSources = []string{
	`root ::= "call: " %json {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": false}`,
	"root ::= <|python_tag|> body <|eom_id|>\nbody ::= %json {\n  \"type\": \"object\",\n  \"properties\": {\"city\": {\"type\": \"string\", \"pattern\": \"^[A-Z][a-z]+$\"}},\n  \"required\": [\"city\"]\n}\n",
	"root ::= (%json {\"type\": \"integer\"} | %json {\"type\": \"boolean\"}) \" \" %json {\"type\": \"integer\"}",
	"root ::= json-root %json {\"enum\": [\"x\", \"}\\\"\"]}\njson-root ::= \"r\"",
}

func TestParseGBNFJSON(t *testing.T) {
	opts := grammar.GBNFOptions{JSONSchema: jsonschema.Embed}
	for _, tc := range []struct {
		src        string
		refs       []string // the rules the root refers to, in order
		pass, fail []string
	}{
		{gbnfJSONSources[0], []string{"json-root"}, []string{`call: {"n": 5}`, `call: {"n":-12}`}, []string{`call: {}`, `{"n": 5}`, `call: {"n": 5, "m": 1}`, `call: {"n": 1.5}`}},
		{gbnfJSONSources[2], []string{"json-root", "json2-root", "json-root"}, []string{`1 2`, `true 3`}, []string{`1 true`, `true`, `"1" 2`}},
		{gbnfJSONSources[3], []string{"json-root", "json-root-2"}, []string{`r"x"`, `r"}\""`}, []string{`"x"`, `r"y"`}},
	} {
		g, err := grammar.ParseGBNFOptions(tc.src, opts)
		require.NoError(t, err, tc.src)
		assert.Equal(t, tc.refs, refNames(g, g.Rules[g.Root].Body), tc.src)
		for _, s := range tc.pass {
			ok, err := oracle.Accepts(g, []byte(s))
			require.NoError(t, err)
			assert.True(t, ok, "%q should accept %q", tc.src, s)
		}
		for _, s := range tc.fail {
			ok, err := oracle.Accepts(g, []byte(s))
			require.NoError(t, err)
			assert.False(t, ok, "%q should refuse %q", tc.src, s)
		}
	}

	// A schema written twice, byte for byte, is embedded once.
	once, err := grammar.ParseGBNFOptions(`root ::= %json {"type": "integer"}`, opts)
	require.NoError(t, err)
	twice, err := grammar.ParseGBNFOptions(`root ::= %json {"type": "integer"} "," %json {"type": "integer"}`, opts)
	require.NoError(t, err)
	assert.Equal(t, len(once.Rules), len(twice.Rules))
	body := twice.Rules[twice.Root].Body
	require.Equal(t, grammar.OpSeq, body.Op)
	assert.Equal(t, body.Subs[0].Rule, body.Subs[2].Rule)

	// The embedded grammar is the schema's own, renamed.
	want, err := jsonschema.Embed([]byte(`{"type": "integer"}`), grammar.Limits{})
	require.NoError(t, err)
	require.Len(t, once.Rules, 1+len(want.Rules))
	for i, r := range want.Rules {
		assert.Equal(t, "json-"+r.Name, once.Rules[1+i].Name)
		assert.Equal(t, r.Body.String(), once.Rules[1+i].Body.String())
	}
	assert.Equal(t, 1+want.Root, once.Rules[0].Body.Rule)
}

func TestParseGBNFJSONErrors(t *testing.T) {
	opts := grammar.GBNFOptions{JSONSchema: jsonschema.Embed}
	src := "root ::= \"a\" |\n  x %json {\"type\": \"object\", \"properties\": {\"p\": {\"type\": \"strin\"}}}\nx ::= \"x\""
	_, err := grammar.ParseGBNFOptions(src, opts)
	var e *grammar.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, grammar.Pos{Line: 2, Col: 5, Offset: 19}, e.Pos, "the place of the %%json")
	assert.Equal(t, "/properties/p/type", e.Pointer)
	assert.True(t, strings.HasPrefix(e.Error(), "gbnf:2:5: /properties/p/type: %json: "), e.Error())
	var inner *grammar.Error
	require.True(t, errors.As(e.Err, &inner), "the schema's own error is wrapped")
	assert.Equal(t, "jsonschema", inner.Source)
	checkGBNFError(t, src, err)

	// The schema compiler's sentinels come through.
	_, err = grammar.ParseGBNFOptions(`root ::= %json {"type": "array", "items": {"type": "object", "properties": {"a": {}}}, "uniqueItems": true}`, opts)
	assert.ErrorIs(t, err, grammar.ErrUnsupported)
	_, err = grammar.ParseGBNFOptions(`root ::= %json {"type": "string", "maxLength": 5}`, grammar.GBNFOptions{JSONSchema: jsonschema.Embed, Limits: grammar.Limits{Repeat: 4}})
	assert.ErrorIs(t, err, grammar.ErrLimit, "the limits reach the schema compiler")

	// Errors in the schema and in the rest of the source come back together.
	_, err = grammar.ParseGBNFOptions("root ::= %json {\"type\": 1}\nbad ::= )", opts)
	var list grammar.ErrorList
	require.ErrorAs(t, err, &list)
	require.Len(t, list, 2)
	assert.Equal(t, 1, list[0].Pos.Line)
	assert.Equal(t, 2, list[1].Pos.Line)

	// Without a schema compiler, %json says how to get one.
	_, err = grammar.ParseGBNF(`root ::= %json {"type": "integer"}`, "", grammar.Limits{})
	assert.ErrorIs(t, err, grammar.ErrUnsupported)
	assert.ErrorContains(t, err, "jsonschema.Embed")

	// The rules of the embedded schemas count against Limits.Rules.
	_, err = grammar.ParseGBNFOptions(`root ::= %json {"type": "object"}`, grammar.GBNFOptions{JSONSchema: jsonschema.Embed, Limits: grammar.Limits{Rules: 4}})
	assert.ErrorIs(t, err, grammar.ErrLimit)
	assert.ErrorContains(t, err, "Limits.Rules (4)")

	// A compiler that returns nothing is an error, not a panic.
	_, err = grammar.ParseGBNFOptions(`root ::= %json {}`, grammar.GBNFOptions{JSONSchema: func([]byte, grammar.Limits) (*grammar.Grammar, error) { return nil, nil }})
	assert.ErrorContains(t, err, "returned no grammar")
	_, err = grammar.ParseGBNFOptions(`root ::= %json {}`, grammar.GBNFOptions{JSONSchema: func([]byte, grammar.Limits) (*grammar.Grammar, error) {
		return nil, errors.New("plain")
	}})
	assert.EqualError(t, err, "gbnf:1:10: %json: plain")
}

// refNames lists the names of the rules e refers to, in order.
func refNames(g *grammar.Grammar, e *grammar.Expr) []string {
	var names []string
	stack := []*grammar.Expr{e}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x.Op == grammar.OpRef {
			names = append(names, g.Rules[x.Rule].Name)
		}
		for i := len(x.Subs) - 1; i >= 0; i-- {
			stack = append(stack, x.Subs[i])
		}
	}
	return names
}
