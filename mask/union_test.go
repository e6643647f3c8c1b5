package mask_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/masktest"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

// patternKeysSchema has an object whose unanchored patternProperties split
// its keys five ways: none of the patterns, or one of them, or two at once
// (netdrv_ and net_ overlap). A key's positions are then tops of five key
// rules at once, which FillBitmask classifies together (union.go).
const patternKeysSchema = `{"type":"object","properties":{
	"id":{"type":"number"},
	"devices":{"type":"object","patternProperties":{
		"netdir_(projects|work)":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false},
		"netdrv_([a-z]+)":{"type":"integer"},
		"net_[a-z]+[0-9]+":{"type":"number"}}}},
	"required":["devices"]}`

// patternKeysDocs are documents of patternKeysSchema with keys of every
// part of the split.
var patternKeysDocs = []string{
	`{"id": 7, "devices": {"netdir_work": {"path": "/scratch"}, "netdrv_eth": 3, "net_eth0": 1.5, "other key": [1, "a"], "xnetdrv_abc": 4}}`,
	`{"devices": {"my net_lan22 link": 2, "netdir_projectsX": {"path": ""}, "": null}}`,
}

// patternKeysLlama3 compiles patternKeysSchema and loads Llama-3 and its
// encoder, with unions on until the test ends and the shared index empty
// (else the key rules' own classifications may be there).
func patternKeysLlama3(t testing.TB) (*grammar.Grammar, *tokenizer.Vocab, *tokenizer.Encoder) {
	t.Helper()
	g, _, err := jsonschema.Compile([]byte(patternKeysSchema), jsonschema.Options{})
	require.NoError(t, err)
	voc := vocabtest.Load(t, "llama3")
	enc, err := voc.Encoder()
	require.NoError(t, err)
	was := mask.ClassifyUnions(true)
	t.Cleanup(func() { mask.ClassifyUnions(was) })
	mask.ResetSharedIndex(voc)
	return g, voc, enc
}

// TestUnionMatchesReference checks FillBitmask, with the tops of several
// key rules classified together, against the reference (every token's
// bytes tried on a fork) at every step of patternKeysDocs and of random
// walks, on Llama-3 and Qwen3; and that the union was used, and took less
// classification work than the rules one by one. With the race detector,
// where the reference is too slow, TestUnionMatchesNodes checks instead.
func TestUnionMatchesReference(t *testing.T) {
	if race.Enabled || testing.Short() {
		t.Skip("the reference over every token is too slow here: TestUnionMatchesNodes checks")
	}
	g, _, err := jsonschema.Compile([]byte(patternKeysSchema), jsonschema.Options{})
	require.NoError(t, err)
	walks, maxTokens := 3, 40
	for _, vname := range vocabtest.Available("llama3", "qwen3") {
		voc := vocabtest.Load(t, vname)
		enc, err := voc.Encoder()
		require.NoError(t, err)
		t.Run(vname, func(t *testing.T) {
			work := map[bool]int64{}
			for _, union := range []bool{true, false} {
				was := mask.ClassifyUnions(union)
				mask.ResetSharedIndex(voc) // each run classifies from nothing
				c, err := mask.Compile(g, voc, mask.Options{})
				require.NoError(t, err)
				bm := mask.NewBitmask(1, voc.Size())
				for _, doc := range patternKeysDocs {
					m := c.NewMatcher()
					for i, id := range enc.Encode(doc) {
						require.NoError(t, m.FillBitmask(bm, 0))
						if d := masktest.DiffRows(m, bm.Row(0), masktest.ReferenceMask(m)); d != "" {
							t.Fatalf("union %v, %q token %d: %s", union, doc, i, d)
						}
						require.NoError(t, m.Accept(id), "%q token %d", doc, i)
					}
					assert.True(t, m.CanEnd(), doc)
				}
				work[union] = c.IndexStats().Work
				if union {
					assert.Positive(t, mask.Unions(c), "the key rules were classified together")
					rng := rand.New(rand.NewPCG(3, 4))
					for w := range walks {
						m := c.NewMatcher()
						_, err := masktest.Walk(m, rng, maxTokens, 0.1, func(step int, _ []byte, row []uint32) error {
							if d := masktest.DiffRows(m, row, masktest.ReferenceMask(m)); d != "" {
								return fmt.Errorf("walk %d step %d: %s", w, step, d)
							}
							return nil
						})
						require.NoError(t, err)
					}
				} else {
					assert.Zero(t, mask.Unions(c))
				}
				mask.ClassifyUnions(was)
			}
			t.Logf("classification work over the documents: %d together, %d one by one", work[true], work[false])
			assert.Less(t, work[true], work[false])
		})
	}
}

// TestUnionMatchesNodes checks, at every step of patternKeysDocs on
// Llama-3, that FillBitmask gives the same mask with the key rules' tops
// classified together as one by one (the path the reference tests check
// everywhere), on two grammars decoding in lockstep.
func TestUnionMatchesNodes(t *testing.T) {
	g, voc, enc := patternKeysLlama3(t)
	together, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	alone, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	want, got := mask.NewBitmask(1, voc.Size()), mask.NewBitmask(1, voc.Size())
	for _, doc := range patternKeysDocs {
		m, ref := together.NewMatcher(), alone.NewMatcher()
		for i, id := range enc.Encode(doc) {
			mask.ClassifyUnions(true)
			require.NoError(t, m.FillBitmask(got, 0))
			mask.ClassifyUnions(false)
			require.NoError(t, ref.FillBitmask(want, 0))
			if d := masktest.DiffRows(m, got.Row(0), want.Row(0)); d != "" {
				t.Fatalf("%q token %d: %s", doc, i, d)
			}
			require.NoError(t, m.Accept(id), "%q token %d", doc, i)
			require.NoError(t, ref.Accept(id), "%q token %d", doc, i)
		}
	}
	assert.Positive(t, mask.Unions(together), "the key rules were classified together")
}

// TestUnionMaskAllocatesNothing checks that once a key position's union is
// classified, masks there allocate nothing: its tops stay unclassified (the
// union holds their classification), so each such mask finds the union
// again.
func TestUnionMaskAllocatesNothing(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	g, voc, enc := patternKeysLlama3(t)
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	bm := mask.NewBitmask(1, voc.Size())
	m := c.NewMatcher()
	for i, id := range enc.Encode(patternKeysDocs[0]) {
		require.NoError(t, m.FillBitmask(bm, 0))
		if n := testing.AllocsPerRun(5, func() { _ = m.FillBitmask(bm, 0) }); n != 0 {
			t.Fatalf("token %d: %v allocations per mask", i, n)
		}
		require.NoError(t, m.Accept(id))
	}
	assert.Positive(t, mask.Unions(c), "the key rules were classified together")
}

// BenchmarkUnionMask fills the masks of patternKeysDocs[0] once the unions
// of its key positions are classified: the per-token cost at tops a union
// holds.
func BenchmarkUnionMask(b *testing.B) {
	g, _, err := jsonschema.Compile([]byte(patternKeysSchema), jsonschema.Options{})
	require.NoError(b, err)
	voc := vocabtest.Load(b, "llama3")
	enc, err := voc.Encoder()
	require.NoError(b, err)
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(b, err)
	ids := enc.Encode(patternKeysDocs[0])
	bm := mask.NewBitmask(1, voc.Size())
	run := func() {
		m := c.NewMatcher()
		for _, id := range ids {
			_ = m.FillBitmask(bm, 0)
			_ = m.Accept(id)
		}
	}
	run()
	b.ResetTimer()
	for range b.N {
		run()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ids)), "ns/mask")
}
