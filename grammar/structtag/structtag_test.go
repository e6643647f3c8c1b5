package structtag_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/structtag"
	"github.com/reinlm/rein/internal/ctxtest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/pda"
)

// recognizer compiles a request and returns whether it accepts a text
// whole: through the byte automaton, or, for a grammar with token
// terminals, through the matcher of the test vocabulary, fed the text's
// tokens.
func recognizer(t *testing.T, request string, opts structtag.Options) func(string) bool {
	t.Helper()
	g, err := structtag.Compile([]byte(request), opts)
	require.NoError(t, err)
	require.NoError(t, g.Validate())
	if hasTokens(g) {
		vocab, err := testVocab()
		require.NoError(t, err)
		enc, err := vocab.Encoder()
		require.NoError(t, err)
		c, err := mask.Compile(g, vocab, mask.Options{})
		require.NoError(t, err)
		return func(s string) bool { return runTokens(c, enc.Encode(s)) }
	}
	p, err := pda.Compile(g, grammar.Limits{})
	require.NoError(t, err)
	return func(s string) bool { return runBytes(p, s) }
}

// TestLanguages checks the texts each request accepts: end detection, the
// flags of the tag lists, untyped formats, strict JSON and whitespace.
func TestLanguages(t *testing.T) {
	obj := `{"type":"json_schema","json_schema":{"type":"object"}}`
	cases := []struct {
		name    string
		request string
		opts    structtag.Options
		accept  []string
		reject  []string
	}{
		{
			name:    "escaped surrogate pairs and escaped backslashes before u",
			request: `{"type":"sequence","elements":[{"type":"const_string","value":"\ud83d\ude00"},{"type":"const_string","value":"\\ud800"}]}`,
			accept:  []string{"😀\\ud800"},
			reject:  []string{"\uFFFD\\ud800", "😀"},
		},
		{
			// XGrammar's EBNF refuses `.` and an empty alternative; the
			// format reads such a grammar as GBNF, as it did before it
			// read XGrammar's dialect.
			name:    "a GBNF grammar in the grammar format",
			request: `{"type":"grammar","grammar":"root ::= \"a\" ws \"b\" .\nws ::= | \" \""}`,
			accept:  []string{"ab!", "a b?"},
			reject:  []string{"ab", "a  b!"},
		},
		{
			// Where both dialects read a grammar, XGrammar's reading holds:
			// \x takes every hex digit that follows.
			name:    "XGrammar's reading of a grammar both dialects read",
			request: `{"type":"grammar","grammar":"root ::= \"\\x20and\""}`,
			accept:  []string{"\u020and"},
			reject:  []string{" and"},
		},
		{
			// A JSON Schema may hold half a pair (a description cut at a
			// UTF-16 boundary): its front-end reads it, the text check
			// does not.
			name:    "lone surrogates inside a JSON Schema",
			request: `{"type":"json_schema","json_schema":{"type":"string","description":"cut \ud83d","maxLength":3}}`,
			accept:  []string{`"ab"`},
			reject:  []string{`"abcd"`},
		},
		{
			name:    "any_text excludes every end string of its tag",
			request: `{"type":"tag","begin":"<a>","content":{"type":"any_text"},"end":["</a>","</b>"]}`,
			accept:  []string{"<a>x</a>", "<a>x</b>", "<a></a>", "<a>x</a</a>"},
			reject:  []string{"<a>x</b></a>", "<a>x</a>y</a>", "<a>x"},
		},
		{
			name:    "the rest of a thinking block, then an answer",
			request: `{"type":"sequence","elements":[{"type":"tag","begin":"","content":{"type":"any_text"},"end":"</think>"},{"type":"const_string","value":"A"}]}`,
			accept:  []string{"plan</think>A", "</think>A"},
			reject:  []string{"plan</think>x</think>A", "planA"},
		},
		{
			name:    "triggered_tags inside a tag stops at the tag's end",
			request: `{"type":"tag","begin":"<r>","content":{"type":"triggered_tags","triggers":["<f>"],"tags":[{"begin":"<f>","content":` + obj + `,"end":"</f>"}]},"end":"</r>"}`,
			accept:  []string{"<r>a<f>{}</f>b</r>", "<r></r>"},
			reject:  []string{"<r>a</r>b</r>", "<r><f>{}</r>"},
		},
		{
			name:    "dispatch inside a tag stops at the tag's end too (Q3)",
			request: `{"type":"tag","begin":"<r>","content":{"type":"dispatch","rules":[["<f>",` + obj + `]]},"end":"</r>"}`,
			accept:  []string{"<r>a<f>{} b</r>", "<r></r>"},
			reject:  []string{"<r>a</r>b</r>"},
		},
		{
			name:    "dispatch without loop stops after its first rule",
			request: `{"type":"dispatch","rules":[["<f>",{"type":"const_string","value":"1"}]],"loop":false}`,
			accept:  []string{"", "text", "text<f>1"},
			reject:  []string{"text<f>1 more", "<f>1<f>1", "<f>2"},
		},
		{
			name:    "tags_with_separator, at least one",
			request: `{"type":"tags_with_separator","tags":[{"begin":"<i>","content":{"type":"const_string","value":"x"},"end":"</i>"}],"separator":";","at_least_one":true}`,
			accept:  []string{"<i>x</i>", "<i>x</i>;<i>x</i>"},
			reject:  []string{"", "<i>x</i>;"},
		},
		{
			name:    "tags_with_separator, stop after first",
			request: `{"type":"tags_with_separator","tags":[{"begin":"<i>","content":{"type":"const_string","value":"x"},"end":"</i>"}],"separator":";","stop_after_first":true}`,
			accept:  []string{"", "<i>x</i>"},
			reject:  []string{"<i>x</i>;<i>x</i>"},
		},
		{
			name:    "untyped formats are inferred",
			request: `{"elements":[{"value":"a"},{"content":{"value":"b"}},{"min":2,"max":2,"content":{"value":"c"}}]}`,
			accept:  []string{"acc", "abcc"},
			reject:  []string{"ac", "abbcc"},
		},
		{
			name:    "an untyped object with excludes is any_text",
			request: `{"elements":[{"excludes":["!"]},{"value":"!"}]}`,
			accept:  []string{"hi!", "!"},
			reject:  []string{"hi!!"},
		},
		{
			name:    "a repeat max above 2^31-1 is unbounded",
			request: `{"type":"repeat","min":1,"max":99999999999,"content":{"type":"const_string","value":"a"}}`,
			accept:  []string{"a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
			reject:  []string{""},
		},
		{
			name:    "strict objects: declared properties only, at every level",
			request: `{"type":"json_schema","json_schema":{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"integer"}}}}}}`,
			accept:  []string{`{}`, `{"a": {"b": 1}}`, `{"a": {}}`},
			reject:  []string{`{"a": {"b": 1, "c": 2}}`, `{"z": 1}`},
		},
		{
			name:    "an object schema without properties is any object",
			request: `{"type":"json_schema","json_schema":{"type":"object","properties":{"a":{"type":"object"}}}}`,
			accept:  []string{`{"a": {"x": [1, {"y": null}]}}`},
			reject:  []string{`{"b": {}}`},
		},
		{
			name:    "additionalProperties given is kept",
			request: `{"type":"json_schema","json_schema":{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":{"type":"string"}}}`,
			accept:  []string{`{"a": 1, "z": "s"}`},
			reject:  []string{`{"a": 1, "z": 2}`},
		},
		{
			name:    "strict tuples",
			request: `{"type":"json_schema","json_schema":{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}]}}`,
			accept:  []string{`[1, "a"]`, `[1]`, `[]`},
			reject:  []string{`[1, "a", 2]`},
		},
		{
			name:    "a boolean schema",
			request: `{"type":"json_schema","json_schema":true}`,
			accept:  []string{`1`, `[true, {"a": "b"}]`, `"s"`},
			reject:  []string{`nope`},
		},
		{
			name:    "max_whitespace_cnt bounds each run of whitespace",
			request: `{"type":"json_schema","json_schema":{"type":"array"},"max_whitespace_cnt":2}`,
			accept:  []string{`[1,  2]`, "[\n1\t]"},
			reject:  []string{`[1,   2]`},
		},
		{
			name:    "Options.WhitespacePattern",
			request: `{"type":"json_schema","json_schema":{"type":"array"}}`,
			opts:    structtag.Options{WhitespacePattern: "( )?"},
			accept:  []string{`[1, 2]`, `[1,2]`},
			reject:  []string{"[1,\n2]", `[1,  2]`},
		},
		{
			name:    "qwen_xml_parameter is json_schema in style qwen_xml",
			request: `{"type":"tag","begin":"<function=f>","content":{"type":"qwen_xml_parameter","json_schema":{"type":"object","properties":{"a":{"type":"string"},"n":{"type":"integer"}},"required":["a","n"]}},"end":"</function>"}`,
			accept:  []string{"<function=f><parameter=a>x y</parameter><parameter=n>3</parameter></function>", "<function=f>\n<parameter=a>\nx\n</parameter>\n<parameter=n>\n3\n</parameter>\n</function>"},
			reject:  []string{`<function=f>{"a": "x", "n": 3}</function>`, "<function=f><parameter=a>x</parameter></function>", "<function=f><parameter=n>3</parameter><parameter=a>x</parameter></function>"},
		},
		{
			name:    "grammar and regex formats",
			request: `{"type":"sequence","elements":[{"type":"grammar","grammar":"root ::= \"a\" x\nx ::= [0-9]+"},{"type":"regex","pattern":"-[a-z]{2}"}]}`,
			accept:  []string{"a12-xy"},
			reject:  []string{"a-xy", "a1-x"},
		},
		{
			name:    "any_tokens bounded by max_tokens is a repetition",
			request: `{"type":"tag","begin":"<",` + `"content":{"type":"const_string","value":"x"},"end":">"}`,
			accept:  []string{"<x>"},
			reject:  []string{"<>"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			accepts := recognizer(t, tc.request, tc.opts)
			for _, s := range tc.accept {
				assert.True(t, accepts(s), "accept %q", s)
			}
			for _, s := range tc.reject {
				assert.False(t, accepts(s), "reject %q", s)
			}
		})
	}
}

// steps builds a token sequence: "<|...|>" is that special token, anything
// else ordinary text.
func steps(parts ...string) []tokenStep {
	out := make([]tokenStep, len(parts))
	for i, p := range parts {
		if strings.HasPrefix(p, "<|") && strings.HasSuffix(p, "|>") {
			out[i].Token = &p
		} else {
			out[i].Text = &p
		}
	}
	return out
}

// TestTokenLanguages checks token-level formats and end detection against
// the test vocabulary (one token per byte, and the special tokens of the
// vectors).
func TestTokenLanguages(t *testing.T) {
	vocab, err := testVocab()
	require.NoError(t, err)
	enc, err := vocab.Encoder()
	require.NoError(t, err)
	cases := []struct {
		name    string
		request string
		accept  [][]tokenStep
		reject  [][]tokenStep
	}{
		{
			name:    "a tag that ends with a token hands no strings down",
			request: `{"type":"tag","begin":"<a>","content":{"type":"any_text","excludes":["</a>"]},"end":{"token":"<|eos|>"}}`,
			accept:  [][]tokenStep{steps("<a>x</a", "<|eos|>"), steps("<a>", "<|eos|>")},
			reject:  [][]tokenStep{steps("<a>x</a>", "<|eos|>"), steps("<a>x")},
		},
		{
			name:    "free tokens stop at the tag's end token",
			request: `{"type":"tag","begin":{"token":"<|think_start|>"},"content":{"type":"exclude_token","exclude_tokens":["<|tool|>"]},"end":{"token":"<|think_end|>"}}`,
			accept:  [][]tokenStep{steps("<|think_start|>", "x", "<|think_end|>"), steps("<|think_start|>", "<|eos|>", "<|think_end|>")},
			reject:  [][]tokenStep{steps("<|think_start|>", "<|think_end|>", "<|think_end|>"), steps("<|think_start|>", "<|tool|>", "<|think_end|>"), steps("<|think_start|>", "xy", "<|think_end|>")},
		},
		{
			name:    "a tag with string ends hands no token down",
			request: `{"type":"tag","begin":"<a>","content":{"type":"any_tokens"},"end":"</a>"}`,
			accept:  [][]tokenStep{steps("<a>", "<|eos|>", "</a>"), steps("<a>x</a>")},
		},
		{
			name:    "special-token text in a literal matches the token",
			request: `{"type":"tag","begin":"<|tool|>","content":{"type":"const_string","value":"x"},"end":"<|eos|>"}`,
			accept:  [][]tokenStep{steps("<|tool|>", "x", "<|eos|>")},
			reject:  [][]tokenStep{steps("<|tool|>", "y", "<|eos|>")},
		},
		{
			name:    "token_dispatch without loop",
			request: `{"type":"token_dispatch","rules":[["<|tool|>",{"type":"const_string","value":"x"}]],"loop":false}`,
			accept:  [][]tokenStep{steps(), steps("ab", "<|tool|>", "x")},
			reject:  [][]tokenStep{steps("<|tool|>", "x", "a"), steps("<|tool|>", "x", "<|tool|>", "x")},
		},
		{
			name:    "token_triggered_tags, stop after first",
			request: `{"type":"token_triggered_tags","trigger_tokens":["<|tool_call_start|>"],"tags":[{"begin":{"token":"<|tool_call_start|>"},"content":{"type":"const_string","value":"x"},"end":{"token":"<|tool_call_end|>"}}],"stop_after_first":true}`,
			accept:  [][]tokenStep{steps("hi"), steps("hi", "<|tool_call_start|>", "x", "<|tool_call_end|>")},
			reject:  [][]tokenStep{steps("<|tool_call_start|>", "x", "<|tool_call_end|>", "a")},
		},
		{
			name:    "token_triggered_tags, exactly one",
			request: `{"type":"token_triggered_tags","trigger_tokens":["<|tool_call_start|>"],"tags":[{"begin":{"token":"<|tool_call_start|>"},"content":{"type":"const_string","value":"x"},"end":{"token":"<|tool_call_end|>"}}],"stop_after_first":true,"at_least_one":true}`,
			accept:  [][]tokenStep{steps("<|tool_call_start|>", "x", "<|tool_call_end|>")},
			reject:  [][]tokenStep{steps(), steps("a", "<|tool_call_start|>", "x", "<|tool_call_end|>")},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := structtag.Compile([]byte(tc.request), structtag.Options{TokenID: vocab.TokenID})
			require.NoError(t, err)
			c, err := mask.Compile(g, vocab, mask.Options{})
			require.NoError(t, err)
			for _, seq := range tc.accept {
				assert.True(t, runTokens(c, ids(t, vocab, enc, seq)), "accept %v", seq)
			}
			for _, seq := range tc.reject {
				assert.False(t, runTokens(c, ids(t, vocab, enc, seq)), "reject %v", seq)
			}
		})
	}
}

// nested returns a request whose formats nest depth levels deep.
func nested(depth int) string {
	return strings.Repeat(`{"type":"optional","content":`, depth-1) + `{"type":"const_string","value":"x"}` + strings.Repeat("}", depth-1)
}

// TestErrors checks that each bad request is refused with the JSON pointer
// of the culprit, the reason, and the sentinel it wraps.
func TestErrors(t *testing.T) {
	schemaTag := func(f string) string { return `{"type":"structural_tag","format":` + f + `}` }
	cases := []struct {
		name    string
		request string
		opts    structtag.Options
		pointer string
		msg     string
		is      error
	}{
		{name: "not JSON", request: "{\n  \"type\": }", msg: "invalid JSON"},
		{name: "lone high surrogate", request: schemaTag(`{"type":"const_string","value":"a\ud800b"}`), pointer: "/format/value", msg: `\ud800 escapes half of a UTF-16 surrogate pair`},
		{name: "lone low surrogate", request: schemaTag(`{"type":"const_string","value":"\\\uDC00"}`), pointer: "/format/value", msg: `\uDC00 escapes half`},
		{name: "high surrogate at the end", request: schemaTag(`{"type":"const_string","value":"\ud83d"}`), pointer: "/format/value", msg: `\ud83d escapes half`},
		{name: "lone surrogate in a trigger", request: schemaTag(`{"type":"triggered_tags","triggers":["<a","<\udfff"],"tags":[{"begin":"<a>","content":{"value":""},"end":"b"}]}`), pointer: "/format/triggers/1", msg: `\udfff escapes half`},
		{name: "lone surrogate in a key", request: schemaTag(`{"type":"const_string","value":"a","\udfff":1}`), pointer: "/format/\ufffd", msg: `unknown field`},
		{name: "trailing data", request: `{"value":"a"} {}`, msg: "after the JSON value"},
		{name: "not an object", request: `[1]`, pointer: "#", msg: "not an object"},
		{name: "unknown wrapper field", request: `{"type":"structural_tag","format":{"value":"a"},"triggers":[]}`, pointer: "/triggers", msg: "unknown field"},
		{name: "unknown format field", request: schemaTag(`{"type":"const_string","value":"a","values":[]}`), pointer: "/format/values", msg: "unknown field"},
		{name: "field given twice", request: schemaTag(`{"type":"const_string","value":"a","value":"b"}`), pointer: "/format/value", msg: "twice"},
		{name: "missing field", request: schemaTag(`{"type":"tag","begin":"a","content":{"value":""}}`), pointer: "/format", msg: `"end"`},
		{name: "type not a string", request: schemaTag(`{"type":1}`), pointer: "/format/type", msg: "string"},
		{name: "cannot infer", request: schemaTag(`{"foo":1}`), pointer: "/format", msg: "cannot infer"},
		{name: "format not an object", request: schemaTag(`{"type":"sequence","elements":[{"value":"a"},"b"]}`), pointer: "/format/elements/1", msg: "must be an object"},
		{name: "value not a string", request: schemaTag(`{"type":"const_string","value":3}`), pointer: "/format/value", msg: "string"},
		{name: "bool not a bool", request: schemaTag(`{"type":"dispatch","rules":[["a",{"value":""}]],"loop":"yes"}`), pointer: "/format/loop", msg: "true or false"},
		{name: "deep error pointer", request: schemaTag(`{"type":"sequence","elements":[{"value":"a"},{"value":"b"},{"type":"tag","begin":"<a>","content":{"type":"any_text"},"end":""}]}`), pointer: "/format/elements/2/end", msg: "non-empty"},
		{name: "nested too deep", request: nested(structtag.MaxDepth + 1), pointer: strings.Repeat("/content", structtag.MaxDepth), msg: "nested deeper than 100"},
		{name: "tag list holds a non-tag", request: schemaTag(`{"type":"triggered_tags","triggers":["<"],"tags":[{"type":"const_string","value":"<a>"}]}`), pointer: "/format/tags/0/type", msg: "holds tags"},
		{name: "begin list", request: schemaTag(`{"type":"tag","begin":["a"],"content":{"value":""},"end":"b"}`), pointer: "/format/begin", msg: "begin"},
		{name: "token begin of the wrong type", request: schemaTag(`{"type":"tag","begin":{"type":"const_string","token":1},"content":{"value":""},"end":"b"}`), pointer: "/format/begin/type", msg: "token"},
		{name: "dispatch pattern not a string", request: schemaTag(`{"type":"dispatch","rules":[[1,{"value":""}]]}`), pointer: "/format/rules/0/0", msg: "pattern"},
		{name: "token_triggered_tags begin string", request: schemaTag(`{"type":"token_triggered_tags","trigger_tokens":[1],"tags":[{"begin":"a","content":{"value":""},"end":"b"}]}`), pointer: "/format/tags/0/begin", msg: "begin with a token"},
		{name: "token_triggered_tags no trigger", request: schemaTag(`{"type":"token_triggered_tags","trigger_tokens":[1],"tags":[{"begin":{"token":2},"content":{"value":""},"end":"b"}]}`), pointer: "/format/tags/0/begin", msg: "not one of the trigger tokens"},
		{name: "token_triggered_tags trigger twice", request: schemaTag(`{"type":"token_triggered_tags","trigger_tokens":[2,1,2],"tags":[{"begin":{"token":2},"content":{"value":""},"end":"b"}]}`), pointer: "/format/tags/0/begin", msg: "several times"},
		{name: "token id against text without vocabulary", request: schemaTag(`{"type":"token_triggered_tags","trigger_tokens":[1],"tags":[{"begin":{"token":"<|t|>"},"content":{"value":""},"end":"b"}]}`), pointer: "/format/tags/0/begin", msg: "TokenID"},
		{name: "token of the wrong kind", request: schemaTag(`{"type":"exclude_token","exclude_tokens":[true]}`), pointer: "/format/exclude_tokens/0", msg: "token"},
		{name: "repeat max below -1", request: schemaTag(`{"type":"repeat","min":0,"max":-2,"content":{"value":"a"}}`), pointer: "/format/max", msg: "-1"},
		// Integers past int64 are quoted as written, not as clamped.
		{name: "repeat max far below -1", request: schemaTag(`{"type":"repeat","min":0,"max":-99999999999999999999,"content":{"value":"a"}}`), pointer: "/format/max", msg: "not -99999999999999999999"},
		{name: "repeat min far below 0", request: schemaTag(`{"type":"repeat","min":-99999999999999999999,"max":1,"content":{"value":"a"}}`), pointer: "/format/min", msg: "not -99999999999999999999"},
		{name: "max_tokens far below 0", request: schemaTag(`{"type":"any_tokens","max_tokens":-99999999999999999999}`), pointer: "/format/max_tokens", msg: "not -99999999999999999999"},
		{name: "token id far below 0", request: schemaTag(`{"type":"exclude_token","exclude_tokens":[-99999999999999999999]}`), pointer: "/format/exclude_tokens/0", msg: "not -99999999999999999999"},
		{name: "repeat above Limits.Repeat", request: schemaTag(`{"type":"repeat","min":0,"max":50,"content":{"value":"a"}}`), opts: structtag.Options{Limits: grammar.Limits{Repeat: 10}}, pointer: "/format", msg: "Limits.Repeat", is: grammar.ErrLimit},
		{name: "any_tokens above Limits.Repeat", request: schemaTag(`{"type":"any_tokens","max_tokens":50}`), opts: structtag.Options{Limits: grammar.Limits{Repeat: 10}}, pointer: "/format/max_tokens", msg: "Limits.Repeat", is: grammar.ErrLimit},
		{name: "any_text max_chars", request: schemaTag(`{"type":"any_text","max_chars":16}`), pointer: "/format/max_chars", msg: "max_chars", is: grammar.ErrUnsupported},
		{name: "json_schema excludes", request: schemaTag(`{"type":"json_schema","json_schema":{},"excludes":["x"]}`), pointer: "/format/excludes", msg: "excludes", is: grammar.ErrUnsupported},
		{name: "newer style", request: schemaTag(`{"type":"json_schema","json_schema":{},"style":"gemma"}`), pointer: "/format/style", msg: "gemma", is: grammar.ErrUnsupported},
		{name: "schema not an object", request: schemaTag(`{"type":"json_schema","json_schema":"x"}`), pointer: "/format/json_schema", msg: "object or a boolean"},
		{name: "schema error under the format's pointer", request: schemaTag(`{"type":"json_schema","json_schema":{"type":"object","properties":{"a":{"type":"string","pattern":"(?<=a)b"}}}}`), pointer: "/format/json_schema/properties/a/pattern", msg: "jsonschema", is: grammar.ErrUnsupported},
		{name: "EBNF error", request: schemaTag(`{"type":"grammar","grammar":"root ::= undefined"}`), pointer: "/format/grammar", msg: "ebnf:1:10: undefined rule"},
		{name: "regex error", request: schemaTag(`{"type":"regex","pattern":"a("}`), pointer: "/format/pattern", msg: "regex"},
		{name: "request too large", request: schemaTag(`{"type":"const_string","value":"` + strings.Repeat("a", 100) + `"}`), opts: structtag.Options{Limits: grammar.Limits{SchemaBytes: 64}}, pointer: "#", msg: "Limits.SchemaBytes", is: grammar.ErrLimit},
		{name: "too many values", request: schemaTag(`{"type":"exclude_token","exclude_tokens":[1,2,3,4,5,6,7,8]}`), opts: structtag.Options{Limits: grammar.Limits{SchemaNodes: 8}}, pointer: "#", msg: "Limits.SchemaNodes", is: grammar.ErrLimit},
		{name: "too many rules", request: schemaTag(`{"type":"sequence","elements":[{"type":"plus","content":{"value":"a"}},{"type":"plus","content":{"value":"a"}},{"type":"plus","content":{"value":"a"}}]}`), opts: structtag.Options{Limits: grammar.Limits{Rules: 3}}, pointer: "#", msg: "Limits.Rules", is: grammar.ErrLimit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := structtag.Compile([]byte(tc.request), tc.opts)
			require.Error(t, err)
			var ge *grammar.Error
			require.True(t, errors.As(err, &ge), "%T: %v", err, err)
			assert.Equal(t, "structtag", ge.Source)
			assert.Equal(t, tc.pointer, ge.Pointer)
			assert.Contains(t, err.Error(), tc.msg)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
		})
	}
}

// TestSyntaxErrorPosition checks that JSON that does not parse is placed by
// line and column.
func TestSyntaxErrorPosition(t *testing.T) {
	_, err := structtag.Compile([]byte("{\n  \"type\": }"), structtag.Options{})
	var ge *grammar.Error
	require.True(t, errors.As(err, &ge))
	assert.Equal(t, 2, ge.Pos.Line)
}

// TestDepth checks the nesting bound, and that a JSON value far deeper
// than any bound costs no stack.
func TestDepth(t *testing.T) {
	_, err := structtag.Compile([]byte(nested(structtag.MaxDepth)), structtag.Options{})
	require.NoError(t, err)
	deep := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	_, err = structtag.Compile([]byte(`{"type":"const_string","value":`+deep+`}`), structtag.Options{})
	require.Error(t, err)
}

// TestTokens checks how token formats name their tokens: by text for
// package mask to resolve, or by id through Options.TokenID.
func TestTokens(t *testing.T) {
	request := []byte(`{"type":"sequence","elements":[{"type":"token","token":"<|t|>"},{"type":"exclude_token","exclude_tokens":[7,"<|u|>"]}]}`)
	g, err := structtag.Compile(request, structtag.Options{})
	require.NoError(t, err)
	text := g.String()
	assert.Contains(t, text, "<|t|>")
	assert.Contains(t, text, `<[^7,"<|u|>"]>`)

	ids := map[string]int{"<|t|>": 100, "<|u|>": 101}
	g, err = structtag.Compile(request, structtag.Options{TokenID: func(s string) (int, bool) { id, ok := ids[s]; return id, ok }})
	require.NoError(t, err)
	text = g.String()
	assert.Contains(t, text, "<[100]>")
	assert.Contains(t, text, "<[^7,101]>")
}

// TestSpecialTokenLiterals checks that every string of the request becomes
// a literal that may match special tokens (grammar.LitTokens).
func TestSpecialTokenLiterals(t *testing.T) {
	request := `{"type":"sequence","elements":[
		{"type":"const_string","value":"<|c|>"},
		{"type":"tag","begin":"<|b|>","content":{"type":"const_string","value":""},"end":["<|e|>","<|f|>"]},
		{"type":"tags_with_separator","tags":[{"begin":"<|b|>","content":{"value":"x"},"end":"<|e|>"}],"separator":"<|s|>"},
		{"type":"dispatch","rules":[["<|d|>",{"value":"y"}]]},
		{"type":"triggered_tags","triggers":["<|t"],"tags":[{"begin":"<|tb|>","content":{"value":"z"},"end":"<|te|>"}]}]}`
	g, err := structtag.Compile([]byte(request), structtag.Options{})
	require.NoError(t, err)
	found := map[string]bool{}
	var stack []*grammar.Expr
	for _, r := range g.Rules {
		stack = append(stack, r.Body)
	}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e.Op == grammar.OpBytes {
			assert.True(t, e.Special, "literal %q", e.Bytes)
			found[string(e.Bytes)] = true
		}
		stack = append(stack, e.Subs...)
	}
	for _, s := range []string{"<|c|>", "<|b|>", "<|e|>", "<|f|>", "<|s|>", "<|d|>", "<|tb|>", "<|te|>"} {
		assert.True(t, found[s], "literal %q", s)
	}
}

// TestKnownFields checks Q1 from the other side: every field XGrammar's
// newest parser knows is accepted, at its default or null.
func TestKnownFields(t *testing.T) {
	for _, request := range []string{
		`{"type":"json_schema","json_schema":{},"style":"json","any_order":false,"max_whitespace_cnt":null,"excludes":[]}`,
		`{"type":"qwen_xml_parameter","json_schema":{"type":"object"},"any_order":false,"max_whitespace_cnt":4,"excludes":[]}`,
		`{"type":"any_text","excludes":[],"max_tokens":null,"max_chars":null}`,
		`{"type":"triggered_tags","triggers":["<"],"tags":[{"type":"tag","begin":"<a>","content":{"type":"const_string","value":""},"end":"</a>"}],"at_least_one":false,"stop_after_first":false,"excludes":[]}`,
		`{"type":"tags_with_separator","tags":[{"begin":"<a>","content":{"value":""},"end":"</a>"}],"separator":"","at_least_one":false,"stop_after_first":false}`,
		`{"type":"dispatch","rules":[["<a>",{"value":""}]],"loop":true,"excludes":[]}`,
		`{"type":"exclude_token","exclude_tokens":[]}`,
		`{"type":"any_tokens","exclude_tokens":[],"max_tokens":null}`,
		`{"type":"token_triggered_tags","trigger_tokens":[5],"tags":[{"begin":{"token":5},"content":{"value":""},"end":{"type":"token","token":6}}],"exclude_tokens":[],"at_least_one":false,"stop_after_first":false}`,
		`{"type":"token_dispatch","rules":[[5,{"value":""}]],"loop":true,"exclude_tokens":[]}`,
		`{"type":"structural_tag","format":{"type":"any_text"}}`,
		`{"format":{"type":"any_text"}}`,
	} {
		_, err := structtag.Compile([]byte(request), structtag.Options{})
		assert.NoError(t, err, request)
	}
}

// TestCancel checks that a cancelled compilation says why.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := structtag.CompileContext(ctx, []byte(`{"type":"const_string","value":"a"}`), structtag.Options{})
	assert.ErrorIs(t, err, context.Canceled)
}

// TestIdenticalSchemasCompileOnce: a JSON Schema written again with the
// same options is compiled and embedded once, its rule called from each
// place, and the language is the same; another style or any_order is
// another grammar.
func TestIdenticalSchemasCompileOnce(t *testing.T) {
	const schema = `{"type":"object","properties":{"d":{"type":"string","format":"date-time","maxLength":40}},"required":["d"]}`
	var tags []string
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		tags = append(tags, `{"begin":"<`+name+`>","content":{"type":"json_schema","json_schema":`+schema+`},"end":"</`+name+`>"}`)
	}
	tags = append(tags, `{"begin":"<any>","content":{"type":"json_schema","json_schema":`+schema+`,"any_order":true},"end":"</any>"}`)
	req := `{"type":"triggered_tags","triggers":["<"],"tags":[` + strings.Join(tags, ",") + `]}`
	g, err := structtag.Compile([]byte(req), structtag.Options{})
	require.NoError(t, err)
	bases := map[string]bool{}
	for _, r := range g.Rules {
		if rest, ok := strings.CutPrefix(r.Name, "schema_"); ok {
			base, _, _ := strings.Cut(rest, "_")
			bases[base] = true
		}
	}
	assert.Len(t, bases, 2, "six tags of one schema and one of any_order: two embedded grammars")
	p, err := pda.Compile(g, grammar.Limits{})
	require.NoError(t, err)
	doc := `{"d": "2024-01-02T03:04:05Z"}`
	for _, text := range []string{"x<a>" + doc + "</a>", "<f>" + doc + "</f><c>" + doc + "</c>", "<any>" + doc + "</any>"} {
		assert.True(t, runBytes(p, text), text)
	}
	for _, text := range []string{"<a>" + doc + "</b>", "<a>{}</a>"} {
		assert.False(t, runBytes(p, text), text)
	}
}

// TestGrammarFormatDialects: a grammar XGrammar's EBNF refuses is read as
// GBNF, unless the refusal is for what rein cannot enforce; one both
// refuse gets both errors; and wherever the context ends, in either
// reading, the result is the one without its end or an error wrapping
// context.Canceled.
func TestGrammarFormatDialects(t *testing.T) {
	gbnfOnly := `{"type":"grammar","grammar":"root ::= \"a\" . ws\nws ::= | \" \""}`
	neither := `{"type":"grammar","grammar":"root ::= \"a\" ("}`
	unsupported := `{"type":"grammar","grammar":"root ::= Regex(\"(?<=x)a\")\nRegex ::= \"b\""}`
	_, err := structtag.Compile([]byte(neither), structtag.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ebnf:")
	assert.Contains(t, err.Error(), "nor is it rein's GBNF: gbnf:")
	_, err = structtag.Compile([]byte(unsupported), structtag.Options{})
	assert.ErrorIs(t, err, grammar.ErrUnsupported, "read as GBNF after all")
	// EBNF refuses GBNF's token set as malformed; GBNF reads it, past a
	// limit: the limit's error stands.
	_, err = structtag.Compile([]byte(`{"type":"grammar","grammar":"root ::= <[1,2,3,4,5,6,7,8,9,10,11,12]>"}`), structtag.Options{Limits: grammar.Limits{Enum: 8}})
	assert.ErrorIs(t, err, grammar.ErrLimit)
	for _, req := range []string{gbnfOnly, neither} {
		full := ctxtest.NewCountdown(1 << 40)
		_, want := structtag.CompileContext(full, []byte(req), structtag.Options{})
		for k := int64(1); k <= full.Calls(); k++ {
			_, err := structtag.CompileContext(ctxtest.NewCountdown(k), []byte(req), structtag.Options{})
			if errors.Is(err, context.Canceled) {
				continue
			}
			if want == nil {
				assert.NoError(t, err, "%s: context ended at look %d", req, k)
			} else {
				assert.EqualError(t, err, want.Error(), "%s: context ended at look %d", req, k)
			}
		}
	}
}
