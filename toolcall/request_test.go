package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/structtag"
	"github.com/reinlm/rein/internal/ctxtest"
	"github.com/reinlm/rein/pda"
)

func TestParseTools(t *testing.T) {
	tools, err := ParseTools([]byte(`[
		{"type": "function", "function": {"name": "get_weather", "description": "Weather.",
			"parameters": {"type": "object", "properties": {"city": {"type": "string"}}}, "strict": true}},
		{"type": "function", "function": {"name": "ping", "parameters": null}},
		{"type": "function", "name": "flat.tool", "strict": false}
	]`))
	require.NoError(t, err)
	require.Len(t, tools, 3)
	assert.Equal(t, "get_weather", tools[0].Name)
	assert.Equal(t, "Weather.", tools[0].Description)
	assert.JSONEq(t, `{"type": "object", "properties": {"city": {"type": "string"}}}`, string(tools[0].Parameters))
	require.NotNil(t, tools[0].Strict)
	assert.True(t, *tools[0].Strict)
	assert.Nil(t, tools[1].Parameters)
	assert.Nil(t, tools[1].Strict)
	assert.Equal(t, "flat.tool", tools[2].Name)
	require.NotNil(t, tools[2].Strict)
	assert.False(t, *tools[2].Strict)
}

func TestParseToolsErrors(t *testing.T) {
	for _, tc := range []struct {
		in, pointer, reason string
	}{
		{`{}`, "", "JSON array"},
		{`[1]`, "/0", "object"},
		{`[{"type": "web_search"}]`, "/0/type", "function"},
		{`[{"function": {"name": "f"}}]`, "/0/type", "function"},
		{`[{"type": "function", "function": {}}]`, "/0/function/name", "missing"},
		{`[{"type": "function", "function": 3}]`, "/0/function", "object"},
		{`[{"type": "function", "function": {"name": ""}}]`, "/0/function/name", "empty"},
		{`[{"type": "function", "function": {"name": "a\"b"}}]`, "/0/function/name", "only ASCII"},
		{`[{"type": "function", "function": {"name": "` + strings.Repeat("a", 65) + `"}}]`, "/0/function/name", "more than 64"},
		{`[{"type": "function", "function": {"name": "f"}}, {"type": "function", "function": {"name": "g", "parameters": [1]}}]`,
			"/1/function/parameters", "JSON Schema object"},
		{`[{"type": "function", "function": {"name": "f", "strict": "yes"}}]`, "/0/function/strict", "must be true or false, not a string"},
		{`[{"type": "function", "function": {"name": 5}}]`, "/0/function/name", "must be a string, not a number"},
		{`[{"type": "function", "name": "f", "description": 7}]`, "/0/description", "must be a string, not a number"},
		{`[{"type": 1}]`, "/0/type", "must be a string, not a number"},
		{`[{"type": "function", "name": true}]`, "/0/name", "must be a string, not true or false"},
		{`[{"type": "function", "function": {"name": "f"}},` + "\n" + `]`, "", "line 2, column 1"},
		{`[{"type": "function", "function": {"name": "f", "parameters": {"a": }}}]`, "", "line 1, column 69"},
	} {
		_, err := ParseTools([]byte(tc.in))
		var e *Error
		if assert.ErrorAs(t, err, &e, tc.in) {
			assert.Equal(t, tc.pointer, e.Pointer, tc.in)
			assert.Contains(t, e.Reason, tc.reason, tc.in)
			assert.ErrorIs(t, err, ErrInvalid)
		}
	}
	many := "[" + strings.Repeat(`{"type": "function", "function": {"name": "f"}},`, MaxTools) + `{"type": "function", "function": {"name": "f"}}]`
	_, err := ParseTools([]byte(many))
	assert.ErrorContains(t, err, "more than 1024")
	_, err = ParseTools(make([]byte, MaxInputBytes+1))
	assert.ErrorContains(t, err, "bytes, more than")
}

func TestParseToolChoice(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ToolChoice
	}{
		{``, ToolChoice{}},
		{`null`, ToolChoice{}},
		{`"auto"`, ToolChoice{Mode: ChoiceAuto}},
		{`"none"`, ToolChoice{Mode: ChoiceNone}},
		{` "required" `, ToolChoice{Mode: ChoiceRequired}},
		{`{"type": "function", "function": {"name": "f"}}`, ToolChoice{Mode: ChoiceFunction, Function: "f"}},
		{`{"type": "function", "name": "f"}`, ToolChoice{Mode: ChoiceFunction, Function: "f"}},
		{`{"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": [
			{"type": "function", "function": {"name": "f"}}, {"type": "function", "name": "g"}]}}`,
			ToolChoice{Mode: ChoiceRequired, Allowed: []string{"f", "g"}}},
		{`{"type": "allowed_tools", "allowed_tools": {"tools": [{"type": "function", "function": {"name": "f"}}]}}`,
			ToolChoice{Mode: ChoiceAuto, Allowed: []string{"f"}}},
	} {
		got, err := ParseToolChoice([]byte(tc.in))
		if assert.NoError(t, err, tc.in) {
			assert.Equal(t, tc.want, got, tc.in)
		}
	}
}

func TestParseToolChoiceErrors(t *testing.T) {
	for _, tc := range []struct {
		in, pointer, reason string
	}{
		{`"always"`, "", "want"},
		{`3`, "", "string or an object"},
		{`{"type": 3}`, "/type", "must be a string, not a number"},
		{`{"type": "allowed_tools", "allowed_tools": {"mode": 1, "tools": []}}`, "/allowed_tools/mode", "must be a string, not a number"},
		{"{\n \"type\": }", "", "line 2, column 10"},
		{`{}`, "/type", "missing"},
		{`{"type": "tool"}`, "/type", "want"},
		{`{"type": "function"}`, "/name", "missing"},
		{`{"type": "function", "function": {"name": "a b"}}`, "/function/name", "only ASCII"},
		{`{"type": "allowed_tools"}`, "/allowed_tools", "missing"},
		{`{"type": "allowed_tools", "allowed_tools": {"mode": "none", "tools": []}}`, "/allowed_tools/mode", "want"},
		{`{"type": "allowed_tools", "allowed_tools": {"tools": []}}`, "/allowed_tools/tools", "at least one"},
		{`{"type": "allowed_tools", "allowed_tools": {"tools": [{"type": "function", "function": {}}]}}`,
			"/allowed_tools/tools/0/function/name", "missing"},
		{`{"type": "allowed_tools", "allowed_tools": {"tools": [{"type": "x", "name": "f"}]}}`,
			"/allowed_tools/tools/0/type", "function"},
	} {
		_, err := ParseToolChoice([]byte(tc.in))
		var e *Error
		if assert.ErrorAs(t, err, &e, tc.in) {
			assert.Equal(t, tc.pointer, e.Pointer, tc.in)
			assert.Contains(t, e.Reason, tc.reason, tc.in)
		}
	}
}

func TestStructuralTagErrors(t *testing.T) {
	f := Tool{Name: "f"}
	for _, tc := range []struct {
		name    string
		r       Request
		pointer string
		reason  string
	}{
		{"no model", Request{Tools: []Tool{f}}, "/model", "unknown format"},
		{"model out of range", Request{Model: CohereCommandA + 1}, "/model", "unknown format"},
		{"duplicate", Request{Model: Hermes, Tools: []Tool{f, f}}, "/tools/1/name", "also the name of tool 0"},
		{"bad name", Request{Model: Hermes, Tools: []Tool{{Name: "f<"}}}, "/tools/0/name", "only ASCII"},
		{"bad parameters", Request{Model: Hermes, Tools: []Tool{{Name: "f", Parameters: json.RawMessage(`"x"`)}}},
			"/tools/0/parameters", "JSON Schema object"},
		{"named unknown", Request{Model: Hermes, Tools: []Tool{f}, ToolChoice: ToolChoice{Mode: ChoiceFunction, Function: "g"}},
			"/tool_choice/function/name/0", `"g" is not one of`},
		{"named empty", Request{Model: Hermes, Tools: []Tool{f}, ToolChoice: ToolChoice{Mode: ChoiceFunction}},
			"/tool_choice/function/name", "missing"},
		{"allowed unknown", Request{Model: Hermes, Tools: []Tool{f}, ToolChoice: ToolChoice{Allowed: []string{"f", "g"}}},
			"/tool_choice/allowed_tools/tools/1", `"g" is not one of`},
		{"allowed empty", Request{Model: Hermes, Tools: []Tool{f}, ToolChoice: ToolChoice{Allowed: []string{}}},
			"/tool_choice/allowed_tools/tools", "at least one"},
		{"required without tools", Request{Model: Hermes, ToolChoice: ToolChoice{Mode: ChoiceRequired}},
			"/tool_choice", "no tools"},
		{"bad mode", Request{Model: Hermes, Tools: []Tool{f}, ToolChoice: ToolChoice{Mode: 9}}, "/tool_choice", "unknown mode"},
		// A field the mode does not read.
		{"function under auto", Request{Model: Hermes, Tools: []Tool{f}, ToolChoice: ToolChoice{Function: "f"}},
			"/tool_choice/function/name", "the mode is auto"},
		{"function under required", Request{Model: Hermes, Tools: []Tool{f}, ToolChoice: ToolChoice{Mode: ChoiceRequired, Function: "f"}},
			"/tool_choice/function/name", "the mode is required"},
		{"allowed under none", Request{Model: Hermes, Tools: []Tool{f}, ToolChoice: ToolChoice{Mode: ChoiceNone, Allowed: []string{"f"}}},
			"/tool_choice/allowed_tools", "the mode is none"},
		{"allowed under a function", Request{Model: Hermes, Tools: []Tool{f}, ToolChoice: ToolChoice{Mode: ChoiceFunction, Function: "f", Allowed: []string{"f"}}},
			"/tool_choice/allowed_tools", "the mode is function"},
		{"reasoning without a thinking format", Request{Model: Hermes, Reasoning: true}, "/reasoning", "Hermes has no thinking format"},
		{"too many tools", Request{Model: Hermes, Tools: make([]Tool, MaxTools+1)}, "/tools", "more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := StructuralTag(tc.r)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.pointer, e.Pointer)
			assert.Contains(t, e.Reason, tc.reason)
			assert.True(t, errors.Is(err, ErrInvalid))
		})
	}
}

// TestStructuralTagSchemaErrors: a parameters schema that package structtag
// would refuse is reported against the request, at the tool's parameters
// and the schema's own pointer, with the schema's reason; only the schemas
// the structural tag holds are checked, in the style of the family.
func TestStructuralTagSchemaErrors(t *testing.T) {
	no := false
	tool := func(name, params string) Tool { return Tool{Name: name, Parameters: json.RawMessage(params)} }
	bogus := tool("f", `{"type": "bogus"}`)
	ok := tool("g", `{"type": "object", "properties": {"a": {"type": "string"}}}`)
	for _, tc := range []struct {
		name        string
		r           Request
		pointer     string // "" when the request is fine
		reason      string
		unsupported bool
	}{
		{"unknown type", Request{Model: Hermes, Tools: []Tool{bogus}}, "/tools/0/parameters/type", `unknown type "bogus"`, false},
		{"second tool, nested", Request{Model: Qwen3, Tools: []Tool{ok, tool("h", `{"type": "object", "properties": {"a": {"minLength": "x"}}}`)}},
			"/tools/1/parameters/properties/a/minLength", "non-negative integer", false},
		{"unsupported keyword", Request{Model: MistralV11, Tools: []Tool{tool("f", `{"type": "object", "properties": {"l": {"type": "array", "items": {"type": "object", "properties": {"a": {}}}, "uniqueItems": true}}}`)}},
			"/tools/0/parameters/properties/l/uniqueItems", "cannot be enforced", true},
		{"unsupported keyword, no type", Request{Model: Hermes, Tools: []Tool{tool("f", `{"properties": {"l": {"type": "array", "items": {"type": "object", "properties": {"a": {}}}, "uniqueItems": true}}}`)}},
			"/tools/0/parameters/properties/l/uniqueItems", "cannot be enforced", true},
		{"xml style needs an object", Request{Model: Qwen3Coder, Tools: []Tool{tool("f", `{"type": "string"}`)}},
			"/tools/0/parameters", "qwen_xml document must be an object", false},
		{"arguments are an object", Request{Model: Hermes, Tools: []Tool{tool("f", `{"type": "string"}`)}}, "/tools/0/parameters/type", `are a JSON object, and type "string" allows none`, false},
		{"arguments are an object, a list", Request{Model: Hermes, Tools: []Tool{tool("f", `{"type": ["string", "null"]}`)}}, "/tools/0/parameters/type", "allows none", false},
		{"an object among others", Request{Model: Hermes, Tools: []Tool{tool("f", `{"type": ["string", "object"]}`)}}, "", "", false},
		{"not strict: the schema is not used", Request{Model: Hermes, Tools: []Tool{{Name: "f", Parameters: bogus.Parameters, Strict: &no}}}, "", "", false},
		{"not strict, xml: the schema holds", Request{Model: GLM47, Tools: []Tool{{Name: "f", Parameters: bogus.Parameters, Strict: &no}}},
			"/tools/0/parameters/type", `unknown type "bogus"`, false},
		{"the named tool", Request{Model: Hermes, Tools: []Tool{ok, bogus}, ToolChoice: ToolChoice{Mode: ChoiceFunction, Function: "f"}},
			"/tools/1/parameters/type", `unknown type "bogus"`, false},
		{"an allowed tool", Request{Model: Hermes, Tools: []Tool{ok, bogus}, ToolChoice: ToolChoice{Allowed: []string{"f"}}},
			"/tools/1/parameters/type", `unknown type "bogus"`, false},
		{"a tool the choice leaves out", Request{Model: Hermes, Tools: []Tool{bogus, ok}, ToolChoice: ToolChoice{Mode: ChoiceFunction, Function: "g"}}, "", "", false},
		{"tool_choice none", Request{Model: Hermes, Tools: []Tool{bogus}, ToolChoice: ToolChoice{Mode: ChoiceNone}}, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := StructuralTag(tc.r)
			if tc.pointer == "" {
				assert.NoError(t, err)
				return
			}
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.pointer, e.Pointer)
			assert.Contains(t, e.Reason, tc.reason)
			assert.ErrorIs(t, err, ErrInvalid)
			assert.Equal(t, tc.unsupported, errors.Is(err, grammar.ErrUnsupported))

			_, err = Grammar(tc.r, structtag.Options{})
			require.ErrorAs(t, err, &e, "Grammar reports it the same way")
			assert.Equal(t, tc.pointer, e.Pointer)
		})
	}
}

// TestStructuralTagSchemaLimits: a schema past a default limit is left to
// the compile, which may have higher ones.
func TestStructuralTagSchemaLimits(t *testing.T) {
	enum := make([]string, 10001)
	for i := range enum {
		enum[i] = strconv.Itoa(i)
	}
	params, err := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"enum": enum}}})
	require.NoError(t, err)
	r := Request{Model: Hermes, Tools: []Tool{{Name: "f", Parameters: params}}}
	_, err = StructuralTag(r)
	require.NoError(t, err)
	_, err = Grammar(r, structtag.Options{})
	assert.ErrorIs(t, err, grammar.ErrLimit)
	_, err = Grammar(r, structtag.Options{Limits: grammar.Limits{Enum: 20000}})
	assert.NoError(t, err)
}

// TestGrammarCompilesSchemasOnce: GrammarContext compiles the tools'
// schemas within the structural tag alone, where StructuralTag compiles
// each once more to check it; on a failure, it compiles them one by one
// to name the tool.
func TestGrammarCompilesSchemasOnce(t *testing.T) {
	tools := []Tool{
		{Name: "a", Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string","format":"date-time"}}}`)},
		{Name: "b", Parameters: json.RawMessage(`{"type":"object","properties":{"y":{"type":"integer","minimum":3}}}`)},
		{Name: "c", Parameters: json.RawMessage(`{"properties":{"z":{"type":"array","items":{"type":"number"}}}}`)},
	}
	r := Request{Model: Hermes, Tools: tools}
	before := argumentCompiles.Load()
	_, err := GrammarContext(context.Background(), r, structtag.Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(0), argumentCompiles.Load()-before, "Grammar compiled a schema alone")

	before = argumentCompiles.Load()
	_, err = StructuralTag(r)
	require.NoError(t, err)
	assert.Equal(t, int64(len(tools)), argumentCompiles.Load()-before)

	// The last tool's schema fails: the compile's error names it, in the
	// structural tag, and no schema is compiled again to find it.
	for _, model := range []Format{Hermes, Qwen3Coder, MistralV11} {
		bad := append(slices.Clone(tools), Tool{Name: "d", Parameters: json.RawMessage(`{"type":"object","properties":{"w":{"type":"string","pattern":"(?<=a)b"}}}`)})
		before = argumentCompiles.Load()
		_, err = GrammarContext(context.Background(), Request{Model: model, Tools: bad}, structtag.Options{})
		var e *Error
		require.ErrorAs(t, err, &e, model)
		assert.Equal(t, "/tools/3/parameters/properties/w/pattern", e.Pointer, model)
		assert.ErrorIs(t, err, grammar.ErrUnsupported)
		assert.ErrorIs(t, err, ErrInvalid)
		assert.Zero(t, argumentCompiles.Load()-before, model)
	}
}

// TestGrammarErrorsUnderAnEndingContext: whenever the context ends, during
// the compile or while the tool at fault is named, GrammarContext returns
// either the error it returns without the context's end or one wrapping
// context.Canceled, never another.
func TestGrammarErrorsUnderAnEndingContext(t *testing.T) {
	var tools []Tool
	for i := range 6 {
		tools = append(tools, Tool{Name: "t" + strconv.Itoa(i), Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string","format":"date-time","maxLength":40}}}`)})
	}
	bad := append(slices.Clone(tools), Tool{Name: "bad", Parameters: json.RawMessage(`{"type":"object","properties":{"w":{"type":"string","pattern":"(?<=a)b"}}}`)})
	big := slices.Clone(tools)
	big[2].Parameters = json.RawMessage(`{"type":"object","properties":{"n":{"enum":[1,2,3,4,5,6,7,8,9]}}}`)
	for _, tc := range []struct {
		name  string
		tools []Tool
		opts  structtag.Options
	}{
		{"a valid request", tools, structtag.Options{}},
		{"a bad schema", bad, structtag.Options{}},
		{"a schema past a limit alone", big, structtag.Options{Limits: grammar.Limits{Enum: 8}}},
		{"a schema past a request total alone", big, structtag.Options{Limits: grammar.Limits{SchemaNodes: 60}}},
	} {
		r := Request{Model: Hermes, Tools: tc.tools}
		full := ctxtest.NewCountdown(1 << 40)
		_, want := GrammarContext(full, r, tc.opts)
		for k := int64(1); k <= full.Calls(); k++ {
			_, err := GrammarContext(ctxtest.NewCountdown(k), r, tc.opts)
			if errors.Is(err, context.Canceled) {
				assert.NotErrorIs(t, err, ErrInvalid, "%s: context ended at look %d: a stopped compile is not a bad request", tc.name, k)
				continue
			}
			if want == nil {
				assert.NoError(t, err, "%s: context ended at look %d", tc.name, k)
				continue
			}
			var e *Error
			require.ErrorAs(t, err, &e, "%s: context ended at look %d: %v", tc.name, k, err)
			assert.Equal(t, want.Error(), err.Error(), "%s: context ended at look %d", tc.name, k)
		}
	}
}

// TestGrammarStopsWithTheContext: a context that ends at its first look
// stops GrammarContext before any schema is compiled on its own, where
// StructuralTag, which takes no context, would compile every one first.
func TestGrammarStopsWithTheContext(t *testing.T) {
	var tools []Tool
	for i := range 50 {
		tools = append(tools, Tool{Name: "t" + strconv.Itoa(i), Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string","format":"date-time","maxLength":40}}}`)})
	}
	before := argumentCompiles.Load()
	ctx := ctxtest.NewCountdown(1)
	_, err := GrammarContext(ctx, Request{Model: Hermes, Tools: tools}, structtag.Options{})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, int64(0), argumentCompiles.Load()-before)
}

// TestGrammarNamesWhoCrossesALimit: a schema that alone crosses a limit
// is reported at its tool, a limit of the whole request's (its values) as
// well, and a limit that only the tools together cross at /tools; each
// wraps grammar.ErrLimit and ErrInvalid.
func TestGrammarNamesWhoCrossesALimit(t *testing.T) {
	enum := func(n int) json.RawMessage {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = strconv.Itoa(i)
		}
		params, err := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"enum": vals}}})
		require.NoError(t, err)
		return params
	}
	opts := structtag.Options{Limits: grammar.Limits{Enum: 300}}
	alone := Request{Model: Hermes, Tools: []Tool{{Name: "f", Parameters: enum(10)}, {Name: "g", Parameters: enum(301)}}}
	_, err := GrammarContext(context.Background(), alone, opts)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "/tools/1/parameters/properties/n/enum", e.Pointer)
	assert.ErrorIs(t, err, grammar.ErrLimit)

	// Limits.SchemaNodes counts the whole request's values, reported at
	// "#": each schema is compiled alone to find the one over it.
	nodes := structtag.Options{Limits: grammar.Limits{SchemaNodes: 150}}
	for _, r := range []Request{alone, {Model: Hermes, Tools: alone.Tools[1:]}} {
		_, err = GrammarContext(context.Background(), r, nodes)
		require.ErrorAs(t, err, &e)
		assert.Equal(t, "/tools/"+strconv.Itoa(len(r.Tools)-1)+"/parameters", e.Pointer)
		assert.ErrorIs(t, err, grammar.ErrLimit)
		assert.ErrorIs(t, err, ErrInvalid)
	}

	// Each tool's grammar is within ExprNodes; all of them are not.
	var tools []Tool
	for i := range 8 {
		tools = append(tools, Tool{Name: "t" + strconv.Itoa(i), Parameters: enum(200)})
	}
	// The least power of two of expression nodes one tool's grammar fits
	// in: the eight need about eight times as many.
	limit := 64
	for ; ; limit *= 2 {
		opts = structtag.Options{Limits: grammar.Limits{ExprNodes: limit}}
		if _, err := GrammarContext(context.Background(), Request{Model: Hermes, Tools: tools[:1]}, opts); err == nil {
			break
		}
		require.Less(t, limit, 1<<20)
	}
	_, err = GrammarContext(context.Background(), Request{Model: Hermes, Tools: tools}, opts)
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "/tools", e.Pointer)
	assert.Contains(t, e.Reason, "the 8 tools' schemas together, with the format around them: ")
	assert.ErrorIs(t, err, grammar.ErrLimit)

	// No tool may be called: a limit is the format's own, not a bad
	// request's.
	for _, r := range []Request{{Model: Qwen3, Reasoning: true}, {Model: Qwen3, Reasoning: true, Tools: tools[:1], ToolChoice: ToolChoice{Mode: ChoiceNone}}} {
		_, err = GrammarContext(context.Background(), r, structtag.Options{Limits: grammar.Limits{ExprNodes: 1}})
		assert.ErrorIs(t, err, grammar.ErrLimit)
		assert.NotErrorIs(t, err, ErrInvalid)
	}
}

// TestGrammarTellsSchemasByTheirBytes: two tools whose schemas differ
// only in how a character is escaped ("<" and "\u003c") are told apart
// by the bytes the structural tag holds, which the compile and its limits
// read.
func TestGrammarTellsSchemasByTheirBytes(t *testing.T) {
	plain := json.RawMessage(`{"type":"object","properties":{"s":{"const":"` + strings.Repeat("<", 20) + `"}}}`)
	escaped := json.RawMessage(`{"type":"object","properties":{"s":{"const":"` + strings.Repeat(`\u003c`, 20) + `"}}}`)
	r := Request{Model: Hermes, Tools: []Tool{{Name: "a", Parameters: plain}, {Name: "b", Parameters: escaped}}}
	_, err := GrammarContext(context.Background(), r, structtag.Options{Limits: grammar.Limits{SchemaStringBytes: 60}})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "/tools/1/parameters/properties/s/const", e.Pointer)
}

func TestFormatString(t *testing.T) {
	assert.Equal(t, "Qwen3Coder", Qwen3Coder.String())
	assert.Equal(t, "CohereCommandA", CohereCommandA.String())
	assert.Equal(t, "Format(0)", Format(0).String())
}

// TestTriggersStartTags checks the rule structtag enforces on
// triggered_tags for every family and choice: each tag begins with exactly
// one trigger, and no exclude is a prefix of a trigger.
func TestTriggersStartTags(t *testing.T) {
	for _, c := range allCases() {
		data, err := StructuralTag(c.choice.request(c.model, c.reasoning))
		require.NoError(t, err)
		var top any
		require.NoError(t, json.Unmarshal(data, &top))
		walk(top, func(n map[string]any) {
			if n["type"] != "triggered_tags" {
				return
			}
			triggers := strs(n["triggers"])
			for _, tg := range nodes(n["tags"]) {
				k := 0
				for _, tr := range triggers {
					if strings.HasPrefix(tg["begin"].(string), tr) {
						k++
					}
				}
				assert.Equal(t, 1, k, "%s: tag %q", c.name(), tg["begin"])
			}
			for _, ex := range strs(n["excludes"]) {
				for _, tr := range triggers {
					assert.False(t, strings.HasPrefix(tr, ex), "%s: exclude %q", c.name(), ex)
				}
			}
		})
	}
}

func walk(v any, f func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(v)
		for _, x := range v {
			walk(x, f)
		}
	case []any:
		for _, x := range v {
			walk(x, f)
		}
	}
}

// TestNonStrictSchema pins Q8: a tool with strict false, or without
// parameters, takes any JSON object; strict true or absent keeps the
// schema, applied to an object where it does not say "type": "object".
// In the XML styles the parameters hold whatever strict says.
func TestNonStrictSchema(t *testing.T) {
	params := json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer"}}}`)
	yes, no := true, false
	for _, tc := range []struct {
		tool Tool
		want string
	}{
		{Tool{Name: "f"}, `{"type":"object"}`},
		{Tool{Name: "f", Parameters: params, Strict: &no}, `{"type":"object"}`},
		{Tool{Name: "f", Parameters: params, Strict: &yes}, string(params)},
		{Tool{Name: "f", Parameters: params}, string(params)},
		// Parameters that do not say the arguments are an object.
		{Tool{Name: "f", Parameters: json.RawMessage(`{}`)}, `{"type":"object"}`},
		{Tool{Name: "f", Parameters: json.RawMessage(` { } `)}, `{"type":"object"}`},
		{Tool{Name: "f", Parameters: json.RawMessage(`{"properties":{"a":{}}}`)}, `{"properties":{"a":{}},"type":"object"}`},
	} {
		got, err := json.Marshal(tc.tool.schema())
		require.NoError(t, err)
		assert.JSONEq(t, tc.want, string(got))
	}
	// A repeated "type" keeps its last value, as the JSON Schema front-end
	// reads it (JSONEq would decode it away).
	for params, want := range map[string]string{
		`{"type":["object","null"]} `:                 `{"type":["object","null"],"type":"object"}`,
		`{"type":"string","type":["null","object"] }`: `{"type":"string","type":["null","object"] ,"type":"object"}`,
		`{"type":"bogus"}`:                            `{"type":"bogus"}`, // the compile names it
	} {
		assert.Equal(t, want, string(Tool{Name: "f", Parameters: json.RawMessage(params)}.schema().(json.RawMessage)))
	}
	assert.JSONEq(t, `{"type":"object"}`, string(Tool{Name: "f"}.xmlSchema()))
	assert.JSONEq(t, string(params), string(Tool{Name: "f", Parameters: params, Strict: &no}.xmlSchema()))
}

// TestArgumentsAreObjects: a call's arguments are a JSON object whatever
// the parameters say of the type, in the JSON formats: parameters {}
// (a tool without arguments, as clients send it) and an MCP tool's
// schema without "type" take objects only. And strict mode closes the
// arguments where they are, so allOf branches declaring different
// properties hold together.
func TestArgumentsAreObjects(t *testing.T) {
	for _, tc := range []struct {
		params         string
		accept, reject []string
	}{
		{`{}`, []string{`{}`, `{"a": 1}`}, []string{`42`, `"x"`, `[1]`, `null`}},
		{`{"properties": {"a": {"type": "string"}}}`, []string{`{"a": "x"}`, `{}`}, []string{`"x"`, `[1]`, `{"b": 1}`}},
		{`{"type": "object", "allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "integer"}}}]}`,
			[]string{`{"a": "x", "b": 1}`, `{"a": "x"}`}, []string{`{"c": 1}`}},
		// References into the parameters hold where they do not say the type.
		{`{"properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string"}}}`,
			[]string{`{"a": "x"}`}, []string{`{"a": 1}`, `"x"`}},
		{`{"type": ["object", "null"], "properties": {"a": {"type": "string"}}}`,
			[]string{`{"a": "x"}`}, []string{`null`, `{"a": 1}`}},
	} {
		r := Request{Model: Hermes, Tools: []Tool{{Name: "f", Parameters: json.RawMessage(tc.params)}}}
		g, err := Grammar(r, structtag.Options{})
		require.NoError(t, err, tc.params)
		p, err := pda.Compile(g, grammar.DefaultLimits())
		require.NoError(t, err)
		run := func(args string) bool {
			st := pda.NewState(p)
			return st.AdvanceBytes([]byte(hermesCall("f", args))) && st.CanEnd()
		}
		for _, a := range tc.accept {
			assert.True(t, run(a), "%s: %s is accepted", tc.params, a)
		}
		for _, a := range tc.reject {
			assert.False(t, run(a), "%s: %s is refused", tc.params, a)
		}
	}
}
