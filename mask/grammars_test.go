package mask_test

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/masktest"
	"github.com/reinlm/rein/internal/pda"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
)

// TestLlamaGrammarsCompile compiles all of llama.cpp's sample grammars for a
// real vocabulary and fills a first mask.
func TestLlamaGrammarsCompile(t *testing.T) {
	voc := vocabtest.Core(t)
	files, err := filepath.Glob(filepath.Join(datadir.Shared(t, "gbnf", "llama.cpp", "grammars"), "*.gbnf"))
	require.NoError(t, err)
	require.Len(t, files, 8)
	bm := mask.NewBitmask(1, voc.Size())
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := mask.Compile(loadGBNF(t, filepath.Base(f)), voc, mask.Options{})
			require.NoError(t, err)
			require.NoError(t, c.NewMatcher().FillBitmask(bm, 0))
			assert.Positive(t, bm.Count(0))
		})
	}
}

// TestLlamaGrammarCases runs llama.cpp's grammar integration cases through
// rein's automaton: passing strings are complete sentences, failing ones are
// not.
func TestLlamaGrammarCases(t *testing.T) {
	data, err := os.ReadFile(datadir.Shared(t, "gbnf", "llama.cpp", "test-grammar-integration.cases.json"))
	require.NoError(t, err)
	var file struct {
		Cases []struct {
			Kind, Desc, Grammar string
			Passing, Failing    []string
		}
	}
	require.NoError(t, json.Unmarshal(data, &file))
	n := 0
	for _, c := range file.Cases {
		if c.Kind != "test_grammar" {
			continue
		}
		n++
		g, err := grammar.ParseGBNF(c.Grammar, "root", grammar.Limits{})
		require.NoError(t, err, c.Desc)
		p, err := pda.Compile(g, grammar.Limits{})
		require.NoError(t, err, c.Desc)
		for _, s := range c.Passing {
			st := pda.NewState(p)
			assert.True(t, st.AdvanceBytes([]byte(s)) && st.CanEnd(), "%s: passing %q refused", c.Desc, s)
		}
		for _, s := range c.Failing {
			st := pda.NewState(p)
			assert.False(t, st.AdvanceBytes([]byte(s)) && st.CanEnd(), "%s: failing %q accepted", c.Desc, s)
		}
	}
	assert.Equal(t, 11, n)
}

func TestFillBatch(t *testing.T) {
	voc := vocabtest.Core(t)
	c, err := mask.Compile(loadGBNF(t, "json.gbnf"), voc, mask.Options{})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(5, 5))
	ms := make([]*mask.Matcher, 16)
	rows := make([]int, len(ms))
	for i := range ms {
		ms[i] = c.NewMatcher()
		_, err := masktest.Walk(ms[i], rng, i, 0, nil)
		require.NoError(t, err)
		require.NoError(t, ms[i].Rollback(1))
		rows[i] = len(ms) - 1 - i
	}
	par := mask.NewBitmask(len(ms), voc.Size())
	require.NoError(t, mask.FillBatch(ms, par, rows, 4))
	one := mask.NewBitmask(1, voc.Size())
	for i, m := range ms {
		require.NoError(t, m.FillBitmask(one, 0))
		assert.Equal(t, one.Row(0), par.Row(rows[i]), "matcher %d", i)
	}
	assert.ErrorIs(t, mask.FillBatch(ms, par, rows[:3], 2), mask.ErrRow)
}

// FuzzAcceptRollback drives a matcher with random AcceptToken and Rollback
// steps and checks every mask against the per-token reference.
func FuzzAcceptRollback(f *testing.F) {
	voc := vocabtest.Load(f, "gpt2")
	g, err := grammar.ParseGBNF(`root ::= "[" (item ("," item)*)? "]"
item ::= [0-9]+ | "\"" [a-z ]* "\""`, "root", grammar.Limits{})
	require.NoError(f, err)
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(f, err)
	f.Add([]byte{1, 2, 3, 200, 4, 5})
	f.Add([]byte{0, 0, 0, 255, 255, 9, 9, 9})
	f.Fuzz(func(t *testing.T, ops []byte) {
		// Each op may check the mask against the 50,000-token reference:
		// long inputs only make execs slow enough to look hung.
		ops = ops[:min(len(ops), 256)]
		m := c.NewMatcher()
		bm := mask.NewBitmask(1, voc.Size())
		var rows [][]uint32 // rows[d]: the mask after d tokens
		for i, op := range ops {
			require.NoError(t, m.FillBitmask(bm, 0))
			rows = checkMaskHistory(t, m, rows, bm.Row(0), i)
			if i%4 == 0 {
				if d := masktest.DiffRows(m, bm.Row(0), masktest.ReferenceMask(m)); d != "" {
					t.Fatalf("op %d: %s", i, d)
				}
			}
			if op >= 224 {
				k, have := int(op-224), m.NumTokens()
				err := m.Rollback(k)
				if k > have {
					require.ErrorIs(t, err, mask.ErrRollback)
				} else {
					require.NoError(t, err)
				}
				continue
			}
			n := bm.Count(0)
			if n == 0 {
				continue
			}
			id := nth(bm.Row(0), int(op)%n)
			require.True(t, m.AcceptToken(id), "op %d: allowed token %d refused", i, id)
		}
	})
}

// checkMaskHistory checks the rollback invariant: the mask after d tokens is
// the one seen the last time the matcher held d tokens (rows[d]), whatever
// was accepted and rolled back since. It returns the history cut to d+1
// rows, row last.
func checkMaskHistory(t *testing.T, m *mask.Matcher, rows [][]uint32, row []uint32, op int) [][]uint32 {
	t.Helper()
	d := m.NumTokens()
	if d < len(rows) {
		if diff := masktest.DiffRows(m, row, rows[d]); diff != "" {
			t.Fatalf("op %d: the mask after rolling back to %d tokens differs: %s", op, d, diff)
		}
	}
	for len(rows) <= d {
		rows = append(rows, nil)
	}
	rows = rows[:d+1]
	rows[d] = slices.Clone(row)
	return rows
}
