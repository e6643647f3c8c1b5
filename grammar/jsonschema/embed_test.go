package jsonschema_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
)

func TestEmbed(t *testing.T) {
	schema := []byte(`{"type": "object", "properties": {"a": {"type": "string", "maxLength": 8}}}`)
	g, err := jsonschema.Embed(schema, grammar.Limits{})
	require.NoError(t, err)
	want, _, err := jsonschema.Compile(schema, jsonschema.Options{})
	require.NoError(t, err)
	assert.Equal(t, want.String(), g.String(), "Compile with the default options")

	_, err = jsonschema.Embed(schema, grammar.Limits{Repeat: 4})
	assert.ErrorIs(t, err, grammar.ErrLimit, "under the limits given")

	_, err = jsonschema.Embed([]byte(`{"type": "array", "items": {"type": "object", "properties": {"a": {}}}, "uniqueItems": true}`), grammar.Limits{})
	var e *grammar.Error
	require.ErrorAs(t, err, &e)
	assert.ErrorIs(t, err, grammar.ErrUnsupported, "strict: what cannot be enforced is an error")
	assert.Equal(t, "/uniqueItems", e.Pointer)
}

// ExampleEmbed gives GBNF's %json the JSON Schema compiler it needs.
func ExampleEmbed() {
	src := `root ::= "weather: " %json {"type": "object", "properties": {"city": {"enum": ["Paris", "Tokyo"]}}, "required": ["city"], "additionalProperties": false}`
	g, err := grammar.ParseGBNFOptions(src, grammar.GBNFOptions{JSONSchema: jsonschema.Embed})
	if err != nil {
		panic(err)
	}
	fmt.Print(g)
	// Output:
	// root ::= ("weather: " json-root)
	// json-ws ::= (("\n" | "\r\n"){0,1} [\x09 ]{0,40})
	// json-root ::= ("{" json-ws "\"city\"" json-ws ":" json-ws json-properties-city json-ws "}")
	// json-properties-city ::= ("\"Paris\"" | "\"Tokyo\"")
}
