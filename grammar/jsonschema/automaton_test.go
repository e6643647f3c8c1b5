package jsonschema_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
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

// TestJSONSchemaPatternStates checks that Limits.PatternStates bounds the
// string automata: past it a pattern-heavy constraint is unsupported, with
// an error wrapping ErrUnsupported and ErrLimit that names the field (a
// warning in Lenient mode), and the default compiles the same schema.
func TestJSONSchemaPatternStates(t *testing.T) {
	for _, tc := range []struct {
		name, schema, pointer string
		// Lenient mode drops the constraint alone: valid is accepted,
		// invalid (against the constraints that stay) rejected.
		valid, invalid []string
	}{
		{
			"pattern, length and not pattern", `{"type":"string","pattern":"^[a-f0-9]{8}-[a-f0-9]{4}$","minLength":13,"not":{"pattern":"^0000"}}`, "/pattern",
			[]string{`"0123abcd-ef01"`}, []string{`1`},
		},
		{
			"patternProperties", `{"type":"object","patternProperties":{"^[a-z]{2,12}$":{"type":"integer"},"^x[0-9]{3,9}$":{"type":"string"}},"additionalProperties":false}`, "/patternProperties",
			[]string{`{}`}, []string{`[]`},
		},
		{
			"multipleOf", `{"type":"number","minimum":0,"multipleOf":0.07}`, "/multipleOf",
			[]string{`0.14`, `0.1`, `3`}, []string{`-0.14`, `"a"`},
		},
		{
			"multipleOf, not an integer", `{"type":"number","not":{"type":"integer"},"minimum":0,"multipleOf":0.07}`, "/multipleOf",
			[]string{`0.14`, `0.1`}, []string{`3`, `-0.14`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := jsonschema.Compile([]byte(tc.schema), jsonschema.Options{})
			require.NoError(t, err, "the default Limits.PatternStates compiles it")

			small := jsonschema.Options{Limits: grammar.Limits{PatternStates: 8}}
			_, _, err = jsonschema.Compile([]byte(tc.schema), small)
			require.Error(t, err)
			assert.ErrorIs(t, err, grammar.ErrUnsupported)
			assert.ErrorIs(t, err, grammar.ErrLimit)
			var e *grammar.Error
			require.True(t, errors.As(err, &e), "%v", err)
			assert.Contains(t, e.Msg, "Limits.PatternStates (8)")
			assert.Contains(t, e.Pointer, tc.pointer)

			small.Lenient = true
			g, warnings, err := jsonschema.Compile([]byte(tc.schema), small)
			require.NoError(t, err, "Lenient drops the constraint")
			require.NotEmpty(t, warnings)
			assert.Contains(t, warnings[0].Msg, "Limits.PatternStates (8)")
			assertLanguage(t, g, tc.valid, tc.invalid)
		})
	}
}
