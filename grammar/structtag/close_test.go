package structtag_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/structtag"
)

// TestCloseObjects closes the object schemas that declare properties and
// say nothing of others, wherever subschemas sit, and nothing else.
func TestCloseObjects(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"declared", `{"type":"object","properties":{"a":{}}}`, `{"type":"object","properties":{"a":{}},"unevaluatedProperties":false}`},
		{"pattern properties", `{"patternProperties":{"^x":{}}}`, `{"patternProperties":{"^x":{}},"unevaluatedProperties":false}`},
		{"says something", `{"properties":{"a":{}},"additionalProperties":true}`, `{"properties":{"a":{}},"additionalProperties":true}`},
		{"says unevaluated", `{"properties":{"a":{}},"unevaluatedProperties":{"type":"string"}}`, `{"properties":{"a":{}},"unevaluatedProperties":{"type":"string"}}`},
		{"declares none", `{"type":"object"}`, `{"type":"object"}`},
		{"tuples left open", `{"prefixItems":[{"properties":{"a":{}}}]}`, `{"prefixItems":[{"properties":{"a":{}},"unevaluatedProperties":false}]}`},
		{"nested", ` {"$defs":{"p":{"properties":{"b":{}}}},"anyOf":[{"properties":{"c":{}}}]} `,
			`{"$defs":{"p":{"properties":{"b":{}},"unevaluatedProperties":false}},"anyOf":[{"properties":{"c":{}},"unevaluatedProperties":false}]}`},
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
