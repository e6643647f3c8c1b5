package jsonschema_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/fuzzcheck"
	"github.com/reinlm/rein/internal/masktest"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/pda"
)

// xmlCase is a schema compiled in one style, with documents it must accept
// and reject.
type xmlCase struct {
	name   string
	style  jsonschema.Style
	schema string
	order  jsonschema.PropertyOrder
	accept []string
	reject []string
}

// nameAge is the schema of the styles table of docs/design/tool-calling.md.
const nameAge = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name","age"]}`

var xmlCases = []xmlCase{
	{name: "qwen", style: jsonschema.StyleQwenXML, schema: nameAge,
		accept: []string{
			"<parameter=name>Bob</parameter><parameter=age>100</parameter>",
			"<parameter=name>\nBob\n</parameter>\n<parameter=age>\n100\n</parameter>\n",
			"\n<parameter=name></parameter> <parameter=age>-1</parameter>",
			"<parameter=name>a < b, {\"x\": 1} </param></parameter><parameter=age>0</parameter>",
		},
		reject: []string{
			`<parameter name="name">Bob</parameter><parameter name="age">100</parameter>`,
			"<arg_key>name</arg_key><arg_value>Bob</arg_value><arg_key>age</arg_key><arg_value>100</arg_value>",
			"<parameter=name>Bob</parameter>",                                                         // missing required
			"<parameter=age>100</parameter><parameter=name>Bob</parameter>",                           // declared order
			"<parameter=name>Bob</parameter><parameter=age>100</parameter><parameter=x>1</parameter>", // unknown
			"<parameter=name>Bob</parameter><parameter=age>abc</parameter>",                           // wrong type
			"<parameter=name>Bob</parameter><parameter=age>1.5</parameter>",
			"<parameter=name>Bob</parameter><parameter=age>\"100\"</parameter>",
			"<parameter=name>B</parameter>ob</parameter><parameter=age>100</parameter>",       // closer in a raw string
			"<parameter=name>Bob<parameter=age>100</parameter><parameter=age>100</parameter>", // opener in a raw string
			`{"name": "Bob", "age": 100}`,
			"",
		}},
	{name: "qwen doc example", style: jsonschema.StyleQwenXML,
		schema: `{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`,
		accept: []string{"<parameter=location>Paris</parameter>", "<parameter=location>\nParis\n</parameter>\n", "<parameter=location>New York, NY</parameter>"},
		reject: []string{`{"location": "Paris"}`, `<parameter name="location">Paris</parameter>`, "<parameter=city>Paris</parameter>", "", "<parameter=location>Paris"}},
	{name: "minimax", style: jsonschema.StyleMiniMaxXML, schema: nameAge,
		accept: []string{`<parameter name="name">Bob</parameter><parameter name="age">100</parameter>`,
			"<parameter name=\"name\">Bob</parameter>\n<parameter name=\"age\"> 100 </parameter>\n"},
		reject: []string{"<parameter=name>Bob</parameter><parameter=age>100</parameter>",
			"<｜DSML｜parameter name=\"name\" string=\"true\">Bob</｜DSML｜parameter><｜DSML｜parameter name=\"age\" string=\"false\">100</｜DSML｜parameter>",
			"<arg_key>name</arg_key><arg_value>Bob</arg_value><arg_key>age</arg_key><arg_value>100</arg_value>",
			`<parameter name="name">Bob</parameter>`}},
	{name: "deepseek", style: jsonschema.StyleDeepSeekXML, schema: nameAge,
		accept: []string{"<｜DSML｜parameter name=\"name\" string=\"true\">Bob</｜DSML｜parameter><｜DSML｜parameter name=\"age\" string=\"false\">100</｜DSML｜parameter>",
			"\n<｜DSML｜parameter name=\"name\" string=\"true\">Bob</｜DSML｜parameter>\n<｜DSML｜parameter name=\"age\" string=\"false\">\n100\n</｜DSML｜parameter>\n"},
		reject: []string{"<parameter=name>Bob</parameter><parameter=age>100</parameter>",
			`<parameter name="name">Bob</parameter><parameter name="age">100</parameter>`,
			"<arg_key>name</arg_key><arg_value>Bob</arg_value><arg_key>age</arg_key><arg_value>100</arg_value>",
			// The string attribute says how the value is written.
			"<｜DSML｜parameter name=\"name\" string=\"false\">Bob</｜DSML｜parameter><｜DSML｜parameter name=\"age\" string=\"false\">100</｜DSML｜parameter>",
			"<｜DSML｜parameter name=\"name\" string=\"true\">Bob</｜DSML｜parameter><｜DSML｜parameter name=\"age\" string=\"true\">100</｜DSML｜parameter>"}},
	{name: "glm", style: jsonschema.StyleGLMXML, schema: nameAge,
		accept: []string{"<arg_key>name</arg_key><arg_value>Bob</arg_value><arg_key>age</arg_key><arg_value>100</arg_value>",
			"<arg_key>name</arg_key>\n<arg_value>Bob</arg_value>\n<arg_key>age</arg_key>\n<arg_value>100</arg_value>\n"},
		reject: []string{"<parameter=name>Bob</parameter><parameter=age>100</parameter>",
			`<parameter name="name">Bob</parameter><parameter name="age">100</parameter>`,
			"<arg_key>name</arg_key><arg_value>Bob<arg_key>age</arg_key></arg_value><arg_key>age</arg_key><arg_value>100</arg_value>",
			"<arg_key>name</arg_key><arg_value>Bob</arg_value>"}},
	{name: "cohere", style: jsonschema.StyleCohereXML, schema: nameAge,
		accept: []string{`<cofl:value name="name" type="raw">Bob</cofl:value><cofl:value name="age" type="json">100</cofl:value>`},
		reject: []string{`<cofl:value name="name" type="raw">Bob</cofl:value>`,
			`<cofl:value name=name type=raw>Bob</cofl:value><cofl:value name=age type=json>100</cofl:value>`,
			"<parameter=name>Bob</parameter><parameter=age>100</parameter>",
			`<cofl:value name="name" type="json">"Bob"</cofl:value><cofl:value name="age" type="json">100</cofl:value>`,
			`<cofl:value name="name" type="raw">Bob</cofl:value><cofl:value name="age" type="raw">100</cofl:value>`}},
	{name: "cohere nested", style: jsonschema.StyleCohereXML,
		schema: `{"type":"object","properties":{"config":{"type":"object","properties":{"mode":{"type":"string"},"enabled":{"type":"boolean"}},"required":["mode","enabled"]},
			"items":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":2}},"required":["config","items"]}`,
		accept: []string{
			`<cofl:value name="config" type="dict"><cofl:value name="mode" type="raw">fast</cofl:value><cofl:value name="enabled" type="json">true</cofl:value></cofl:value><cofl:value name="items" type="list"><cofl:value type="raw">first</cofl:value><cofl:value type="raw">second</cofl:value></cofl:value>`,
			"<cofl:value name=\"config\" type=\"dict\">\n  <cofl:value name=\"mode\" type=\"raw\">fast</cofl:value>\n  <cofl:value name=\"enabled\" type=\"json\">true</cofl:value>\n</cofl:value>\n<cofl:value name=\"items\" type=\"list\">\n<cofl:value type=\"raw\">first</cofl:value>\n<cofl:value type=\"raw\">second</cofl:value>\n</cofl:value>",
		},
		reject: []string{
			`<cofl:value name="config" type="dict"><cofl:value name="mode" type="raw">fast</cofl:value><cofl:value name="enabled" type="json">true</cofl:value></cofl:value><cofl:value name="items" type="list"><cofl:value name="0" type="raw">first</cofl:value><cofl:value type="raw">second</cofl:value></cofl:value>`,
			// Three items, two allowed.
			`<cofl:value name="config" type="dict"><cofl:value name="mode" type="raw">fast</cofl:value><cofl:value name="enabled" type="json">true</cofl:value></cofl:value><cofl:value name="items" type="list"><cofl:value type="raw">a</cofl:value><cofl:value type="raw">b</cofl:value><cofl:value type="raw">c</cofl:value></cofl:value>`,
			// The nested object written as JSON.
			`<cofl:value name="config" type="json">{"mode": "fast", "enabled": true}</cofl:value><cofl:value name="items" type="list"><cofl:value type="raw">a</cofl:value><cofl:value type="raw">b</cofl:value></cofl:value>`,
			// A nested raw string that swallows its parent's end.
			`<cofl:value name="config" type="dict"><cofl:value name="mode" type="raw">fast</cofl:value><cofl:value name="enabled" type="json">true</cofl:value></cofl:value><cofl:value name="items" type="list"><cofl:value type="raw">a</cofl:value></cofl:value><cofl:value type="raw">b</cofl:value></cofl:value>`,
		}},
	{name: "cohere recursive", style: jsonschema.StyleCohereXML,
		schema: `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"],
			"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["v"]}}}`,
		accept: []string{
			`<cofl:value name="root" type="dict"><cofl:value name="v" type="json">1</cofl:value></cofl:value>`,
			`<cofl:value name="root" type="dict"><cofl:value name="v" type="json">1</cofl:value><cofl:value name="kids" type="list"><cofl:value type="dict"><cofl:value name="v" type="json">2</cofl:value><cofl:value name="kids" type="list"></cofl:value></cofl:value></cofl:value></cofl:value>`,
		},
		reject: []string{
			`<cofl:value name="root" type="dict"><cofl:value name="v" type="json">1</cofl:value><cofl:value name="kids" type="list"><cofl:value type="dict"></cofl:value></cofl:value></cofl:value>`,
			`<cofl:value name="root" type="dict"><cofl:value name="v" type="json">1</cofl:value><cofl:value name="kids" type="json">[]</cofl:value></cofl:value>`,
		}},
	{name: "kimi", style: jsonschema.StyleKimiK3XML, schema: nameAge,
		accept: []string{`<|open|>argument key="name" type="string"<|sep|>Bob<|close|>argument<|sep|><|open|>argument key="age" type="number"<|sep|>100<|close|>argument<|sep|>`},
		reject: []string{"<parameter=name>Bob</parameter><parameter=age>100</parameter>",
			"<arg_key>name</arg_key><arg_value>Bob</arg_value><arg_key>age</arg_key><arg_value>100</arg_value>",
			`<|open|>argument key="name" type="string"<|sep|>Bob<|close|>argument<|sep|><|open|>argument key="age" type="integer"<|sep|>100<|close|>argument<|sep|>`,
			`<|open|>argument key="name" type="string"<|sep|>Bob<|open|>argument key="age" type="number"<|sep|>100<|close|>argument<|sep|>`}},

	// Properties: optional ones, any order, nested JSON values.
	{name: "optional", style: jsonschema.StyleQwenXML,
		schema: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"boolean"},"c":{"type":"null"}},"required":["b"]}`,
		accept: []string{"<parameter=b>true</parameter>", "<parameter=a>x</parameter><parameter=b>false</parameter>", "<parameter=b>true</parameter><parameter=c>null</parameter>"},
		reject: []string{"<parameter=a>x</parameter>", "<parameter=b>true</parameter><parameter=a>x</parameter>", "<parameter=b>true</parameter><parameter=b>true</parameter>"}},
	{name: "any order", style: jsonschema.StyleMiniMaxXML, schema: nameAge, order: jsonschema.OrderAny,
		accept: []string{`<parameter name="age">1</parameter><parameter name="name">x</parameter>`, `<parameter name="name">x</parameter><parameter name="age">1</parameter>`},
		reject: []string{`<parameter name="age">1</parameter>`, `<parameter name="age">1</parameter><parameter name="age">2</parameter><parameter name="name">x</parameter>`}},
	{name: "json values", style: jsonschema.StyleQwenXML,
		schema: `{"type":"object","properties":{"o":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]},"l":{"type":"array","items":{"type":"integer"}}},"required":["o","l"]}`,
		accept: []string{"<parameter=o>{\"k\": \"v\"}</parameter><parameter=l>[1, 2]</parameter>", "<parameter=o>\n{\"k\":\"</parameter>\"}\n</parameter><parameter=l>[]</parameter>"},
		reject: []string{"<parameter=o>{\"k\": 1}</parameter><parameter=l>[1, 2]</parameter>", "<parameter=o>{\"k\": \"v\"}</parameter><parameter=l>[\"1\"]</parameter>"}},
	{name: "string or null", style: jsonschema.StyleKimiK3XML,
		schema: `{"type":"object","properties":{"s":{"type":["string","null"]}},"required":["s"]}`,
		accept: []string{`<|open|>argument key="s" type="string"<|sep|>null<|close|>argument<|sep|>`, `<|open|>argument key="s" type="null"<|sep|>null<|close|>argument<|sep|>`},
		reject: []string{`<|open|>argument key="s" type="null"<|sep|>x<|close|>argument<|sep|>`}},
	{name: "no type at the top", style: jsonschema.StyleQwenXML, schema: `{"properties":{"a":{"type":"integer"}}}`,
		accept: []string{"", "<parameter=a>1</parameter>"}, reject: []string{"<parameter=a>x</parameter>", "1"}},
	{name: "true", style: jsonschema.StyleGLMXML, schema: `true`, accept: []string{"", "\n"}, reject: []string{"<arg_key>a</arg_key><arg_value>1</arg_value>"}},
	{name: "additionalProperties true reads as none", style: jsonschema.StyleQwenXML, schema: `{"type":"object","additionalProperties":true}`,
		accept: []string{"", " \n"}, reject: []string{"<parameter=a>1</parameter>"}},

	// Raw string constraints.
	{name: "enum", style: jsonschema.StyleQwenXML,
		schema: `{"type":"object","properties":{"u":{"enum":["celsius","fahrenheit","a</parameter>b",3]}},"required":["u"]}`,
		accept: []string{"<parameter=u>celsius</parameter>", "<parameter=u>fahrenheit</parameter>", "<parameter=u>3</parameter>", "<parameter=u> 3 </parameter>"},
		reject: []string{"<parameter=u>kelvin</parameter>", "<parameter=u>\"celsius\"</parameter>", "<parameter=u>a</parameter>b</parameter>", "<parameter=u> celsius</parameter>"}},
	{name: "const", style: jsonschema.StyleGLMXML,
		schema: `{"type":"object","properties":{"k":{"const":"a \"b\""}},"required":["k"]}`,
		accept: []string{`<arg_key>k</arg_key><arg_value>a "b"</arg_value>`}, reject: []string{`<arg_key>k</arg_key><arg_value>"a \"b\""</arg_value>`}},
	{name: "lengths", style: jsonschema.StyleQwenXML,
		schema: `{"type":"object","properties":{"a":{"type":"string","minLength":2},"b":{"type":"string","minLength":1,"maxLength":3}},"required":["a","b"]}`,
		accept: []string{"<parameter=a>xy</parameter><parameter=b>x</parameter>", "<parameter=a>xy<z</parameter><parameter=b>xyz</parameter>"},
		reject: []string{"<parameter=a>x</parameter><parameter=b>x</parameter>", "<parameter=a>xy</parameter><parameter=b></parameter>", "<parameter=a>xy</parameter><parameter=b>wxyz</parameter>", "<parameter=a><x</parameter><parameter=b>x</parameter>"}},
	{name: "pattern and format", style: jsonschema.StyleCohereXML,
		schema: `{"type":"object","properties":{"id":{"type":"string","pattern":"^[A-Z]{2}-\\d+$"},"day":{"type":"string","format":"date"},"tag":{"type":"string","pattern":"^[a-z]+$","maxLength":3}},"required":["id","day","tag"]}`,
		accept: []string{`<cofl:value name="id" type="raw">AB-12</cofl:value><cofl:value name="day" type="raw">2024-02-29</cofl:value><cofl:value name="tag" type="raw">xab</cofl:value>`,
			"<cofl:value name=\"id\" type=\"raw\">AB-12</cofl:value>\n<cofl:value name=\"day\" type=\"raw\">2024-02-29</cofl:value>\n<cofl:value name=\"tag\" type=\"raw\">a</cofl:value>\n"},
		reject: []string{`<cofl:value name="id" type="raw">ab-12</cofl:value><cofl:value name="day" type="raw">2024-02-29</cofl:value><cofl:value name="tag" type="raw">ab</cofl:value>`,
			`<cofl:value name="id" type="raw">AB-12</cofl:value><cofl:value name="day" type="raw">2023-02-29</cofl:value><cofl:value name="tag" type="raw">ab</cofl:value>`,
			`<cofl:value name="id" type="raw">AB-12</cofl:value><cofl:value name="day" type="raw">2024-02-29</cofl:value><cofl:value name="tag" type="raw">abcd</cofl:value>`,
			`<cofl:value name="id" type="raw">AB-12</cofl:value><cofl:value name="day" type="raw">2024-02-29</cofl:value><cofl:value name="tag" type="raw">a1</cofl:value>`}},
	{name: "key escaped", style: jsonschema.StyleMiniMaxXML,
		schema: `{"type":"object","properties":{"a\"&b":{"type":"integer"}},"required":["a\"&b"]}`,
		accept: []string{`<parameter name="a&quot;&amp;b">1</parameter>`}, reject: []string{`<parameter name="a"&b">1</parameter>`}},
}

// pdaAccepts reports whether the grammar accepts s as a whole document.
func pdaAccepts(t *testing.T, p *pda.Program, s string) bool {
	t.Helper()
	st := pda.NewState(p)
	return st.AdvanceBytes([]byte(s)) && st.CanEnd()
}

func TestXMLStyles(t *testing.T) {
	for _, tc := range xmlCases {
		t.Run(tc.name, func(t *testing.T) {
			g, _, err := jsonschema.Compile([]byte(tc.schema), jsonschema.Options{Style: tc.style, Order: tc.order})
			require.NoError(t, err)
			p, err := pda.Compile(g, grammar.Limits{})
			require.NoError(t, err)
			for _, s := range tc.accept {
				assert.True(t, pdaAccepts(t, p, s), "should accept %q", s)
			}
			for _, s := range tc.reject {
				assert.False(t, pdaAccepts(t, p, s), "should reject %q", s)
			}
		})
	}
}

// TestXMLSpecialLiterals checks that every literal holding a special-token
// text of the DeepSeek, Kimi and GLM styles is a LitTokens literal (GLM's
// <arg_key> and <arg_value> are special tokens in its vocabulary), and that
// the other styles have none.
func TestXMLSpecialLiterals(t *testing.T) {
	for _, tc := range []struct {
		style   jsonschema.Style
		marker  string
		special bool
	}{
		{jsonschema.StyleKimiK3XML, "<|", true},
		{jsonschema.StyleDeepSeekXML, "｜DSML｜", true},
		{jsonschema.StyleGLMXML, "<arg_", true},
		{jsonschema.StyleQwenXML, "<parameter", false},
		{jsonschema.StyleCohereXML, "<cofl:value", false},
	} {
		g, _, err := jsonschema.Compile([]byte(nameAge), jsonschema.Options{Style: tc.style})
		require.NoError(t, err)
		found := 0
		for _, r := range g.Rules {
			walkExpr(r.Body, func(e *grammar.Expr) {
				if e.Op == grammar.OpBytes && strings.Contains(string(e.Bytes), tc.marker) {
					found++
					assert.Equal(t, tc.special, e.Special, "%s: literal %q", tc.style, e.Bytes)
				}
			})
		}
		assert.Positive(t, found, tc.style)
	}
}

func walkExpr(e *grammar.Expr, f func(*grammar.Expr)) {
	f(e)
	for _, s := range e.Subs {
		walkExpr(s, f)
	}
}

func TestXMLErrors(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		opts         jsonschema.Options
		unsupported  bool
		contains     string
		lenientNone  bool // in Lenient mode the schema accepts no document
	}{
		{name: "unknown style", schema: nameAge, opts: jsonschema.Options{Style: "yaml"}, contains: `"yaml"`},
		{name: "top level string", schema: `{"type":"string"}`, opts: jsonschema.Options{Style: jsonschema.StyleQwenXML}, contains: "#: the top level of a qwen_xml document must be an object, not string"},
		{name: "top level array", schema: `{"$defs":{"x":{"type":["array","null"]}},"$ref":"#/$defs/x"}`, opts: jsonschema.Options{Style: jsonschema.StyleGLMXML}, contains: "must be an object, not null or array"},
		{name: "pattern admitting the closer", schema: `{"type":"object","properties":{"a":{"type":"string","pattern":"x$"}}}`, opts: jsonschema.Options{Style: jsonschema.StyleQwenXML}, unsupported: true, contains: "/properties/a/pattern: "},
		{name: "pattern admitting the opener", schema: `{"type":"object","properties":{"a":{"type":"string","pattern":"^[<a-z_>]+$"}}}`, opts: jsonschema.Options{Style: jsonschema.StyleGLMXML}, unsupported: true, contains: `"<arg_key>"`},
		{name: "pattern and length", schema: `{"type":"object","properties":{"a":{"type":"string","pattern":"ab","maxLength":4}}}`, opts: jsonschema.Options{Style: jsonschema.StyleMiniMaxXML}, unsupported: true, contains: "cannot be combined with minLength and maxLength"},
		{name: "two patterns", schema: `{"type":"object","properties":{"a":{"type":"string","pattern":"^a","allOf":[{"pattern":"b$"}]}}}`, opts: jsonschema.Options{Style: jsonschema.StyleMiniMaxXML}, unsupported: true, contains: "not more"},
		{name: "not", schema: `{"type":"object","properties":{"a":{"type":"string","not":{"const":"x"}}}}`, opts: jsonschema.Options{Style: jsonschema.StyleKimiK3XML}, unsupported: true, contains: "negation"},
		{name: "additional schema", schema: `{"type":"object","additionalProperties":{"type":"integer"}}`, opts: jsonschema.Options{Style: jsonschema.StyleQwenXML}, unsupported: true, contains: "/additionalProperties: "},
		{name: "pattern properties", schema: `{"type":"object","patternProperties":{"^x":{"type":"integer"}}}`, opts: jsonschema.Options{Style: jsonschema.StyleCohereXML}, unsupported: true, contains: "/patternProperties: "},
		{name: "key with >", schema: `{"type":"object","properties":{"a>b":{"type":"integer"}}}`, opts: jsonschema.Options{Style: jsonschema.StyleQwenXML}, unsupported: true, contains: "/properties/a>b: "},
		{name: "required key with <", schema: `{"type":"object","required":["a<b"]}`, opts: jsonschema.Options{Style: jsonschema.StyleGLMXML}, unsupported: true, contains: "/required: ", lenientNone: true},
		{name: "false", schema: `false`, opts: jsonschema.Options{Style: jsonschema.StyleKimiK3XML}, contains: "accepts no value"},
		{name: "maxProperties", schema: `{"type":"object","properties":{"a":{},"b":{}},"maxProperties":1}`, opts: jsonschema.Options{Style: jsonschema.StyleQwenXML}, unsupported: true, contains: "maxProperties"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := jsonschema.Compile([]byte(tc.schema), tc.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.contains)
			assert.Equal(t, tc.unsupported, errors.Is(err, grammar.ErrUnsupported), "%v", err)
			if tc.unsupported {
				opts := tc.opts
				opts.Lenient = true
				g, warns, err := jsonschema.Compile([]byte(tc.schema), opts)
				if tc.lenientNone {
					assert.ErrorContains(t, err, "the schema accepts no value")
					return
				}
				require.NoError(t, err)
				assert.NotNil(t, g)
				assert.NotEmpty(t, warns)
			}
		})
	}
}

// TestXMLLenientPattern checks that Lenient mode drops a raw string's
// pattern for any raw text, which still cannot hold the closing tag.
func TestXMLLenientPattern(t *testing.T) {
	g, warns, err := jsonschema.Compile([]byte(`{"type":"object","properties":{"a":{"type":"string","pattern":"x$"}},"required":["a"]}`),
		jsonschema.Options{Style: jsonschema.StyleQwenXML, Lenient: true})
	require.NoError(t, err)
	require.Len(t, warns, 1)
	assert.Equal(t, "/properties/a/pattern", warns[0].Pointer)
	p, err := pda.Compile(g, grammar.Limits{})
	require.NoError(t, err)
	assert.True(t, pdaAccepts(t, p, "<parameter=a>yyy</parameter>"), "the pattern is dropped")
	assert.False(t, pdaAccepts(t, p, "<parameter=a>y</parameter>y</parameter>"))
}

// TestXMLStyleJSON checks that the zero Style is JSON.
func TestXMLStyleJSON(t *testing.T) {
	g, _, err := jsonschema.Compile([]byte(nameAge), jsonschema.Options{})
	require.NoError(t, err)
	p, err := pda.Compile(g, grammar.Limits{})
	require.NoError(t, err)
	assert.True(t, pdaAccepts(t, p, `{"name": "Bob", "age": 100}`))
	assert.False(t, pdaAccepts(t, p, "<parameter=name>Bob</parameter><parameter=age>100</parameter>"))
}

// xmlStyles are the XML styles, for the fuzz target to pick from.
var xmlStyles = []jsonschema.Style{jsonschema.StyleQwenXML, jsonschema.StyleMiniMaxXML, jsonschema.StyleDeepSeekXML,
	jsonschema.StyleGLMXML, jsonschema.StyleCohereXML, jsonschema.StyleKimiK3XML}

// FuzzCompileXML checks that any schema, in any XML style and order, either
// compiles to a valid grammar that the pushdown compiler takes, or fails
// with an error naming its place.
func FuzzCompileXML(f *testing.F) {
	for i, tc := range xmlCases {
		f.Add([]byte(tc.schema), uint8(i))
	}
	for i, tc := range schemaCases {
		f.Add([]byte(tc.schema), uint8(i))
	}
	f.Fuzz(func(t *testing.T, schema []byte, pick uint8) {
		opts := jsonschema.Options{
			Style:  xmlStyles[int(pick)%len(xmlStyles)],
			Order:  jsonschema.PropertyOrder(pick / 128),
			Limits: grammar.Limits{Rules: 2000, ExprNodes: 1 << 18, Repeat: 1 << 12, Alternatives: 64, Enum: 500},
		}
		for _, lenient := range []bool{false, true} {
			opts.Lenient = lenient
			g, warnings, err := jsonschema.Compile(schema, opts)
			if err != nil {
				require.Nil(t, g)
				checkSchemaError(t, schema, err)
				continue
			}
			if err := g.Validate(); err != nil {
				t.Fatalf("invalid grammar: %v", err)
			}
			require.LessOrEqual(t, len(g.Rules), opts.Limits.Rules, "%q: more rules than the limit", schema)
			for _, w := range warnings {
				require.True(t, w.Pointer == "" || strings.HasPrefix(w.Pointer, "/"), "%q: warning pointer %q", schema, w.Pointer)
			}
			fuzzcheck.Compiles(t, string(schema), g)
		}
	})
}

func ExampleStyle() {
	schema := []byte(`{
		"type": "object",
		"properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 9}},
		"required": ["city"]
	}`)
	g, _, err := jsonschema.Compile(schema, jsonschema.Options{Style: jsonschema.StyleQwenXML})
	if err != nil {
		panic(err)
	}
	fmt.Print(g)
	// Output:
	// root ::= (xml-ws (("<parameter=city>" properties-city-xml "</parameter>") xml-ws) (("<parameter=days>" properties-days-xml "</parameter>") xml-ws){0,1})
	// xml-ws ::= [\x09-\x0A ]{0,}
	// xml-string ::= %text -("</parameter>" | "<parameter=")
	// properties-city-xml ::= xml-string
	// properties-days-xml ::= (xml-ws [1-9] xml-ws)
}

// TestXMLQwenVocabulary runs Qwen3-Coder's layout of a call's arguments
// through mask with Qwen3's vocabulary, token by token as a model would
// write it, and checks the mask against the token-by-token reference at
// every step.
func TestXMLQwenVocabulary(t *testing.T) {
	voc := vocabtest.Load(t, "qwen3")
	enc, err := voc.Encoder()
	require.NoError(t, err)
	g, _, err := jsonschema.Compile([]byte(nameAge), jsonschema.Options{Style: jsonschema.StyleQwenXML})
	require.NoError(t, err)
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	for _, tc := range []struct {
		doc    string
		accept bool
	}{
		{"<parameter=name>\nBob <b>the</b> builder\n</parameter>\n<parameter=age>\n100\n</parameter>\n", true},
		{"<parameter=name>Bob</parameter><parameter=age>100</parameter>", true},
		{"<parameter=name>Bob</parameter>x<parameter=age>100</parameter>", false},
		{"<parameter=name>Bob\n<parameter=age>100</parameter>", false},
	} {
		m := c.NewMatcher()
		b := mask.NewBitmask(1, c.VocabSize())
		ok := true
		for _, id := range enc.Encode(tc.doc) {
			require.NoError(t, m.FillBitmask(b, 0))
			require.Empty(t, masktest.DiffRows(m, b.Row(0), masktest.ReferenceMask(m)), "%q", tc.doc)
			allowed := b.Row(0)[id/32]&(1<<(id%32)) != 0
			if !m.AcceptToken(id) {
				assert.False(t, allowed, "%q: token %q refused but in the mask", tc.doc, voc.Bytes(id))
				ok = false
				break
			}
			assert.True(t, allowed, "%q: token %q accepted but not in the mask", tc.doc, voc.Bytes(id))
		}
		assert.Equal(t, tc.accept, ok && m.CanEnd(), "%q", tc.doc)
	}
	// The styles with special-token markup compile for a vocabulary that
	// does not have those tokens: the markup is text there.
	for _, st := range []jsonschema.Style{jsonschema.StyleDeepSeekXML, jsonschema.StyleKimiK3XML} {
		g, _, err := jsonschema.Compile([]byte(nameAge), jsonschema.Options{Style: st})
		require.NoError(t, err)
		_, err = mask.Compile(g, voc, mask.Options{})
		assert.NoError(t, err, st)
	}
}
