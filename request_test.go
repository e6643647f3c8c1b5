package rein_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/tokenizer/gpt2"
	"github.com/reinlm/rein/toolcall"
)

const weather = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`

// TestParseRequest reads each parameter shape into its spec.
func TestParseRequest(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		opts   rein.RequestOptions
		ok     bool
		kind   rein.Kind
		source string // "" when not checked
		lenient,
		compact bool
	}{
		{name: "no format", body: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`},
		{name: "text", body: `{"response_format":{"type":"text"}}`},
		{name: "null format", body: `{"response_format":null,"structured_outputs":null}`},
		{name: "json_object", body: `{"response_format":{"type":"json_object"}}`, ok: true, kind: rein.KindJSONSchema, source: `{"type":"object"}`},
		{name: "json_schema strict", body: `{"response_format":{"type":"json_schema","json_schema":{"name":"w","strict":true,"schema":` + weather + `}}}`,
			ok: true, kind: rein.KindJSONSchema, source: weather},
		{name: "json_schema not strict", body: `{"response_format":{"type":"json_schema","json_schema":{"name":"w","schema":` + weather + `}}}`,
			ok: true, kind: rein.KindJSONSchema, source: weather, lenient: true},
		{name: "responses api", body: `{"text":{"format":{"type":"json_schema","name":"w","strict":true,"schema":` + weather + `}}}`,
			ok: true, kind: rein.KindJSONSchema, source: weather},
		{name: "responses api text", body: `{"text":{"format":{"type":"text"}}}`},
		{name: "structural tag", body: `{"response_format":{"type":"structural_tag","format":{"type":"const_string","value":"hi"}}}`,
			ok: true, kind: rein.KindStructuralTag, source: `{"type":"structural_tag","format":{"type":"const_string","value":"hi"}}`},
		{name: "vllm json", body: `{"structured_outputs":{"json":` + weather + `}}`, ok: true, kind: rein.KindJSONSchema, source: weather},
		{name: "vllm json as string", body: `{"structured_outputs":{"json":"{\"type\":\"integer\"}"}}`, ok: true, kind: rein.KindJSONSchema, source: `{"type":"integer"}`},
		{name: "vllm compact", body: `{"structured_outputs":{"json":` + weather + `,"disable_any_whitespace":true}}`,
			ok: true, kind: rein.KindJSONSchema, source: weather, compact: true},
		{name: "vllm closed objects", body: `{"structured_outputs":{"json":` + weather + `,"disable_additional_properties":true}}`,
			ok: true, kind: rein.KindJSONSchema, source: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"unevaluatedProperties":false}`},
		{name: "vllm regex", body: `{"structured_outputs":{"regex":"[0-9]+"}}`, ok: true, kind: rein.KindRegex, source: `[0-9]+`},
		{name: "vllm choice", body: `{"structured_outputs":{"choice":["yes","no"]}}`, ok: true, kind: rein.KindChoice},
		{name: "vllm grammar", body: `{"structured_outputs":{"grammar":"root ::= \"a\"+"}}`, ok: true, kind: rein.KindEBNF, source: `root ::= "a"+`},
		{name: "vllm json_object", body: `{"structured_outputs":{"json_object":true}}`, ok: true, kind: rein.KindJSONSchema, source: `{"type":"object"}`},
		{name: "vllm json_object false beside regex", body: `{"structured_outputs":{"json_object":false,"regex":"a"}}`, ok: true, kind: rein.KindRegex, source: "a"},
		{name: "vllm structural tag string", body: `{"structured_outputs":{"structural_tag":"{\"type\":\"structural_tag\",\"format\":{\"type\":\"const_string\",\"value\":\"x\"}}"}}`,
			ok: true, kind: rein.KindStructuralTag, source: `{"type":"structural_tag","format":{"type":"const_string","value":"x"}}`},
		{name: "guided json", body: `{"guided_json":` + weather + `}`, ok: true, kind: rein.KindJSONSchema, source: weather},
		{name: "guided regex", body: `{"guided_regex":"a|b"}`, ok: true, kind: rein.KindRegex, source: "a|b"},
		{name: "guided whitespace", body: `{"guided_json":{"type":"array"},"guided_whitespace_pattern":" ?"}`, ok: true, kind: rein.KindJSONSchema, source: `{"type":"array"}`},
		{name: "tools ignored without a format", body: `{"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"auto"}`},
		{name: "tools", body: `{"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],"tool_choice":"required","parallel_tool_calls":false}`,
			opts: rein.RequestOptions{ToolFormat: toolcall.Qwen3}, ok: true, kind: rein.KindToolCalls},
		{name: "tools none", body: `{"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"none","response_format":{"type":"json_object"}}`,
			opts: rein.RequestOptions{ToolFormat: toolcall.Qwen3}, ok: true, kind: rein.KindJSONSchema},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, ok, err := rein.ParseRequest([]byte(tt.body), tt.opts)
			require.NoError(t, err)
			require.Equal(t, tt.ok, ok)
			if !ok {
				return
			}
			assert.Equal(t, tt.kind, spec.Kind)
			if tt.source != "" {
				assert.Equal(t, tt.source, spec.Source)
			}
			assert.Equal(t, tt.lenient, spec.Schema.Lenient)
			assert.Equal(t, tt.compact, spec.Schema.Whitespace == jsonschema.WhitespaceCompact)
		})
	}
}

// TestParseRequestDetails checks the fields a spec carries besides its
// kind and source.
func TestParseRequestDetails(t *testing.T) {
	spec, _, err := rein.ParseRequest([]byte(`{"structured_outputs":{"choice":["yes","no"]}}`), rein.RequestOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"yes", "no"}, spec.Choices)

	spec, _, err = rein.ParseRequest([]byte(`{"guided_json":{"type":"array"},"guided_whitespace_pattern":" ?"}`), rein.RequestOptions{})
	require.NoError(t, err)
	assert.Equal(t, jsonschema.WhitespacePattern, spec.Schema.Whitespace)
	assert.Equal(t, " ?", spec.Schema.WhitespacePattern)

	spec, _, err = rein.ParseRequest([]byte(`{"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"function","function":{"name":"f"}},"parallel_tool_calls":false}`),
		rein.RequestOptions{ToolFormat: toolcall.Hermes, Reasoning: true})
	require.NoError(t, err)
	r := spec.ToolCalls
	assert.Equal(t, toolcall.Hermes, r.Model)
	assert.Equal(t, toolcall.ChoiceFunction, r.ToolChoice.Mode)
	assert.Equal(t, "f", r.ToolChoice.Function)
	require.NotNil(t, r.ParallelToolCalls)
	assert.False(t, *r.ParallelToolCalls)
	assert.True(t, r.Reasoning)

	base := rein.RequestOptions{Schema: jsonschema.Options{Order: jsonschema.OrderAny, Whitespace: jsonschema.WhitespaceCompact}}
	spec, _, err = rein.ParseRequest([]byte(`{"response_format":{"type":"json_schema","json_schema":{"schema":{"type":"object"},"strict":true}}}`), base)
	require.NoError(t, err)
	assert.Equal(t, jsonschema.OrderAny, spec.Schema.Order, "the base options carry through")
	assert.Equal(t, jsonschema.WhitespaceCompact, spec.Schema.Whitespace)
}

// TestParseRequestErrors names the place and the reason of each malformed,
// contradictory or unsupported request.
func TestParseRequestErrors(t *testing.T) {
	tests := []struct {
		name, body  string
		opts        rein.RequestOptions
		pointer     string
		reason      string // a substring of the error's text
		unsupported bool
	}{
		{name: "not an object", body: `[1]`, reason: "must be a JSON object"},
		{name: "null", body: ` null`, reason: "must be a JSON object"},
		{name: "forced call without tools", body: `{"tool_choice":"required"}`, opts: rein.RequestOptions{ToolFormat: toolcall.Qwen3}, pointer: "/tool_choice", reason: "no tools"},
		{name: "not json", body: `{"response_format":`, reason: "must be a JSON object"},
		{name: "format not an object", body: `{"response_format":"json"}`, pointer: "/response_format", reason: "must be a JSON object"},
		{name: "type missing", body: `{"response_format":{}}`, pointer: "/response_format/type", reason: "missing"},
		{name: "type not a string", body: `{"response_format":{"type":1}}`, pointer: "/response_format/type", reason: "must be a string"},
		{name: "unknown type", body: `{"response_format":{"type":"yaml"}}`, pointer: "/response_format/type", reason: `"yaml"`, unsupported: true},
		{name: "json_schema missing", body: `{"response_format":{"type":"json_schema"}}`, pointer: "/response_format/json_schema", reason: "missing"},
		{name: "schema missing", body: `{"response_format":{"type":"json_schema","json_schema":{"name":"x"}}}`, pointer: "/response_format/json_schema/schema", reason: "missing"},
		{name: "schema not a schema", body: `{"response_format":{"type":"json_schema","json_schema":{"schema":[1]}}}`, pointer: "/response_format/json_schema/schema", reason: "object or a boolean"},
		{name: "strict not a bool", body: `{"response_format":{"type":"json_schema","json_schema":{"schema":{},"strict":"yes"}}}`, pointer: "/response_format/json_schema/strict", reason: "boolean"},
		{name: "two constraints", body: `{"response_format":{"type":"json_object"},"structured_outputs":{"regex":"a"}}`, pointer: "/structured_outputs", reason: "second constraint beside /response_format"},
		{name: "vllm none", body: `{"structured_outputs":{}}`, pointer: "/structured_outputs", reason: "exactly one"},
		{name: "vllm two", body: `{"structured_outputs":{"regex":"a","choice":["a"]}}`, pointer: "/structured_outputs/choice", reason: "second constraint beside regex"},
		{name: "vllm unknown field", body: `{"structured_outputs":{"regex":"a","backend":"xgrammar"}}`, pointer: "/structured_outputs/backend", reason: "unknown field"},
		{name: "vllm empty choice", body: `{"structured_outputs":{"choice":[]}}`, pointer: "/structured_outputs/choice", reason: "empty"},
		{name: "vllm choice not strings", body: `{"structured_outputs":{"choice":[1]}}`, pointer: "/structured_outputs/choice", reason: "list of strings"},
		{name: "vllm lark", body: `{"structured_outputs":{"grammar":"start: \"a\""}}`, pointer: "/structured_outputs/grammar", reason: "Lark", unsupported: true},
		{name: "vllm json string not json", body: `{"structured_outputs":{"json":"{"}}`, pointer: "/structured_outputs/json", reason: "does not hold JSON"},
		{name: "vllm whitespace for regex", body: `{"structured_outputs":{"regex":"a","whitespace_pattern":" "}}`, pointer: "/structured_outputs/whitespace_pattern", reason: "json and json_object only"},
		{name: "vllm whitespace contradiction", body: `{"structured_outputs":{"json":{},"whitespace_pattern":" ","disable_any_whitespace":true}}`, pointer: "/structured_outputs/whitespace_pattern", reason: "contradicts"},
		{name: "vllm closed for regex", body: `{"structured_outputs":{"regex":"a","disable_additional_properties":true}}`, pointer: "/structured_outputs/disable_additional_properties", reason: "json only"},
		{name: "guided two", body: `{"guided_json":{},"guided_regex":"a"}`, pointer: "/guided_regex", reason: "second constraint beside /guided_json"},
		{name: "guided bad choice", body: `{"guided_choice":"a"}`, pointer: "/guided_choice", reason: "list of strings"},
		{name: "guided whitespace alone", body: `{"guided_whitespace_pattern":" "}`, pointer: "/guided_whitespace_pattern", reason: "guided_json"},
		{name: "legacy tag without triggers", body: `{"response_format":{"type":"structural_tag","structures":[{"begin":"<a>","schema":{},"end":"</a>"}]}}`, pointer: "/response_format/triggers", reason: "missing"},
		{name: "legacy tag without end", body: `{"response_format":{"type":"structural_tag","structures":[{"begin":"<a>","schema":{}}],"triggers":["<a"]}}`, pointer: "/response_format/structures/0/end", reason: "missing"},
		{name: "forced call without format", body: `{"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"required"}`, pointer: "/tool_choice", reason: "ToolFormat", unsupported: true},
		{name: "bad tool", body: `{"tools":[{"type":"function","function":{"name":"a b"}}]}`, opts: rein.RequestOptions{ToolFormat: toolcall.Qwen3}, pointer: "/tools/0/function/name", reason: "only ASCII"},
		{name: "bad tool choice", body: `{"tools":[],"tool_choice":"sometimes"}`, opts: rein.RequestOptions{ToolFormat: toolcall.Qwen3}, pointer: "/tool_choice"},
		{name: "tools beside a format", body: `{"tools":[{"type":"function","function":{"name":"f"}}],"response_format":{"type":"json_object"}}`, opts: rein.RequestOptions{ToolFormat: toolcall.Qwen3}, pointer: "/tools", reason: "second constraint"},
		{name: "parallel not a bool", body: `{"tools":[{"type":"function","function":{"name":"f"}}],"parallel_tool_calls":1}`, opts: rein.RequestOptions{ToolFormat: toolcall.Qwen3}, pointer: "/parallel_tool_calls", reason: "boolean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := rein.ParseRequest([]byte(tt.body), tt.opts)
			require.Error(t, err)
			assert.ErrorIs(t, err, rein.ErrRequest)
			var re *rein.RequestError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, tt.pointer, re.Pointer)
			assert.Contains(t, err.Error(), tt.reason)
			assert.Equal(t, tt.unsupported, errors.Is(err, grammar.ErrUnsupported), "wraps grammar.ErrUnsupported")
		})
	}
	_, _, err := rein.ParseRequest([]byte(`{"x":"`+strings.Repeat("a", rein.MaxRequestBytes)+`"}`), rein.RequestOptions{})
	assert.ErrorIs(t, err, rein.ErrRequest, "a body over MaxRequestBytes is refused before it is parsed")
}

// TestParsedSpecsCompile compiles what each request shape asks for and
// checks the grammar holds the request's meaning.
func TestParsedSpecsCompile(t *testing.T) {
	vocab, err := gpt2.Vocab()
	require.NoError(t, err)
	c := newCompiler(t, vocab, rein.CompilerOptions{})
	tests := []struct {
		name, body string
		accept     []string
		refuse     []string
		warnings   int
	}{
		{name: "json_object", body: `{"response_format":{"type":"json_object"}}`, accept: []string{`{"a": [1]}`}, refuse: []string{`[1]`, `"s"`}},
		{name: "compact", body: `{"structured_outputs":{"json":` + weather + `,"disable_any_whitespace":true}}`,
			accept: []string{`{"city":"Paris"}`}, refuse: []string{`{ "city":"Paris"}`}},
		{name: "closed objects", body: `{"structured_outputs":{"json":` + weather + `,"disable_additional_properties":true}}`,
			accept: []string{`{"city": "Paris"}`}, refuse: []string{`{"city": "Paris", "x": 1}`}},
		{name: "open objects", body: `{"structured_outputs":{"json":` + weather + `}}`,
			accept: []string{`{"city": "Paris", "x": 1}`}},
		{name: "lenient when not strict", body: `{"response_format":{"type":"json_schema","json_schema":{"schema":{"type":"array","items":{"type":"object"},"uniqueItems":true}}}}`,
			accept: []string{`[{}, {}]`}, warnings: 1},
		{name: "choice", body: `{"guided_choice":["yes","no"]}`, accept: []string{"yes", "no"}, refuse: []string{"maybe", "yesno"}},
		{name: "ebnf grammar", body: `{"structured_outputs":{"grammar":"root ::= item (\",\" item)*\nitem ::= Regex(\"[a-z]+\")\n  | \"?\""}}`,
			accept: []string{"ab,c", "?", "x,?"}, refuse: []string{"ab,", "A"}},
		{name: "legacy structural tag", body: `{"response_format":{"type":"structural_tag","structures":[{"begin":"<f=a>","schema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]},"end":"</f>"}],"triggers":["<f="]}}`,
			accept: []string{`hi <f=a>{"n": 1}</f> bye`, `plain text`}, refuse: []string{`<f=a>{"n": "x"}</f>`, `<f=b>`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, ok, err := rein.ParseRequest([]byte(tt.body), rein.RequestOptions{})
			require.NoError(t, err)
			require.True(t, ok)
			h := c.CompileAsync(context.Background(), spec)
			compiled, err := h.Wait(context.Background())
			require.NoError(t, err)
			assert.Len(t, h.Warnings(), tt.warnings)
			for _, s := range tt.accept {
				m := compiled.NewMatcher()
				assert.True(t, m.AcceptText(s) == nil && m.CanEnd(), "accepts %q", s)
			}
			for _, s := range tt.refuse {
				m := compiled.NewMatcher()
				assert.False(t, m.AcceptText(s) == nil && m.CanEnd(), "refuses %q", s)
			}
		})
	}
	// The strict form of the same schema is refused, with the reason.
	spec, _, err := rein.ParseRequest([]byte(`{"response_format":{"type":"json_schema","json_schema":{"strict":true,"schema":{"type":"array","items":{"type":"object"},"uniqueItems":true}}}}`), rein.RequestOptions{})
	require.NoError(t, err)
	_, err = c.Compile(context.Background(), spec)
	assert.ErrorIs(t, err, grammar.ErrUnsupported)
}

// FuzzParseRequest: no body panics, and every error wraps ErrRequest.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{
		`{"response_format":{"type":"json_schema","json_schema":{"schema":{}}}}`,
		`{"structured_outputs":{"json":"{}","disable_additional_properties":true}}`,
		`{"guided_json":{},"guided_whitespace_pattern":" "}`,
		`{"response_format":{"type":"structural_tag","structures":[{"begin":"a","schema":{},"end":"b"}],"triggers":["a"]}}`,
		`{"text":{"format":{"type":"json_schema","schema":true}}}`,
		`{"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"required"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, opts := range []rein.RequestOptions{{}, {ToolFormat: toolcall.Qwen3}} {
			_, _, err := rein.ParseRequest([]byte(body), opts)
			if err != nil && !errors.Is(err, rein.ErrRequest) {
				t.Fatalf("%q: error %v does not wrap ErrRequest", body, err)
			}
		}
	})
}
