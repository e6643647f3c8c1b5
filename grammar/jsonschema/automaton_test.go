package jsonschema_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/jsonschema"
)

// TestJSONSchemaStringAutomata pins the language of the string constraints
// that go through code-point automata and state elimination (not pattern,
// pattern with length bounds, excluded values, keys that are none of the
// declared names), including the JSON spelling of the characters that need
// escapes: the expression built from fsm's regexp must spell each character
// the way every other string rule does.
func TestJSONSchemaStringAutomata(t *testing.T) {
	for _, c := range []struct {
		name, schema   string
		valid, invalid []string
	}{
		{
			name:    "not pattern",
			schema:  `{"type":"string","not":{"pattern":"^a|\"$"}}`,
			valid:   []string{`""`, `"b"`, `"ba"`, `"\n"`, `"\\"`, `"\"x"`, `"é世"`, `"\u0001"`, `"\u001f"`, `"\t\b\f\r"`},
			invalid: []string{`"a"`, `"ab"`, `"x\""`, `"\""`, `"\u0061"`, `"\/"`, `"\u000A"`},
		},
		{
			name:    "pattern and length",
			schema:  `{"type":"string","pattern":"[é\"\\\\]","minLength":2,"maxLength":3,"not":{"pattern":"^x"}}`,
			valid:   []string{`"aé"`, `"\"\""`, `"\\b"`, `"\n\\\n"`, `"é\u0000"`},
			invalid: []string{`"é"`, `"aaaé"`, `"ab"`, `"xé"`, `"\u00e9a"`, `"\\"`},
		},
		{
			name:    "excluded values",
			schema:  `{"type":"string","maxLength":2,"not":{"enum":["x","\n","\"\\"]}}`,
			valid:   []string{`""`, `"y"`, `"xx"`, `"\n\n"`, `"\\\""`, `"\""`},
			invalid: []string{`"x"`, `"\n"`, `"\"\\"`, `"abc"`},
		},
		{
			name:    "keys none of the declared names",
			schema:  `{"type":"object","properties":{"a\"b":{"type":"string"},"é":{"type":"string"}},"additionalProperties":{"type":"integer"}}`,
			valid:   []string{`{"a\"b":"s"}`, `{"é":"s"}`, `{"ab":1}`, `{"a\"":1}`, `{"éé":1}`, `{"\n":1}`},
			invalid: []string{`{"a\"b":1}`, `{"é":1}`, `{"ab":"s"}`, `{"\u00e9":1}`},
		},
		{
			name:    "keys matching no pattern",
			schema:  `{"type":"object","patternProperties":{"^\\d+$":{"type":"integer"},"é":{"type":"string"}},"additionalProperties":{"type":"boolean"}}`,
			valid:   []string{`{"12":3}`, `{"xéx":"s"}`, `{"x":true}`, `{"1a":false}`, `{"\t":true}`},
			invalid: []string{`{"12":"s"}`, `{"é":1}`, `{"x":1}`, `{"1a":1}`},
		},
		{
			name:    "keys neither declared nor matching a pattern",
			schema:  `{"type":"object","properties":{"a\"b":{"type":"string"}},"patternProperties":{"é$":{"type":"string"}},"additionalProperties":{"type":"integer"}}`,
			valid:   []string{`{"a\"b":"s"}`, `{"xé":"s"}`, `{"a\"":1}`, `{"éx":1}`, `{"\u0001":1}`},
			invalid: []string{`{"a\"b":1}`, `{"xé":1}`, `{"ab":"s"}`, `{"\u00e9":1}`, `{"\u0061":1}`},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, _, err := jsonschema.Compile([]byte(c.schema), jsonschema.Options{})
			require.NoError(t, err)
			assertLanguage(t, g, c.valid, c.invalid)
		})
	}
}
