package soak_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/masktest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

var embeddedGPT2 = sync.OnceValues(gpt2.Vocab)

// FuzzSchemaDocument is the soak with fuzzed schemas: a schema that compiles
// (under small limits) against GPT-2's embedded vocabulary is decoded once
// with random logits seeded by the input, and the document must end, be
// JSON, and be valid under the schema by the front-end's own validator.
func FuzzSchemaDocument(f *testing.F) {
	voc, err := embeddedGPT2()
	require.NoError(f, err)
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"integer","minimum":3},"b":{"type":"string","maxLength":4}},"required":["a"]}`,
		`{"type":"array","items":{"enum":[1,"x",null]},"minItems":1,"maxItems":3,"uniqueItems":true}`,
		`{"anyOf":[{"type":"string","pattern":"^[a-c]+$"},{"type":"number","multipleOf":0.5,"maximum":10}]}`,
		`{"properties":{"foo":{"type":"string"}},"oneOf":[{"properties":{"bar":{"const":"bar"}},"required":["bar"]},{"properties":{"baz":{"const":"baz"}},"required":["baz"]}],"unevaluatedProperties":false}`,
		`{"type":"object","minProperties":2}`,
		`{"type":"object","propertyNames":{"enum":["a","b"]},"additionalProperties":{"type":"boolean"}}`,
		`{"if":{"properties":{"a":{"const":1}}},"then":{"required":["b"]},"else":{"not":{"required":["c"]}}}`,
		`{"prefixItems":[{"type":"integer"},{"type":"string"}],"items":false}`,
		`{"$defs":{"n":{"anyOf":[{"type":"null"},{"type":"array","items":{"$ref":"#/$defs/n"},"maxItems":2}]}},"$ref":"#/$defs/n"}`,
	} {
		f.Add([]byte(s), uint64(1))
	}
	f.Fuzz(func(t *testing.T, schema []byte, seed uint64) {
		if len(schema) > 4096 {
			return
		}
		opts := jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact, Limits: grammar.Limits{Rules: 500, ExprNodes: 1 << 16,
			Repeat: 256, Alternatives: 32, Enum: 100}}
		g, _, err := jsonschema.Compile(schema, opts)
		if err != nil {
			return // jsonschema.FuzzCompile checks the errors
		}
		c, err := mask.Compile(g, voc, mask.Options{Limits: grammar.Limits{RuleStates: 2000, TotalStates: 10000, NFAStates: 20000}})
		if err != nil {
			return
		}
		rng := rand.New(rand.NewPCG(seed, 7))
		out, err := masktest.Walk(c.NewMatcher(), rng, 24, 0.3, nil)
		if err != nil {
			if errors.Is(err, grammar.ErrLimit) {
				return
			}
			t.Fatalf("schema %s: decoding failed: %v", schema, err)
		}
		if !json.Valid(out) {
			t.Fatalf("schema %s: not JSON: %q", schema, out)
		}
		ok, err := jsonschema.Validate(schema, out, opts)
		if err == nil && !ok {
			t.Fatalf("schema %s: invalid document accepted: %s", schema, out)
		}
	})
}
