package jsonschema_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/ctxtest"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/oracle"
)

// The regression tests of issue 12's JSON Schema items: sizes bounded
// before they cost memory or stack, cancellation, and strict mode sound.

// TestJSONSchemaInputBounds checks that each input size ends in an error
// wrapping ErrLimit that names the place and the field of grammar.Limits,
// before the work it would cost.
func TestJSONSchemaInputBounds(t *testing.T) {
	longKey := `{"type":"object","properties":{"` + strings.Repeat("a", 1_000_000) + `":{}},"additionalProperties":{"type":"integer"}}`
	remote := func(ctx context.Context, uri string) ([]byte, error) {
		return []byte(`{"$ref":"` + uri + `x"}`), nil
	}
	for _, tc := range []struct {
		name    string
		schema  string
		opts    jsonschema.Options
		pointer string
		field   string // of grammar.Limits, named in the message
	}{
		{"a 1,000,000-character key", longKey, jsonschema.Options{}, "/properties", "SchemaKeyBytes"},
		// Raised string limit: the key-exclusion builder is iterative and
		// splits long names into rules, so this ends at Limits.Rules, not in a
		// stack overflow.
		{"a long key past Limits.SchemaKeyBytes", longKey, jsonschema.Options{Limits: grammar.Limits{SchemaKeyBytes: 2 << 20, Rules: 1000}}, "#", "Rules"},
		{"a long string", `{"const":"` + strings.Repeat("x", 1<<20+1) + `"}`, jsonschema.Options{}, "/const", "SchemaStringBytes"},
		{"schema bytes", `{"description":"` + strings.Repeat("x", 5000) + `"}`, jsonschema.Options{Limits: grammar.Limits{SchemaBytes: 4096}}, "#", "SchemaBytes"},
		{"number digits", `{"properties":{"n":{"multipleOf":0.` + strings.Repeat("1", 200) + `}}}`, jsonschema.Options{}, "/properties/n/multipleOf", "SchemaNumberDigits"},
		{"nesting before parsing", strings.Repeat("[", 5_000_000), jsonschema.Options{}, "", "SchemaDepth"},
		{"schema values", `{"enum":[1,2,3,4,5,6,7,8]}`, jsonschema.Options{Limits: grammar.Limits{SchemaNodes: 4}}, "", "SchemaNodes"},
		{"enum size", `{"enum":[1,2,3]}`, jsonschema.Options{Limits: grammar.Limits{Enum: 2}}, "/enum", "Enum"},
		{"repeat", `{"type":"string","maxLength":100}`, jsonschema.Options{Limits: grammar.Limits{Repeat: 10}}, "", "Repeat"},
		{"alternatives", `{"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"anyOf":[{"minimum":1},{"maxLength":2}]}]}`, jsonschema.Options{Limits: grammar.Limits{Alternatives: 1}}, "", "Alternatives"},
		{"rules", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`, jsonschema.Options{Limits: grammar.Limits{Rules: 2}}, "", "Rules"},
		{"expression nodes", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`, jsonschema.Options{Limits: grammar.Limits{ExprNodes: 20}}, "", "ExprNodes"},
		{"pattern bytes", `{"type":"string","pattern":"` + strings.Repeat("a", 100) + `"}`, jsonschema.Options{Limits: grammar.Limits{RegexBytes: 50}}, "/pattern", "RegexBytes"},
		{"remote documents", `{"$ref":"https://example.com/a"}`, jsonschema.Options{LoadRef: remote, Limits: grammar.Limits{SchemaDocuments: 3}}, "", "SchemaDocuments"},
		// A name in required is a string, not a key, to the scan: the
		// key-exclusion builder bounds it before building a trie node per
		// character (hundreds of MB for this 1 MB schema otherwise).
		{"a 1,000,000-character required name", `{"type":"object","required":["` + strings.Repeat("a", 1_000_000) + `"]}`, jsonschema.Options{}, "#", "SchemaKeyBytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := jsonschema.Compile([]byte(tc.schema), tc.opts)
			require.ErrorIs(t, err, grammar.ErrLimit)
			var e *grammar.Error
			require.True(t, errors.As(err, &e), "%v", err)
			if tc.pointer != "" {
				assert.Equal(t, tc.pointer, e.Pointer, "%v", err)
			}
			assert.Contains(t, e.Msg, "Limits."+tc.field, "%v", err)
		})
	}
}

// TestJSONSchemaLongKeyCompiles checks that a long declared name (longer
// than a rule's expression may nest) compiles into a grammar that excludes
// exactly that name from additionalProperties.
func TestJSONSchemaLongKeyCompiles(t *testing.T) {
	name := strings.Repeat("ab", 150)
	schema := `{"type":"object","properties":{"` + name + `":{"type":"string"}},"additionalProperties":{"type":"integer"}}`
	g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
	require.NoError(t, err)
	for doc, want := range map[string]bool{
		`{"` + name + `":"x"}`:     true,
		`{"` + name + `":1}`:       false,
		`{"` + name + `a":1}`:      true,
		`{"` + name[:299] + `":1}`: true,
	} {
		ok, err := oracle.Accepts(g, []byte(doc))
		require.NoError(t, err)
		assert.Equal(t, want, ok, "%.40s...", doc)
	}
}

// TestJSONSchemaMultipleOfQuarters checks that multipleOf k/4 compiles
// within a small expression budget (8.25 used to build over 4M nodes of
// state elimination, 37 s) and stays exact.
func TestJSONSchemaMultipleOfQuarters(t *testing.T) {
	for k := 21; k <= 39; k++ {
		m := fmt.Sprintf("%g", float64(k)/4)
		t.Run(m, func(t *testing.T) {
			g, _, err := jsonschema.Compile([]byte(`{"type":"number","multipleOf":`+m+`}`),
				jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact, Limits: grammar.Limits{ExprNodes: 1 << 16}})
			require.NoError(t, err)
			for i := -3; i <= 3; i++ {
				ok, err := oracle.Accepts(g, []byte(fmt.Sprintf("%g", float64(i*k)/4)))
				require.NoError(t, err)
				assert.True(t, ok, "%d × %s", i, m)
			}
			ok, err := oracle.Accepts(g, []byte(fmt.Sprintf("%g", float64(k)/4+0.25)))
			require.NoError(t, err)
			assert.False(t, ok)
		})
	}
}

// TestJSONSchemaContext checks that a cancelled context stops the compile,
// also when it is cancelled in the middle (by the loader, so no timer is
// involved), and that LoadRef receives the compile's context.
func TestJSONSchemaContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := jsonschema.CompileContext(ctx, []byte(`{"type":"string"}`), jsonschema.Options{})
	require.ErrorIs(t, err, context.Canceled)

	type key struct{}
	ctx, cancel = context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	defer cancel()
	var sawValue bool
	opts := jsonschema.Options{LoadRef: func(ctx context.Context, uri string) ([]byte, error) {
		sawValue = ctx.Value(key{}) == "v"
		cancel()
		return []byte(`{"type":"number","multipleOf":8.25}`), nil
	}}
	_, _, err = jsonschema.CompileContext(ctx, []byte(manyRefs(200)), opts)
	require.ErrorIs(t, err, context.Canceled)
	assert.True(t, sawValue)
}

// manyRefs is an object of n properties, each a remote number schema.
func manyRefs(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"$ref":"https://example.com/n%d.json"}`, i, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

// TestJSONSchemaUnevaluatedThroughNegation checks that constraints a branch
// holds only through a negation (the other alternatives of oneOf, a failed
// if, not) do not make keys or items evaluated.
func TestJSONSchemaUnevaluatedThroughNegation(t *testing.T) {
	for _, tc := range []schemaCase{
		{
			name:    "oneOf",
			schema:  `{"properties":{"foo":{"type":"string"}},"oneOf":[{"properties":{"bar":{"const":"bar"}},"required":["bar"]},{"properties":{"baz":{"const":"baz"}},"required":["baz"]}],"unevaluatedProperties":false}`,
			valid:   []string{`{"baz":"baz"}`, `{"bar":"bar"}`, `{"foo":"x","bar":"bar"}`},
			invalid: []string{`{"baz":"baz","bar":1}`, `{"bar":"bar","baz":1}`, `{"baz":"baz","qux":1}`},
		},
		{
			name:    "failed if",
			schema:  `{"if":{"properties":{"foo":{"const":"then"}},"required":["foo"]},"then":{"properties":{"bar":{"type":"string"}}},"else":{"properties":{"baz":{"type":"string"}}},"unevaluatedProperties":false}`,
			valid:   []string{`{"foo":"then","bar":"x"}`, `{"baz":"x"}`},
			invalid: []string{`{"foo":"else","baz":"x"}`, `{"foo":"then","baz":"x"}`},
		},
		{
			name:    "not not",
			schema:  `{"not":{"not":{"prefixItems":[{"type":"string"}]}},"unevaluatedItems":false}`,
			valid:   []string{`[]`},
			invalid: []string{`["foo"]`, `[1]`},
		},
		{
			name:    "not not properties",
			schema:  `{"not":{"not":{"properties":{"foo":{"type":"string"}}}},"unevaluatedProperties":false}`,
			valid:   []string{`{}`},
			invalid: []string{`{"foo":"x"}`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, _, err := jsonschema.Compile([]byte(tc.schema), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
			require.NoError(t, err)
			assertLanguage(t, g, tc.valid, tc.invalid)
		})
	}
}

// TestJSONSchemaDynamicRefSuite checks every dynamicRef case of the suite
// that rejects ["foo",42]: rein either refuses the schema or rejects it.
func TestJSONSchemaDynamicRefSuite(t *testing.T) {
	dir := datadir.Shared(t, "json-schema-test-suite")
	data, err := os.ReadFile(filepath.Join(dir, "tests", "draft2020-12", "dynamicRef.json"))
	require.NoError(t, err)
	var groups []struct {
		Description string          `json:"description"`
		Schema      json.RawMessage `json:"schema"`
		Tests       []struct {
			Data  json.RawMessage `json:"data"`
			Valid bool            `json:"valid"`
		} `json:"tests"`
	}
	require.NoError(t, json.Unmarshal(data, &groups))
	opts := jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact, LoadRef: suiteLoader(filepath.Join(dir, "remotes"))}
	checked := 0
	for _, g := range groups {
		for _, tc := range g.Tests {
			var buf bytes.Buffer
			require.NoError(t, json.Compact(&buf, tc.Data))
			if buf.String() != `["foo",42]` || tc.Valid {
				continue
			}
			checked++
			gr, _, err := jsonschema.Compile(g.Schema, opts)
			if err != nil {
				assert.ErrorIs(t, err, grammar.ErrUnsupported, g.Description)
				continue
			}
			ok, err := oracle.Accepts(gr, buf.Bytes())
			require.NoError(t, err)
			assert.False(t, ok, g.Description)
		}
	}
	assert.NotZero(t, checked)
}

// TestJSONSchemaDynamicRefScope checks that a $dynamicRef whose landing
// place depends on the dynamic scope is refused in strict mode and ignored
// with a warning in lenient mode.
func TestJSONSchemaDynamicRefScope(t *testing.T) {
	schema := `{"$id":"https://example.com/root","$defs":{"a":{"$id":"a","$dynamicAnchor":"x","type":"string"},` +
		`"b":{"$id":"b","$dynamicAnchor":"x","type":"integer"},"c":{"$id":"c","type":"array","items":{"$dynamicRef":"a#x"}}},"$ref":"c"}`
	_, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
	require.ErrorIs(t, err, grammar.ErrUnsupported)
	var e *grammar.Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "/$defs/c/items/$dynamicRef", e.Pointer)
	_, warnings, err := jsonschema.Compile([]byte(schema), jsonschema.Options{Lenient: true})
	require.NoError(t, err)
	assert.NotEmpty(t, warnings)
}

// TestJSONSchemaNotText checks what is not text: non-UTF-8 bytes are an
// error naming their offset; a lone surrogate escape in const or enum
// matches exactly its escape (it used to match a raw U+FFFD and reject the
// escape); elsewhere (keys, patterns, under length constraints) it is an
// error naming the pointer.
func TestJSONSchemaNotText(t *testing.T) {
	_, _, err := jsonschema.Compile([]byte("{\"const\":\"a\xffb\"}"), jsonschema.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "offset 11")

	for _, tc := range []schemaCase{
		{name: "const", schema: `{"const":"\ud800"}`, valid: []string{`"\ud800"`}, invalid: []string{"\"\uFFFD\"", `"\ufffd"`, `""`}},
		{name: "enum", schema: `{"enum":["ok","a\udc00b",1]}`, valid: []string{`"ok"`, `"a\udc00b"`, `1`}, invalid: []string{"\"a\uFFFDb\""}},
		{name: "in a const array", schema: `{"const":["\udbff",{"k":"\ud800\ud800"}]}`, valid: []string{`["\udbff",{"k":"\ud800\ud800"}]`}},
		{name: "a pair is a character", schema: `{"const":"\ud83d\ude00"}`, valid: []string{`"😀"`}, invalid: []string{`"\ud83d\ude00"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, _, err := jsonschema.Compile([]byte(tc.schema), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
			require.NoError(t, err)
			assertLanguage(t, g, tc.valid, tc.invalid)
		})
	}

	for schema, ptr := range map[string]string{
		`{"properties":{"\ud83dx":{}}}`:                 "/properties",
		`{"type":"string","pattern":"^\\ud800|\udfff"}`: "/pattern",
		`{"required":["\ud800"]}`:                       "/required/0",
		`{"maxLength":3,"const":"\ud800"}`:              "/const",
		`{"propertyNames":{"enum":["\ud800"]}}`:         "/propertyNames/enum",
		`{"allOf":[{"not":{"pattern":"\udc00"}}]}`:      "/allOf/0/not/pattern",
	} {
		_, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
		require.ErrorIs(t, err, grammar.ErrUnsupported, schema)
		var e *grammar.Error
		require.True(t, errors.As(err, &e))
		assert.Equal(t, ptr, e.Pointer, schema)
	}
}

// TestJSONSchemaDynamicRefLoadedLater: a $dynamicRef resolved by the only
// $dynamicAnchor of its name read so far is refused once a document loaded
// later brings a second one (the target then depends on the dynamic scope).
func TestJSONSchemaDynamicRefLoadedLater(t *testing.T) {
	docs := map[string]string{
		"https://example.com/tree":        `{"$id":"https://example.com/tree","$dynamicAnchor":"node","type":"object","properties":{"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}`,
		"https://example.com/strict-tree": `{"$id":"https://example.com/strict-tree","$dynamicAnchor":"node","$ref":"tree","unevaluatedProperties":false}`,
	}
	load := func(_ context.Context, uri string) ([]byte, error) {
		d, ok := docs[uri]
		if !ok {
			return nil, fmt.Errorf("no document %s", uri)
		}
		return []byte(d), nil
	}
	// Property a's tree is compiled, its $dynamicRef resolved, before
	// property b loads the second anchor.
	schema := `{"type":"object","properties":{"a":{"$ref":"https://example.com/tree"},"b":{"$ref":"https://example.com/strict-tree"}}}`
	_, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{LoadRef: load})
	require.ErrorIs(t, err, grammar.ErrUnsupported)
	assert.Contains(t, err.Error(), "$dynamicRef")

	// One tree alone resolves statically.
	_, _, err = jsonschema.Compile([]byte(`{"$ref":"https://example.com/tree"}`), jsonschema.Options{LoadRef: load})
	require.NoError(t, err)
	// Lenient: a warning instead.
	_, warns, err := jsonschema.Compile([]byte(schema), jsonschema.Options{LoadRef: load, Lenient: true})
	require.NoError(t, err)
	assert.NotEmpty(t, warns)
}

// TestJSONSchemaContextInAutomata: a compile cancelled while it builds a
// string automaton (pattern ∩ length ∩ not pattern) stops with the
// cancellation, never with "too large" (which Lenient mode would turn into
// a dropped constraint and a grammar that accepts too much). Every point of
// cancellation is tried, from the first check of the context to the last.
func TestJSONSchemaContextInAutomata(t *testing.T) {
	schema := []byte(`{"type":"string","pattern":"^[a-z]+@[a-z]+$","minLength":3,"maxLength":20,"not":{"pattern":"^a"}}`)
	for _, lenient := range []bool{false, true} {
		full := ctxtest.NewCountdown(1 << 62)
		_, _, err := jsonschema.CompileContext(full, schema, jsonschema.Options{Lenient: lenient})
		require.NoError(t, err)
		require.Greater(t, full.Calls(), int64(2), "the compile checks its context")
		for n := int64(1); n <= full.Calls(); n++ {
			g, warnings, err := jsonschema.CompileContext(ctxtest.NewCountdown(n), schema, jsonschema.Options{Lenient: lenient})
			if err == nil {
				require.NotNil(t, g)
				continue
			}
			require.ErrorIs(t, err, context.Canceled, "cancelled at check %d (lenient %v)", n, lenient)
			require.NotErrorIs(t, err, grammar.ErrUnsupported, "cancelled at check %d (lenient %v)", n, lenient)
			require.Empty(t, warnings, "cancelled at check %d (lenient %v): no constraint dropped", n, lenient)
			var ge *grammar.Error
			require.ErrorAs(t, err, &ge)
		}
	}
}
