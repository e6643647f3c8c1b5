package mask

import (
	"fmt"
	"math/rand/v2"
	"slices"
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

// TestOrDerived checks the accepted tokens of a derived classification,
// over a base kept as a row and as an unsorted list: the base's, but those
// dropped and, with starts, those not in it, and its own.
func TestOrDerived(t *testing.T) {
	const stride = 8
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var baseIDs []int32
		row := make([]uint32, stride)
		for id := int32(0); id < 32*stride; id++ {
			if rng.IntN(3) > 0 {
				baseIDs = append(baseIDs, id)
				row[id>>5] |= 1 << (id & 31)
			}
		}
		rng.Shuffle(len(baseIDs), func(i, j int) { baseIDs[i], baseIDs[j] = baseIDs[j], baseIDs[i] })
		var starts []uint32
		if rng.IntN(2) == 0 {
			starts = make([]uint32, stride)
			for w := range starts {
				starts[w] = rng.Uint32()
			}
		}
		var drop []wordMask
		for w := range int32(stride) {
			if m := rng.Uint32() & rng.Uint32(); m != 0 && rng.IntN(2) == 0 {
				drop = append(drop, wordMask{w: w, m: m})
			}
		}
		own := []int32{int32(rng.IntN(32 * stride)), int32(rng.IntN(32 * stride))}
		want := make([]uint32, stride)
		for id := int32(0); id < 32*stride; id++ {
			bit := uint32(1) << (id & 31)
			in := row[id>>5]&bit != 0 && (starts == nil || starts[id>>5]&bit != 0)
			for _, d := range drop {
				if d.w == id>>5 && d.m&bit != 0 {
					in = false
				}
			}
			if in || slices.Contains(own, id) {
				want[id>>5] |= bit
			}
		}
		for _, base := range []*nodeIndex{{dense: row}, {accepted: baseIDs}} {
			x := &nodeIndex{base: base, starts: starts, drop: drop, accepted: own}
			got := make([]uint32, stride)
			x.orDerived(got)
			require.Equal(t, want, got, "dense base %v", base.dense != nil)
		}
	}
}
