package mask

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/pda"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
)

// TestDeriveIndex checks the classifications derived from a loop's
// (deriveIndex) against the reference, every token run through the
// pushdown state, at every wide node where one is derived: the grammars of
// TestClassifyWide, and objects whose undeclared keys must avoid names that
// are prefixes of one another, that hold quotes, backslashes and
// multi-byte characters, on byte-level and byte-fallback vocabularies. It
// also checks that the positions of undeclared keys are derived, so that
// the check is not empty.
func TestDeriveIndex(t *testing.T) {
	grammars := wideGrammars(t)
	for _, schema := range []string{
		`{"type":"object","properties":{"name":{"type":"string"},"names":{"type":"integer"},"n":{"type":"boolean"},"description":{"type":"string"}}}`,
		`{"type":"object","properties":{"a\"b":{"type":"string"},"c\\d":{"type":"string"},"é":{"type":"integer"},"日本":{"type":"integer"},"":{"type":"null"}}}`,
		`{"type":"object","properties":{"id":{"type":"integer"}},"patternProperties":{"^x-":{"type":"string"}}}`,
	} {
		g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
		require.NoError(t, err, schema)
		grammars[schema] = g
	}
	names := vocabtest.Available("llama3", "gpt2", "qwen3", "mistral")
	if race.Enabled || testing.Short() {
		names = names[:1]
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			vocab := vocabtest.Load(t, name)
			voc := indexVocab(vocab)
			derived, keys := 0, 0
			for gname, g := range grammars {
				c, err := Compile(g, vocab, Options{})
				require.NoError(t, err, gname)
				p := c.prog
				st := pda.NewState(p)
				for n := int32(0); n < int32(p.NumNodes()); n++ {
					if !p.HasBytes(n) || !isWide(p, voc, n) {
						continue
					}
					x, _, ok := c.deriveIndex(n, false)
					if !ok {
						continue
					}
					derived++
					if p.Rules[p.RuleOf(n)].Name == "key" {
						keys++
					}
					assertSameIndex(t, voc, classifyStack(p, voc, n, st, c.stride), x, fmt.Sprintf("%s node %d", gname, n))
				}
			}
			t.Logf("%d derived classifications, %d of them in keys", derived, keys)
			assert.Positive(t, keys, "the positions of undeclared keys are derived")
		})
	}
}
