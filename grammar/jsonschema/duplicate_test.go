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
		name, schema, last string
		pointers           []string // of the duplicate-key warnings
	}{
		{"keyword", `{"not":{"type":"string","type":"integer"}}`, `{"not":{"type":"integer"}}`, []string{"/not/type"}},
		{"$ref", `{` + defs + `,"$ref":"#/$defs/s","$ref":"#/$defs/i"}`, `{` + defs + `,"$ref":"#/$defs/i"}`, []string{"/$ref"}},
		{"pattern", `{"patternProperties":{"^a":{"type":"string"},"^a":{"type":"integer"}}}`, `{"patternProperties":{"^a":{"type":"integer"}}}`, []string{"/patternProperties/^a"}},
		{"property keeps its place", `{"properties":{"a":{"type":"string"},"b":{"type":"integer"},"a":{"type":"boolean"}},"required":["a","b"]}`,
			`{"properties":{"a":{"type":"boolean"},"b":{"type":"integer"}},"required":["a","b"]}`, []string{"/properties/a"}},
		{"large object", `{"properties":{` + strings.Join(many, ",") + `}}`, `{"properties":{` + strings.Join(manyLast, ",") + `}}`, []string{"/properties/p3"}},
		{"const", `{"const":{"a":1,"a":2}}`, `{"const":{"a":2}}`, []string{"/const/a"}},
		{"$ref target", `{"$defs":{"x":{"type":"string"},"x":{"type":"integer"}},"$ref":"#/$defs/x"}`, `{"$defs":{"x":{"type":"integer"}},"$ref":"#/$defs/x"}`, []string{"/$defs/x"}},
		{"escaped pointer", `{"properties":{"a/b":{"type":"string"},"a/b":{"type":"null"}}}`, `{"properties":{"a/b":{"type":"null"}}}`, []string{"/properties/a~1b"}},
		{"every key", `{"type":"string","type":"integer","minimum":1,"minimum":2,"type":"number"}`, `{"type":"number","minimum":2}`, []string{"/type", "/minimum"}},
		// The keyword's own warning stays: the unknown format that counts
		// is not checked.
		{"warned keyword", `{"type":"string","format":"foo","format":"bar"}`, `{"type":"string","format":"bar"}`, []string{"/format"}},
	}
	opts := jsonschema.Options{Order: jsonschema.OrderDeclared}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, warnings, err := jsonschema.Compile([]byte(tc.schema), opts)
			require.NoError(t, err)
			want, wantWarnings, err := jsonschema.Compile([]byte(tc.last), opts)
			require.NoError(t, err)
			assert.Equal(t, want.String(), g.String())
			var repeats []string
			var others []jsonschema.Warning
			for _, w := range warnings {
				if strings.Contains(w.Msg, "duplicate key") {
					repeats = append(repeats, w.Pointer)
				} else {
					others = append(others, w)
				}
			}
			assert.Equal(t, tc.pointers, repeats)
			assert.Equal(t, wantWarnings, others)
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
