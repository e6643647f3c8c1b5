package jsonschema_test

import (
	"fmt"

	"github.com/reinlm/rein/grammar/jsonschema"
)

func ExampleCompile() {
	schema := []byte(`{
		"type": "object",
		"properties": {
			"name": {"type": "string", "maxLength": 20},
			"age": {"type": "integer", "minimum": 0, "maximum": 150},
			"tags": {"type": "array", "items": {"enum": ["a", "b"]}, "uniqueItems": true}
		},
		"required": ["name"],
		"additionalProperties": false
	}`)

	// uniqueItems cannot be enforced by a grammar: strict mode says where.
	_, _, err := jsonschema.Compile(schema, jsonschema.Options{})
	fmt.Println(err)

	// Lenient mode ignores it and says so.
	g, warnings, err := jsonschema.Compile(schema, jsonschema.Options{Lenient: true, Whitespace: jsonschema.WhitespaceCompact})
	if err != nil {
		panic(err)
	}
	for _, w := range warnings {
		fmt.Println("warning:", w)
	}
	fmt.Println(g.Rules[g.Root].Name, "has", len(g.Rules), "rules")
	// Output:
	// jsonschema: /properties/tags/uniqueItems: uniqueItems: uniqueness of array items cannot be enforced by a grammar
	// warning: /properties/tags/uniqueItems: uniqueItems: uniqueness of array items cannot be enforced by a grammar (ignored)
	// root has 6 rules
}

func ExampleValidate() {
	schema := []byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`)
	for _, doc := range []string{`{"n":3}`, `{"n":0}`, `{}`} {
		ok, err := jsonschema.Validate(schema, []byte(doc), jsonschema.Options{})
		if err != nil {
			panic(err)
		}
		fmt.Println(doc, ok)
	}
	// Output:
	// {"n":3} true
	// {"n":0} false
	// {} false
}
