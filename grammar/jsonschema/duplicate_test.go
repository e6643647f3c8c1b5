package jsonschema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/jsonschema"
)

// TestDuplicateKeys compiles schemas that write a key twice: each must read
// as the schema that keeps the key's last value in its first place (as
// JSON.parse and Go's encoding/json read it), with a warning at the key.
// Before, some keywords took the last value and others took both: two $ref
// were both applied, two schemas for one pattern both constrained its keys,
// and a const object that repeated a key accepted nothing.
func TestDuplicateKeys(t *testing.T) {
	const defs = `"$defs":{"s":{"type":"string"},"i":{"type":"integer"}}`
	var many, manyLast []string // a large object (its keys indexed by a map)
	for i := range 10 {
		many = append(many, fmt.Sprintf(`"p%d":{"type":"string"}`, i))
		manyLast = append(manyLast, fmt.Sprintf(`"p%d":{"type":"string"}`, i))
	}
	manyLast[3] = `"p3":{"type":"boolean"}`
	many = append(many, `"p3":{"type":"boolean"}`)
	tests := []struct {
		name, schema, last, pointer string
	}{
		{"keyword", `{"not":{"type":"string","type":"integer"}}`, `{"not":{"type":"integer"}}`, "/not/type"},
		{"$ref", `{` + defs + `,"$ref":"#/$defs/s","$ref":"#/$defs/i"}`, `{` + defs + `,"$ref":"#/$defs/i"}`, "/$ref"},
		{"pattern", `{"patternProperties":{"^a":{"type":"string"},"^a":{"type":"integer"}}}`, `{"patternProperties":{"^a":{"type":"integer"}}}`, "/patternProperties/^a"},
		{"property keeps its place", `{"properties":{"a":{"type":"string"},"b":{"type":"integer"},"a":{"type":"boolean"}},"required":["a","b"]}`,
			`{"properties":{"a":{"type":"boolean"},"b":{"type":"integer"}},"required":["a","b"]}`, "/properties/a"},
		{"large object", `{"properties":{` + strings.Join(many, ",") + `}}`, `{"properties":{` + strings.Join(manyLast, ",") + `}}`, "/properties/p3"},
		{"const", `{"const":{"a":1,"a":2}}`, `{"const":{"a":2}}`, "/const/a"},
		{"$ref target", `{"$defs":{"x":{"type":"string"},"x":{"type":"integer"}},"$ref":"#/$defs/x"}`, `{"$defs":{"x":{"type":"integer"}},"$ref":"#/$defs/x"}`, "/$defs/x"},
		{"escaped pointer", `{"properties":{"a/b":{"type":"string"},"a/b":{"type":"null"}}}`, `{"properties":{"a/b":{"type":"null"}}}`, "/properties/a~1b"},
	}
	opts := jsonschema.Options{Order: jsonschema.OrderDeclared}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, warnings, err := jsonschema.Compile([]byte(tc.schema), opts)
			require.NoError(t, err)
			want, none, err := jsonschema.Compile([]byte(tc.last), opts)
			require.NoError(t, err)
			require.Empty(t, none)
			assert.Equal(t, want.String(), g.String())
			require.Len(t, warnings, 1)
			assert.Equal(t, tc.pointer, warnings[0].Pointer)
			assert.Contains(t, warnings[0].Msg, "duplicate key")
		})
	}

	// An instance keeps every member: Validate judges each, as the grammar
	// does (the README's Limits: documents that repeat an object key).
	for doc, valid := range map[string]bool{`{"a":"x","a":"y"}`: true, `{"a":1,"a":"x"}`: false, `{"a":"x","a":1}`: false} {
		ok, err := jsonschema.Validate([]byte(`{"properties":{"a":{"type":"string"}}}`), []byte(doc), jsonschema.Options{})
		require.NoError(t, err)
		assert.Equal(t, valid, ok, doc)
	}
	ok, err := jsonschema.Validate([]byte(`{"minProperties":3}`), []byte(`{"b":1,"a":2,"b":3}`), jsonschema.Options{})
	require.NoError(t, err)
	assert.True(t, ok, "members are counted")
}
