package mask

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/pda"
	"github.com/reinlm/rein/internal/vocabtest"
)

// TestWalkFallback lowers the walk's limit on configurations so that it
// gives up, and checks that classify then falls back to the pushdown walk
// and still gives the reference classification.
func TestWalkFallback(t *testing.T) {
	voc := indexVocab(vocabtest.Core(t))
	stride := WordsPerRow(voc.size)
	p, err := pda.Compile(grammar.JSON(), grammar.Limits{})
	require.NoError(t, err)
	st := pda.NewState(p)
	gaveUp := 0
	for n := int32(0); n < int32(p.NumNodes()); n++ {
		if !p.HasBytes(n) {
			continue
		}
		a := new(walkDFA)
		a.reset(p, n)
		a.maxStates = 3
		if _, ok := a.classify(voc, n, stride); ok {
			continue
		}
		gaveUp++
		x, _ := classify(p, voc, n, st, stride)
		assertSameIndex(t, voc, classifyStack(p, voc, n, st, stride), x, fmt.Sprintf("node %d", n))
	}
	assert.Positive(t, gaveUp)
}

// TestLinkRenumbered checks the walk's ring builder for class tables
// numbered in the order of their first bytes against pda.LinkClasses.
func TestLinkRenumbered(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, classes := range []int{1, 2, 7, 60, 255} {
		var cls [256]uint8
		next := 0
		number := map[int]uint8{}
		for b := range cls {
			c := r.IntN(classes)
			if _, ok := number[c]; !ok {
				number[c] = uint8(next)
				next++
			}
			cls[b] = number[c]
		}
		var got, want [256]byte
		linkRenumbered(cls[:], got[:])
		pda.LinkClasses(cls[:], want[:])
		require.Equal(t, want, got, "%d classes", classes)
	}
}

// TestInternConfigurations interns configurations of a real grammar's
// nodes, enough to grow the table several times, and checks that each
// configuration has one state: the same tops and end flag give it back,
// and tops differing in a node, a frame or the end flag do not.
func TestInternConfigurations(t *testing.T) {
	p, err := pda.Compile(grammar.JSON(), grammar.Limits{})
	require.NoError(t, err)
	a := new(walkDFA)
	a.reset(p, 0)
	a.maxStates = 1 << 20
	r := rand.New(rand.NewPCG(5, 6))
	type config struct {
		tops []pda.Top
		end  bool
	}
	var configs []config
	states := map[string]int32{}
	for range 3000 {
		tops := make([]pda.Top, 1+r.IntN(4))
		for i := range tops {
			tops[i] = pda.Top{Node: int32(r.IntN(p.NumNodes())), Frame: int32(r.IntN(3)) - 1}
		}
		c := config{tops: tops, end: r.IntN(2) == 0}
		key := fmt.Sprint(c)
		s := a.intern(c.tops, c.end)
		if want, ok := states[key]; ok {
			require.Equal(t, want, s, "%v interned twice", c)
			continue
		}
		for _, prev := range states {
			require.NotEqual(t, prev, s, "%v shares a state", c)
		}
		states[key] = s
		configs = append(configs, c)
	}
	for _, c := range configs {
		assert.Equal(t, states[fmt.Sprint(c)], a.intern(c.tops, c.end), "%v", c)
		assert.Equal(t, c.tops, a.tops[a.topOff[states[fmt.Sprint(c)]]:a.topOff[states[fmt.Sprint(c)]+1]])
	}
	assert.Greater(t, len(a.ids), 4096, "the table grew")
}

// TestWalkPoolKeepsWalks checks that a freed walk survives garbage
// collections with its rows (a sync.Pool would drop it), that a walk grown
// past maxFreeWalkStates is kept without its rows, and that a free walk
// keeps no program alive.
func TestWalkPoolKeepsWalks(t *testing.T) {
	p, err := pda.Compile(grammar.JSON(), grammar.Limits{})
	require.NoError(t, err)
	var l walkList
	for _, tc := range []struct {
		states   int
		keepRows bool
	}{{10, true}, {maxFreeWalkStates + 1, false}} {
		a := l.Get()
		a.reset(p, 0)
		a.canEnd = slices.Grow(a.canEnd, tc.states)
		l.Put(a)
		runtime.GC()
		runtime.GC()
		b := l.Get()
		assert.Same(t, a, b, "%d states: the walk is kept", tc.states)
		assert.Equal(t, tc.keepRows, cap(b.trans) > 0, "%d states: rows kept", tc.states)
		assert.Nil(t, b.p, "no program is held")
		assert.Nil(t, b.stp, "no stepper (and program) is held")
		b.reset(p, 0) // a kept walk starts again, as a new one does
		c := new(walkDFA)
		c.reset(p, 0)
		assert.Equal(t, c.numStates(), b.numStates())
		l.Put(b)
		l.Get()
	}
	for range 2 * maxFreeWalks {
		l.Put(new(walkDFA))
	}
	assert.Len(t, l.walks, maxFreeWalks, "at most maxFreeWalks are kept")
}
