package mask

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/fillgate"
	"github.com/reinlm/rein/internal/vocabtest"
)

const warmSchema = `{"type":"object","properties":{"name":{"type":"string","maxLength":20},"tags":{"type":"array","items":{"enum":["red","green","blue"]}},"age":{"type":"integer","minimum":0}},"required":["name"]}`

var warmDocs = []string{`{"name":"Ada Lovelace","tags":["red","blue"],"age":36}`, `{"name":"x","age":0}`, `{"name":"","tags":[]}`}

// warmTestMasks decodes warmDocs through c, returning every mask.
func warmTestMasks(t *testing.T, c *Compiled) [][]uint32 {
	t.Helper()
	enc, err := c.Vocab().Encoder()
	require.NoError(t, err)
	bm := NewBitmask(1, c.VocabSize())
	var rows [][]uint32
	m := c.NewMatcher()
	for _, doc := range warmDocs {
		m.Reset()
		for _, id := range append(enc.Encode(doc), -1) {
			require.NoError(t, m.FillBitmask(bm, 0))
			rows = append(rows, append([]uint32(nil), bm.Row(0)...))
			if id >= 0 {
				require.True(t, m.AcceptToken(id), "%s: token %d", doc, id)
			}
		}
	}
	return rows
}

func compileWarmSchema(t *testing.T) *Compiled {
	t.Helper()
	vocab := vocabtest.Core(t)
	g, _, err := jsonschema.Compile([]byte(warmSchema), jsonschema.Options{})
	require.NoError(t, err)
	c, err := Compile(g, vocab, Options{})
	require.NoError(t, err)
	return c
}

// TestWarm checks that warming classifies every node a decode needs ahead
// of it, so that the matcher classifies none itself, and changes no mask:
// the masks of a warmed grammar equal those of a cold one.
func TestWarm(t *testing.T) {
	vocab := vocabtest.Core(t)
	ResetSharedIndex(vocab) // so that the cold grammar classifies for itself
	cold := compileWarmSchema(t)
	want := warmTestMasks(t, cold)
	require.Positive(t, cold.IndexStats().Classified, "the cold decode classified nothing: the test measures nothing")
	require.Zero(t, cold.IndexStats().Warmed)

	ResetSharedIndex(vocab)
	warm := compileWarmSchema(t)
	n := warm.Warm(context.Background())
	assert.Positive(t, n)
	assert.False(t, warm.WarmNext(), "Warm returned with nodes left")
	assert.Positive(t, warm.IndexStats().Warmed)
	assert.LessOrEqual(t, warm.IndexStats().Warmed, int64(n), "nodes of a shape met before are indexed, not classified")
	assert.Equal(t, want, warmTestMasks(t, warm))
	assert.Zero(t, warm.IndexStats().Classified, "a mask classified a node Warm had done")

	// A cancelled warm does nothing.
	ResetSharedIndex(vocab)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.Zero(t, compileWarmSchema(t).Warm(ctx))
}

// TestWarmNearMatcher checks that warming starts where a matcher is: after
// a matcher has filled a mask inside the document, the next node WarmNext
// classifies is near that matcher's position, not the next one breadth
// first from the start.
func TestWarmNearMatcher(t *testing.T) {
	vocab := vocabtest.Core(t)
	ResetSharedIndex(vocab)
	c := compileWarmSchema(t)
	enc, err := vocab.Encoder()
	require.NoError(t, err)
	m := c.NewMatcher()
	for _, id := range enc.Encode(`{"name":"Ada","tags":["re`) {
		require.True(t, m.AcceptToken(id))
	}
	bm := NewBitmask(1, c.VocabSize())
	require.NoError(t, m.FillBitmask(bm, 0))
	near := c.nearHint()
	require.GreaterOrEqual(t, near, int32(0), "no unclassified node near the matcher")
	assert.NotEqual(t, c.warmNodes()[0], near)
}

// TestWarmConcurrent runs warming goroutines and decoding matchers on one
// grammar at once (with -race in CI): every node is classified once, and
// every matcher sees the masks of a cold decode.
func TestWarmConcurrent(t *testing.T) {
	vocab := vocabtest.Core(t)
	ResetSharedIndex(vocab)
	want := warmTestMasks(t, compileWarmSchema(t))
	ResetSharedIndex(vocab)
	c := compileWarmSchema(t)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { c.Warm(context.Background()) })
	}
	got := make([][][]uint32, 3)
	for i := range got {
		wg.Go(func() { got[i] = warmTestMasks(t, c) })
	}
	wg.Wait()
	for _, g := range got {
		assert.Equal(t, want, g)
	}
	st := c.IndexStats()
	classified := int64(0)
	for n := range c.index {
		if c.index[n].Load() != nil && c.prog.HasBytes(int32(n)) {
			classified++
		}
	}
	// Each node was classified once, by a matcher or by Warm, unless a
	// node of the same shape was shared.
	assert.LessOrEqual(t, st.Classified+st.Warmed, classified)
}

// TestWarmWithinPreparesKeys checks that a grammar prepared within a
// budget classifies, beyond it, the first position of its objects' keys
// (grammar.Rule.Prepare), nested objects' included, nearest first, until
// they have taken prepareShare times the budget: with a budget of one step
// the first node and the first key (which crosses both bounds), and with a
// larger one every key, so that a matcher reaching the innermost object's
// first key finds it done.
func TestWarmWithinPreparesKeys(t *testing.T) {
	vocab := vocabtest.Load(t, "llama3")
	g, _, err := jsonschema.Compile([]byte(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"integer"}}},"d":{"type":"string"}}}}}`), jsonschema.Options{})
	require.NoError(t, err)
	c, err := Compile(g, vocab, Options{})
	require.NoError(t, err)
	assert.False(t, c.WarmWithin(context.Background(), 1))
	p := c.prog
	require.Len(t, c.warm.hot, 3, "one key position per object")
	for k, n := range c.warm.hot {
		assert.True(t, p.Rules[p.RuleOf(n)].Prepare)
		assert.Equal(t, k == 0, c.index[n].Load() != nil, "key %d classified", k)
	}
	c.WarmWithin(context.Background(), 5000)
	m := c.NewMatcher()
	require.True(t, m.AcceptString(`{"a":{"b":{"`))
	keys := 0
	for _, top := range m.st.Tops() {
		if p.Rules[p.RuleOf(top.Node)].Prepare {
			keys++
			assert.NotNil(t, c.index[top.Node].Load(), "the innermost key's position")
		}
	}
	assert.Equal(t, 1, keys)
}

// gateTest holds the process's fill gate for a test of background
// classifications under fills: parks never time out (a goroutine left
// parked hangs the test rather than goes on after a while), and a fill
// that a failed check left running is ended.
type gateTest struct {
	t        *testing.T
	c        *Compiled
	filling  bool
	deadline time.Time // a guard, not a measure
}

// newGateTest compiles the warming schema with the shared index reset, so
// that its nodes are classified, not taken.
func newGateTest(t *testing.T) *gateTest {
	ResetSharedIndex(vocabtest.Core(t))
	g := &gateTest{t: t, c: compileWarmSchema(t), deadline: time.Now().Add(time.Minute)}
	old := fillgate.SetMaxWait(time.Hour)
	t.Cleanup(func() {
		g.exit()
		fillgate.SetMaxWait(old)
	})
	return g
}

func (g *gateTest) enter() { fillgate.Enter(); g.filling = true }

func (g *gateTest) exit() {
	if g.filling {
		fillgate.Exit()
		g.filling = false
	}
}

// classify starts the background classification of node n under a fill
// (enter), and returns once it has parked (parked) or finished, with a
// channel that receives its result.
func (g *gateTest) classify(n int32) (done <-chan *nodeIndex, parked bool) {
	g.enter()
	ch := make(chan *nodeIndex, 1)
	go func() { ch <- g.c.indexNode(n, true) }()
	for fillgate.Parked() == 0 && len(ch) == 0 {
		require.False(g.t, time.Now().After(g.deadline), "node %d: neither classified nor parked", n)
		runtime.Gosched()
	}
	return ch, fillgate.Parked() > 0
}

// TestWarmingStepsAsideForFills checks that a background classification
// parks while a fill runs (walkDFA.tick, fillgate), and that a fill that
// needs the very node being classified lets it go on (claimIndex): with
// parks that never time out, the fill would wait for ever. Each node is
// classified under a fill of its own, as a batch's steps would.
func TestWarmingStepsAsideForFills(t *testing.T) {
	g := newGateTest(t)
	c := g.c
	parked := 0
	for _, n := range c.warmNodes() {
		if c.index[n].Load() != nil {
			continue
		}
		done, ok := g.classify(n)
		var x *nodeIndex
		if !ok {
			x = <-done // too little work to reach a checkpoint
		} else {
			parked++
			// The fill meets node n: it waits for the warming's
			// classification, which must go on.
			got := make(chan *nodeIndex, 1)
			go func() { got <- c.nodeIndex(n) }()
			select {
			case x = <-got:
			case <-time.After(10 * time.Second):
				t.Fatalf("node %d: the fill waits on a parked classification", n)
			}
			require.Same(t, x, <-done, "node %d: two classifications", n)
		}
		g.exit()
		require.NotNil(t, x)
		require.NoError(t, x.err)
	}
	require.Greater(t, parked, 1, "fewer than two classifications reached a checkpoint: the test measures little")
	t.Logf("%d classifications parked", parked)
}

// TestBackgroundWaitsItsTurn checks that background work waiting on a
// node that other background work is classifying (two warming goroutines
// meeting the same node) does not open the gate: the classification stays
// parked while the fill runs, and both go on once it ends.
func TestBackgroundWaitsItsTurn(t *testing.T) {
	g := newGateTest(t)
	c := g.c
	for _, n := range c.warmNodes() {
		if c.index[n].Load() != nil {
			continue
		}
		first, parked := g.classify(n)
		if !parked {
			g.exit() // too little work to reach a checkpoint
			require.NotNil(t, <-first)
			continue
		}
		waits := c.stats.waits.Load()
		second := make(chan *nodeIndex, 1)
		go func() { second <- c.indexNode(n, true) }()
		for c.stats.waits.Load() == waits {
			require.False(t, time.Now().After(g.deadline), "node %d: the second never waited", n)
			runtime.Gosched()
		}
		require.Zero(t, fillgate.Waiting(), "node %d: background waiting on background opened the gate", n)
		require.Equal(t, 1, fillgate.Parked(), "node %d: the first classification went on while the fill runs", n)
		g.exit()
		x := <-first
		require.NotNil(t, x)
		require.Same(t, x, <-second)
		return
	}
	t.Fatal("no classification reached a checkpoint: the test measures nothing")
}
