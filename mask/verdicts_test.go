package mask_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
)

// TestKeptVerdictsFollowRollback decodes at random with rollbacks of one to
// four tokens, and compares every mask of the matcher, which keeps the exit
// verdicts of earlier masks (verdicts.go), with the mask of a new matcher
// that took the same tokens, which keeps none. Rolling back out of a value
// and into another one gives a new stack the frame id an old one had: a
// verdict kept for the old stack must not be read for the new one.
func TestKeptVerdictsFollowRollback(t *testing.T) {
	voc := vocabtest.Core(t)
	nested, _, err := jsonschema.Compile([]byte(`{"type":"object","properties":{
		"name":{"type":"string"},
		"note":{"type":"string","maxLength":12},
		"tags":{"type":"array","items":{"type":"string"}},
		"kids":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"n":{"type":"integer"}}}},
		"meta":{"type":"object","additionalProperties":{"type":"string"}}}}`), jsonschema.Options{})
	require.NoError(t, err)
	grammars := []struct {
		name string
		g    *grammar.Grammar
	}{{"json.gbnf", loadGBNF(t, "json.gbnf")}, {"nested schema", nested}}
	steps := 300
	if race.Enabled || testing.Short() {
		steps = 60
	}
	for _, tg := range grammars {
		t.Run(tg.name, func(t *testing.T) {
			c, err := mask.Compile(tg.g, voc, mask.Options{})
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(5, uint64(len(tg.name))))
			bm := mask.NewBitmask(2, voc.Size())
			m := c.NewMatcher()
			var taken []int
			rollbacks, rangeHits := 0, 0
			for step := 0; step < steps; step++ {
				if len(taken) > 0 && rng.Float64() < 0.3 {
					k := 1 + rng.IntN(min(4, len(taken)))
					require.NoError(t, m.Rollback(k))
					taken = taken[:len(taken)-k]
					rollbacks++
				}
				hits := mask.KeptRangeHits(m)
				require.NoError(t, m.FillBitmask(bm, 0))
				if mask.KeptRangeHits(m) > hits {
					rangeHits++
				}
				fresh := c.NewMatcher()
				for _, id := range taken {
					require.True(t, fresh.AcceptToken(id))
				}
				require.NoError(t, fresh.FillBitmask(bm, 1))
				require.True(t, slices.Equal(bm.Row(0), bm.Row(1)), "step %d, after %d tokens: the mask differs from a new matcher's", step, len(taken))
				// The next token: any allowed one but a stop token, or, at
				// a dead end of this walk, back to the start.
				var ids []int
				for id := range voc.Size() {
					if bm.Allowed(0, id) && !slices.Contains(voc.StopTokens(), id) {
						ids = append(ids, id)
					}
				}
				if len(ids) == 0 {
					m.Reset()
					taken = taken[:0]
					continue
				}
				id := ids[rng.IntN(len(ids))]
				require.True(t, m.AcceptToken(id))
				taken = append(taken, id)
			}
			require.Positive(t, rollbacks)
			t.Logf("%d masks took ranges' tokens from kept verdicts", rangeHits)
			if tg.name == "nested schema" {
				require.Positive(t, rangeHits, "no mask took kept ranges' tokens: their check measures nothing")
			}
		})
	}
}

// TestKeptVerdictsNeverCrossStacks takes a string inside one array, rolls
// back out of the array, and takes a string inside another: both strings'
// stacks have the same frame ids, one returning into an array of one
// item, the other into an array of any number. The matcher that kept the
// first string's exit verdicts must give the second string the mask of a
// new matcher.
func TestKeptVerdictsNeverCrossStacks(t *testing.T) {
	voc := vocabtest.Core(t)
	g, _, err := jsonschema.Compile([]byte(`{"type":"object","properties":{
		"one":{"type":"array","items":{"type":"string"},"maxItems":1},
		"any":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}`), jsonschema.Options{})
	require.NoError(t, err)
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	bm := mask.NewBitmask(2, voc.Size())
	for _, tc := range []struct{ first, second string }{
		{`{"one":["ab`, `{"any":["ab`},
		{`{"any":["ab`, `{"one":["ab`},
	} {
		m := c.NewMatcher()
		require.True(t, m.AcceptString(tc.first))
		require.NoError(t, m.FillBitmask(bm, 0))
		require.NoError(t, m.Rollback(1))
		require.True(t, m.AcceptString(tc.second))
		require.NoError(t, m.FillBitmask(bm, 0))
		fresh := c.NewMatcher()
		require.True(t, fresh.AcceptString(tc.second))
		require.NoError(t, fresh.FillBitmask(bm, 1))
		require.True(t, slices.Equal(bm.Row(0), bm.Row(1)), "%s after %s: the mask differs from a new matcher's", tc.second, tc.first)
	}
}
