package mask

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/pda"
	"github.com/reinlm/rein/internal/vocabtest"
)

// TestSharedClassification pins the shortcuts of classification: the walk
// over the lazily built automaton of configurations, with its pruned
// subtrees, gives what running every token through the pushdown state
// gives, and nodes with equal shapes, in one grammar or across grammars,
// have equal classifications, so sharing them through the vocabulary's
// cache is exact.
func TestSharedClassification(t *testing.T) {
	grammars := map[string]*grammar.Grammar{"json": grammar.JSON()}
	for _, f := range []string{"BFCL_javascript_21.json", "Github_easy---o57229.json", "Glaiveai2K---calculate_area_bcc08b54.json"} {
		raw, err := os.ReadFile(filepath.Join(datadir.MaskBench(t).Dir, f))
		require.NoError(t, err)
		g, _, err := jsonschema.Compile([]byte(gjson.GetBytes(raw, "schema").Raw), jsonschema.Options{})
		require.NoError(t, err, f)
		grammars[f] = g
	}
	g, err := grammar.FromRegex(`[a-z]{1,8}@(example|test)\.(com|org)`, grammar.Limits{})
	require.NoError(t, err)
	grammars["regex"] = g
	// A short counted string: no position loops, so subtrees are accepted
	// by following the chain of positions.
	g, _, err = jsonschema.Compile([]byte(`{"type":"string","maxLength":24}`), jsonschema.Options{})
	require.NoError(t, err)
	grammars["maxLength"] = g

	// Counted repetitions longer than Mistral's longest token (25 bytes):
	// their positions far from the end share a shape.
	bounded := map[string]*grammar.Grammar{}
	for _, schema := range []string{`{"type":"string","maxLength":60}`, `{"type":"array","items":{"type":"string","minLength":2,"maxLength":45}}`} {
		g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
		require.NoError(t, err, schema)
		bounded[schema] = g
	}

	for _, name := range vocabtest.Available("llama3", "mistral") {
		t.Run(name, func(t *testing.T) {
			if name == "mistral" {
				maps.Copy(grammars, bounded)
			}
			voc := indexVocab(vocabtest.Load(t, name))
			stride := WordsPerRow(voc.size)
			byShape := map[string]*nodeIndex{}
			var pruned, chained, shared int
			for gname, g := range grammars {
				p, err := pda.Compile(g, grammar.Limits{})
				require.NoError(t, err, gname)
				st := pda.NewState(p)
				for n := int32(0); n < int32(p.NumNodes()); n++ {
					if !p.HasBytes(n) {
						continue
					}
					where := fmt.Sprintf("%s node %d", gname, n)
					a := walkPool.Get()
					a.reset(p, n)
					x, ok := a.classify(voc, n, stride)
					require.True(t, ok, where)
					if a.prunedAny {
						pruned++
					}
					if a.chained {
						chained++
					}
					walkPool.Put(a)
					assertSameIndex(t, voc, classifyStack(p, voc, n, st, stride), x, "configuration walk, "+where)
					shape, ok := p.Shape(nil, n, voc.maxLen, 1<<20)
					require.True(t, ok, where)
					if y := byShape[string(shape)]; y != nil {
						shared++
						assert.Equal(t, y, x, "shared shape, "+where)
					}
					byShape[string(shape)] = x
				}
			}
			t.Logf("%d nodes with pruned subtrees (%d through a chain of states), %d nodes sharing a shape", pruned, chained, shared)
			assert.Positive(t, pruned)
			assert.Positive(t, chained)
			assert.Positive(t, shared)
		})
	}
}

// TestNarrowShapeBound checks that a narrow node whose rule has a few nodes
// but whose shape reaches hundreds (a property's name, from which its
// value's 40 keys are within the longest token's bytes) is classified for
// its grammar alone, without describing the whole shape
// (maxNarrowShape), and that its classification is the reference's.
func TestNarrowShapeBound(t *testing.T) {
	props := ""
	for i := range 40 {
		props += fmt.Sprintf(`,"field%02d":{"type":"string"}`, i)
	}
	schema := `{"type":"object","properties":{"name":{"type":"object","properties":{` + props[1:] + `},"additionalProperties":false}},"additionalProperties":false}`
	g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
	require.NoError(t, err)
	voc := vocabtest.Load(t, "llama3")
	c, err := Compile(g, voc, Options{})
	require.NoError(t, err)
	p := c.prog
	n := int32(-1)
	for at := int32(0); at < int32(p.NumNodes()); at++ {
		// The position after the name's first letter.
		if r := p.Rules[p.RuleOf(at)]; p.HasBytes(at) && r.NumNodes <= maxNarrowRule && p.Next(at, 'a') >= 0 && p.Next(p.Next(at, 'a'), 'm') >= 0 {
			n = p.Next(at, 'a')
			break
		}
	}
	require.GreaterOrEqual(t, n, int32(0), "the name's rule")
	require.False(t, isWide(p, c.voc, n))
	buf := takeShapeBuf()
	defer putShapeBuf(buf)
	_, ok := buf.describe(c, n)
	require.True(t, ok, "the whole shape is within maxSharedShape")
	_, ok = buf.describeWithin(c, n, maxNarrowShape)
	require.False(t, ok, "but not within maxNarrowShape")

	before := SharedIndexBytes(voc)
	x := c.indexNode(n, false)
	assert.Equal(t, before, SharedIndexBytes(voc), "not shared")
	assertSameIndex(t, c.voc, classifyStack(p, c.voc, n, pda.NewState(p), c.stride), x, "the name's second letter")
}
