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
			"tags": {"type": "array", "items": {"enum": ["a", "b"]}, "uniqueItems": true},
			"points": {"type": "array", "items": {"type": "object"}, "uniqueItems": true}
		},
		"required": ["name"],
		"additionalProperties": false
	}`)

	// Distinct tags are enforced (the matcher checks items as they
	// complete); distinct objects cannot be: strict mode says where.
	_, _, err := jsonschema.Compile(schema, jsonschema.Options{})
	fmt.Println(err)

	// Lenient mode ignores what it cannot enforce and says so.
	g, warnings, err := jsonschema.Compile(schema, jsonschema.Options{Lenient: true, Whitespace: jsonschema.WhitespaceCompact})
	if err != nil {
		panic(err)
	}
	for _, w := range warnings {
		fmt.Println("warning:", w)
	}
	fmt.Println(g.Rules[g.Root].Name, "has", len(g.Rules), "rules")
	// Output:
	// jsonschema: /properties/points/uniqueItems: uniqueItems: distinct items cannot be enforced: an item may be a constrained object or array (they can for items that may be any value, or are strings, any number or integer, or listed scalars)
	// warning: /properties/points/uniqueItems: uniqueItems: distinct items cannot be enforced: an item may be a constrained object or array (they can for items that may be any value, or are strings, any number or integer, or listed scalars) (ignored)
	// root has 34 rules
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
