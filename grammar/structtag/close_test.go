package structtag_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/grammar/structtag"
)

// TestCloseObjects closes the object schemas at instance locations that
// declare properties, themselves or in what they apply in place, and say
// nothing of others, and nothing else: no subschema applied in place
// (their instance location's unevaluatedProperties sees them) and none
// below not.
func TestCloseObjects(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"declared", `{"type":"object","properties":{"a":{}}}`, `{"type":"object","properties":{"a":{}},"unevaluatedProperties":false}`},
		{"pattern properties", `{"patternProperties":{"^x":{}}}`, `{"patternProperties":{"^x":{}},"unevaluatedProperties":false}`},
		{"says something", `{"properties":{"a":{}},"additionalProperties":true}`, `{"properties":{"a":{}},"additionalProperties":true}`},
		{"says unevaluated", `{"properties":{"a":{}},"unevaluatedProperties":{"type":"string"}}`, `{"properties":{"a":{}},"unevaluatedProperties":{"type":"string"}}`},
		{"declares none", `{"type":"object"}`, `{"type":"object"}`},
		{"tuples left open", `{"prefixItems":[{"properties":{"a":{}}}]}`, `{"prefixItems":[{"properties":{"a":{}},"unevaluatedProperties":false}]}`},
		{"in place", ` {"$defs":{"p":{"properties":{"b":{}}}},"anyOf":[{"properties":{"c":{}}}]} `,
			`{"$defs":{"p":{"properties":{"b":{}}}},"anyOf":[{"properties":{"c":{}}}],"unevaluatedProperties":false}`},
		{"through a $ref", `{"$defs":{"p":{"properties":{"b":{}}}},"properties":{"x":{"$ref":"#/$defs/p"}}}`,
			`{"$defs":{"p":{"properties":{"b":{}}}},"properties":{"x":{"$ref":"#/$defs/p","unevaluatedProperties":false}},"unevaluatedProperties":false}`},
		{"not below not", `{"not":{"properties":{"a":{}}},"properties":{"b":{"properties":{"c":{}}}}}`,
			`{"not":{"properties":{"a":{}}},"properties":{"b":{"properties":{"c":{}},"unevaluatedProperties":false}},"unevaluatedProperties":false}`},
		{"an unknown target below not", `{"properties":{"a":{}},"not":{"$ref":"#x"}}`, `{"properties":{"a":{}},"not":{"$ref":"#x"}}`},
		{"not schemas", `{"enum":[{"properties":{"a":1}}],"const":{"properties":{}}}`, `{"enum":[{"properties":{"a":1}}],"const":{"properties":{}}}`},
		{"boolean", `true`, `true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := structtag.CloseObjects([]byte(tt.in), grammar.Limits{})
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
	_, err := structtag.CloseObjects([]byte(`{"properties":`), grammar.Limits{})
	assert.Error(t, err)
	_, err = structtag.CloseObjects([]byte(`[[[[1]]]]`), grammar.Limits{SchemaBytes: 4})
	assert.ErrorIs(t, err, grammar.ErrLimit)
}

// TestStrictNeverWidens compiles schemas in strict mode (a json_schema
// format) and checks each document against the schema as written
// (jsonschema.Validate): strict mode may refuse a valid document that
// holds an undeclared property, but never accepts one the schema refuses.
// Closing a subschema below not, if, oneOf or a contains with maxContains
// would: it matches less, and the negation, the branch count or the
// contains count turns around. Closing each allOf branch or $ref target
// would refuse what their properties declare together; their instance
// location is closed instead, and sees them all.
func TestStrictNeverWidens(t *testing.T) {
	tests := []struct {
		name, schema string
		accept       []string // valid, and accepted in strict mode
		reject       []string // refused in strict mode (valid or not)
	}{
		{"not", `{"type":"object","not":{"properties":{"a":{"type":"string"}},"required":["a"]}}`,
			[]string{`{"a":1}`, `{}`}, []string{`{"a":"x","b":1}`, `{"a":"x"}`}},
		{"oneOf", `{"type":"object","oneOf":[{"properties":{"a":{"type":"integer"}},"required":["a"]},{"properties":{"b":{"type":"integer"}},"required":["b"]}]}`,
			[]string{`{"a":1}`, `{"b":2}`}, []string{`{"a":1,"b":2}`, `{}`, `{"a":1,"c":1}`}},
		{"if", `{"type":"object","if":{"properties":{"a":{"const":1}}},"then":{"required":["b"]}}`,
			[]string{`{"a":1,"b":2}`, `{"a":2}`}, []string{`{"a":1,"c":2}`, `{"a":1}`}},
		{"maxContains", `{"type":"array","contains":{"type":"object","properties":{"a":{}},"required":["a"]},"maxContains":1}`,
			[]string{`[{"a":1}]`, `[{"a":1},{"b":2}]`}, []string{`[{"a":1},{"a":1,"b":2}]`, `[]`}},
		{"not through a $ref", `{"$defs":{"o":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}},"type":"object","properties":{"x":{"$ref":"#/$defs/o"},"y":{"not":{"$ref":"#/$defs/o"}}}}`,
			[]string{`{"x":{"a":"s"},"y":{"b":1}}`}, []string{`{"y":{"a":"s","b":1}}`, `{"x":{"a":"s","b":1}}`}},
		{"allOf", `{"allOf":[{"properties":{"a":{}}},{"properties":{"b":{}}}]}`,
			[]string{`{"a":1}`, `{"a":1,"b":2}`, `{}`}, []string{`{"c":1}`}},
		{"dependentSchemas", `{"properties":{"a":{"type":"integer"}},"dependentSchemas":{"a":{"properties":{"b":{"type":"string"}}}}}`,
			[]string{`{"a":1,"b":"x"}`, `{"a":1}`}, []string{`{"a":1,"c":1}`}},
		{"a $ref target", `{"$defs":{"p":{"type":"object","properties":{"name":{"type":"string"}}}},"type":"object","properties":{"p":{"$ref":"#/$defs/p"},"q":{"allOf":[{"$ref":"#/$defs/p"},{"properties":{"age":{"type":"integer"}}}]}}}`,
			[]string{`{"p":{"name":"x"},"q":{"name":"y","age":3}}`}, []string{`{"p":{"name":"x","age":3}}`, `{"q":{"nick":"y"}}`}},
		{"a tuple", `{"type":"array","prefixItems":[{"type":"integer"}]}`,
			[]string{`[1]`, `[]`}, []string{`[1,2]`}},
		{"a tuple below not", `{"type":"array","not":{"prefixItems":[{"type":"integer"}]}}`,
			[]string{}, []string{`[1,"x"]`, `[1]`}},
		// References that strict mode cannot resolve as jsonschema does
		// leave the schema as written: a draft-4 id or an $id below the
		// root moves the base, and an anchor, the root's $id, a
		// $dynamicRef, a percent-encoded pointer or an index written
		// "00" name targets whose not would go unseen.
		{"a draft-4 id below the root", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"id":"http://ex.com/a.json","type":"object","properties":{"q":{"type":"object","properties":{"k":{"type":"integer"}},"required":["k"]},"r":{"not":{"$ref":"#/properties/q"}}}},"q":{"type":"object"}}}`,
			[]string{`{"a":{"r":{"z":2}}}`}, []string{`{"a":{"r":{"k":1,"z":2}}}`, `{"a":{"r":{"k":1}}}`}},
		{"an $id below the root", `{"type":"object","properties":{"a":{"$id":"http://ex.com/a.json","type":"object","properties":{"q":{"type":"object","properties":{"k":{"type":"integer"}},"required":["k"]},"r":{"not":{"$ref":"#/properties/q"}}}},"q":{"type":"object"}}}`,
			nil, []string{`{"a":{"r":{"k":1,"z":2}}}`}},
		{"an anchor", `{"$defs":{"T":{"$anchor":"T","not":{"$ref":"#/properties/q"}}},"type":"object","properties":{"q":{"type":"object","properties":{"k":{"type":"integer"}},"required":["k"]},"r":{"$ref":"#T"}}}`,
			[]string{`{"r":{"z":2}}`}, []string{`{"r":{"k":1,"z":2}}`}},
		{"the root's $id", `{"$id":"http://ex.com/s","$defs":{"T":{"not":{"$ref":"#/properties/q"}}},"type":"object","properties":{"q":{"type":"object","properties":{"k":{"type":"integer"}},"required":["k"]},"r":{"$ref":"http://ex.com/s#/$defs/T"}}}`,
			nil, []string{`{"r":{"k":1,"z":2}}`}},
		{"a $dynamicRef", `{"$defs":{"T":{"not":{"$ref":"#/properties/q"}}},"type":"object","properties":{"q":{"type":"object","properties":{"k":{"type":"integer"}},"required":["k"]},"r":{"$dynamicRef":"#/$defs/T"}}}`,
			nil, []string{`{"r":{"k":1,"z":2}}`}},
		{"a percent-encoded pointer", `{"$defs":{"T":{"not":{"$ref":"#/properties/q"}}},"type":"object","properties":{"q":{"type":"object","properties":{"k":{"type":"integer"}},"required":["k"]},"r":{"$ref":"#/%24defs/T"}}}`,
			nil, []string{`{"r":{"k":1,"z":2}}`}},
		// A reference into a value that is not a schema (a const, a map of
		// properties) is not followed, and nothing is inserted there.
		{"into a const", `{"type":"object","properties":{"c":{"const":{"properties":{"x":{"properties":{"k":{}}}}}},"d":{"$ref":"#/properties/c/const"}}}`,
			[]string{`{"c":{"properties":{"x":{"properties":{"k":{}}}}}}`}, []string{`{"c":{"properties":{"x":{"properties":{"k":{}},"unevaluatedProperties":false}}}}`}},
		{"into a map of properties", `{"type":"object","properties":{"n":{"not":{"type":"object","properties":{"properties":{"properties":{"properties":{}}}}}},"r":{"$ref":"#/properties/n/not/properties"}}}`,
			nil, []string{`{"n":{"properties":{"unevaluatedProperties":1}}}`}},
	}
	// Closed where its instance is, a oneOf of branches that no required
	// property tells apart accepts nothing: the branch that matches alone
	// holds a property that only the other declares.
	_, err := structtag.Compile([]byte(`{"type":"json_schema","json_schema":{"type":"object","oneOf":[{"properties":{"a":{"type":"integer"}}},{"properties":{"b":{"type":"integer"}}}]}}`), structtag.Options{})
	assert.ErrorContains(t, err, "accepts no value")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			accepts := recognizer(t, `{"type":"json_schema","json_schema":`+tt.schema+`}`, structtag.Options{})
			for _, doc := range tt.accept {
				valid, err := jsonschema.Validate([]byte(tt.schema), []byte(doc), jsonschema.Options{})
				require.NoError(t, err)
				require.True(t, valid, "%s is valid", doc)
				assert.True(t, accepts(doc), "%s is accepted", doc)
			}
			for _, doc := range tt.reject {
				assert.False(t, accepts(doc), "%s is refused", doc)
			}
			// Every document the schema refuses is refused.
			for _, doc := range append(tt.accept, tt.reject...) {
				valid, err := jsonschema.Validate([]byte(tt.schema), []byte(doc), jsonschema.Options{})
				require.NoError(t, err)
				if !valid {
					assert.False(t, accepts(doc), "%s is invalid", doc)
				}
			}
		})
	}
}
