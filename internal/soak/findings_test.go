package soak_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/oracle"
)

// TestSoakFindings pins the invalid documents the soak (and its independent
// cross-check) found strict mode accepting, each cut down to a small schema:
// strict mode must refuse the schema or the document.
func TestSoakFindings(t *testing.T) {
	tests := []struct {
		name, schema, doc string
	}{
		// MaskBench Handwritten---mod302 generated its not-const witness.
		{"not const object", `{"type":"object","not":{"const":{"a":{}}}}`, `{"a":{}}`},
		{"not const empty object", `{"allOf":[{"$ref":"#/$defs/w"},{"not":{"const":{}}}],"$defs":{"w":{"type":"object","properties":{"a":{"$ref":"#/$defs/w"}},"additionalProperties":false}}}`, `{}`},
		// The suite's "unevaluatedProperties with oneOf".
		{"unevaluatedProperties beside oneOf", `{"properties":{"foo":{"type":"string"}},"oneOf":[{"properties":{"bar":{"const":"bar"}},"required":["bar"]},{"properties":{"baz":{"const":"baz"}},"required":["baz"]}],"unevaluatedProperties":false}`, `{"bar":"bar","baz":""}`},
		// The suite's "$dynamicRef avoids the root of each schema, but scopes are still registered".
		{"dynamicRef scopes", `{"$id":"https://test.json-schema.org/dynamic-ref-avoids-root-of-each-schema/base","$ref":"first#/$defs/stuff","$defs":{"first":{"$id":"first","$defs":{"stuff":{"$ref":"second#/$defs/stuff"},"length":{"maxLength":1}}},"second":{"$id":"second","$defs":{"stuff":{"$ref":"third#/$defs/stuff"},"length":{"$dynamicAnchor":"length","maxLength":2}}},"third":{"$id":"third","$defs":{"stuff":{"$dynamicRef":"#length"},"length":{"$dynamicAnchor":"length"}}}}}`, `"abc"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, _, err := jsonschema.Compile([]byte(tc.schema), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
			if err != nil {
				// Refusing what cannot be enforced is sound; any
				// other error is not what this test is about.
				if !errors.Is(err, grammar.ErrUnsupported) && !errors.Is(err, grammar.ErrLimit) {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			ok, err := oracle.Accepts(g, []byte(tc.doc))
			require.NoError(t, err)
			assert.False(t, ok, "strict mode accepts %s", tc.doc)
		})
	}
}
