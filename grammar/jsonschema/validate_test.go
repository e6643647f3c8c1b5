package jsonschema_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/jsonschema"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		schema, doc string
		want        bool
	}{
		{`{"type":"integer","minimum":3}`, `4`, true},
		{`{"type":"integer","minimum":3}`, `2`, false},
		{`{"type":"integer"}`, `"x"`, false},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, `{"a":"x","b":1}`, true},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, `{"b":1}`, false},
		{`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, `{"a":"x","b":1}`, false},
		{`{"type":"array","items":{"$ref":"#/$defs/n"},"$defs":{"n":{"enum":[1,2]}}}`, `[1,2,1]`, true},
		{`{"type":"array","items":{"$ref":"#/$defs/n"},"$defs":{"n":{"enum":[1,2]}}}`, `[1,3]`, false},
		{`{"anyOf":[{"type":"string","pattern":"^a+$"},{"type":"null"}]}`, `"aab"`, false},
		{`{"anyOf":[{"type":"string","pattern":"^a+$"},{"type":"null"}]}`, `null`, true},
	}
	for _, tc := range tests {
		got, err := jsonschema.Validate([]byte(tc.schema), []byte(tc.doc), jsonschema.Options{})
		require.NoError(t, err, "%s", tc.schema)
		assert.Equal(t, tc.want, got, "%s on %s", tc.schema, tc.doc)
	}
	_, err := jsonschema.Validate([]byte(`{"type":"integer"}`), []byte(`{`), jsonschema.Options{})
	assert.Error(t, err)
	_, err = jsonschema.Validate([]byte(`{"type":`), []byte(`1`), jsonschema.Options{})
	assert.Error(t, err)
}
