package mask

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
)

// warmOrder is the order Warm classifies a grammar's nodes in. First the
// nodes near where a matcher filled its last mask (hint): breadth first,
// over byte transitions, rule calls and returns, from its first stack top
// and the node that top's rule returns to, up to warmLookahead nodes away.
// Then every node, breadth first from the start, so that the nodes a
// document meets first come first.
type warmOrder struct {
	once  sync.Once
	nodes []int32      // the nodes with bytes, nearest to the start first
	hot   []int32      // the nodes one byte into rules marked Prepare, a part of nodes
	next  atomic.Int64 // the position in nodes of the next one to look at
	bytes atomic.Int64 // nodes' memory, once built

	hint atomic.Uint64 // a matcher's last top and its return node, +1 each (0: none)
}

// warmScratch is the lookahead's breadth-first search: nodes whose stamp in
// seen is not gen are unseen, so nothing is cleared between searches.
type warmScratch struct {
	queue []int32
	seen  []uint32
	gen   uint32
}

var warmPool = sync.Pool{New: func() any { return new(warmScratch) }}

// warmLookahead bounds the nodes the lookahead from a matcher's position
// visits, so that a call costs little once they are all classified.
const warmLookahead = 256

// setHint records where a matcher is: its first top's node and the node its
// rule returns to (-1: none).
func (w *warmOrder) setHint(node, ret int32) {
	if h := uint64(uint32(node+1))<<32 | uint64(uint32(ret+1)); w.hint.Load() != h {
		w.hint.Store(h)
	}
}

// nearHint returns the first unclassified node with bytes near the last
// hint, or -1.
func (c *Compiled) nearHint() int32 {
	h := c.warm.hint.Load()
	if h == 0 {
		return -1
	}
	w := warmPool.Get().(*warmScratch)
	defer warmPool.Put(w)
	p := c.prog
	if len(w.seen) < p.NumNodes() {
		w.seen = make([]uint32, p.NumNodes())
		w.gen = 0
	}
	if w.gen++; w.gen == 0 {
		clear(w.seen)
		w.gen = 1
	}
	w.queue = w.queue[:0]
	for _, n := range []int32{int32(h>>32) - 1, int32(uint32(h)) - 1} {
		if n >= 0 && w.seen[n] != w.gen {
			w.seen[n] = w.gen
			w.queue = append(w.queue, n)
		}
	}
	for k := 0; k < len(w.queue) && k < warmLookahead; k++ {
		n := w.queue[k]
		if p.HasBytes(n) && c.index[n].Load() == nil {
			return n
		}
		p.Neighbors(n, func(m int32) {
			if w.seen[m] != w.gen {
				w.seen[m] = w.gen
				w.queue = append(w.queue, m)
			}
		})
	}
	return -1
}

// memoryBytes is what the order holds once Warm has asked for it.
func (w *warmOrder) memoryBytes() int { return int(w.bytes.Load()) }

func (c *Compiled) warmNodes() []int32 {
	w := &c.warm
	w.once.Do(func() {
		p := c.prog
		seen := make([]bool, p.NumNodes())
		queue := []int32{p.Root}
		seen[p.Root] = true
		for k := 0; k < len(queue); k++ {
			p.Neighbors(queue[k], func(m int32) {
				if !seen[m] {
					seen[m] = true
					queue = append(queue, m)
				}
			})
		}
		// The positions one byte into rules marked grammar.Rule.Prepare
		// (hot) come right after the nodes met before the first of them:
		// a grammar prepared within a budget (WarmWithin) classifies its
		// first positions, then every object's key, then the rest,
		// nearest to the start first.
		hot := make([]bool, p.NumNodes())
		for _, r := range p.Rules {
			if r.Prepare {
				for b := range 256 {
					if m := p.Next(r.Start, byte(b)); m >= 0 {
						hot[m] = true
					}
				}
			}
		}
		var prepare, rest []int32
		for _, n := range queue {
			switch {
			case !p.HasBytes(n):
			case hot[n]:
				prepare = append(prepare, n)
			case len(prepare) == 0:
				w.nodes = append(w.nodes, n)
			default:
				rest = append(rest, n)
			}
		}
		w.nodes = slices.Clip(append(append(w.nodes, prepare...), rest...))
		w.hot = w.nodes[len(w.nodes)-len(rest)-len(prepare) : len(w.nodes)-len(rest)]
		w.bytes.Store(int64(4 * cap(w.nodes)))
		if c.growth != nil {
			c.growth.Add(w.bytes.Load())
		}
	})
	return w.nodes
}

// WarmNext classifies the next node a matcher has not yet needed, in the
// order a document is likely to need them (those near where a matcher
// filled its last mask, then every node, nearest to the start first), and
// reports false once every node is classified. It is what Warm does
// one node at a time, for a scheduler that interleaves warming with other
// work: each call does at most one node's work (from microseconds to a few
// milliseconds). Safe for concurrent use, with matchers too: a matcher that
// needs the node being warmed waits for it rather than classifying it
// again, and goroutines warming the same grammar take different nodes.
func (c *Compiled) WarmNext() bool {
	if n := c.nearHint(); n >= 0 {
		c.indexNode(n, true)
		return true
	}
	nodes := c.warmNodes()
	for {
		k := c.warm.next.Add(1) - 1
		if k >= int64(len(nodes)) {
			return false
		}
		if n := nodes[k]; c.index[n].Load() == nil {
			c.indexNode(n, true)
			return true
		}
	}
}

// Warm classifies the grammar's nodes ahead of its matchers (see WarmNext)
// until every node is classified or ctx ends, and returns how many nodes it
// indexed (classified, or gave the classification of a node of the same
// shape, of this grammar or another, which costs far less). Engines run it in the background between admitting a request
// and its first mask (the prefill), so that the masks of the first tokens
// find their nodes classified; a rein.Compiler does so by itself. It does
// not change any mask, only when the work is done.
func (c *Compiled) Warm(ctx context.Context) int {
	n := 0
	for ctx.Err() == nil && c.WarmNext() {
		n++
	}
	return n
}

// WarmWithin is Warm that stops once its classifications have done maxWork
// steps of work (see IndexStats; the node that crosses the bound is
// finished), then classifies the positions one byte into the rules marked
// grammar.Rule.Prepare that are left (a JSON object's key: see warmNodes)
// within prepareShare times that bound, and reports whether every node is
// classified. A compiler runs it before it reports a grammar ready, so that
// the first masks of a request find the nodes nearest to the start and
// every object's first key position classified, at a bounded cost to the
// compile; the rest is for Warm in the background.
func (c *Compiled) WarmWithin(ctx context.Context, maxWork int64) bool {
	start := c.stats.warmWork.Load()
	for ctx.Err() == nil {
		if c.stats.warmWork.Load()-start >= maxWork {
			break
		}
		if !c.WarmNext() {
			return true
		}
	}
	// Then the positions rules marked Prepare start with, on a budget of
	// their own (prepareShare times maxWork): nearly every object meets
	// its key's, which costs a few hundred microseconds the first time.
	c.warmNodes()
	start = c.stats.warmWork.Load()
	for _, n := range c.warm.hot {
		if ctx.Err() != nil || c.stats.warmWork.Load()-start >= prepareShare*maxWork {
			return false
		}
		if c.index[n].Load() == nil {
			c.indexNode(n, true)
		}
	}
	return false
}

// prepareShare is how many times WarmWithin's budget the positions of rules
// marked grammar.Rule.Prepare may take beyond it: on MaskBench's schemas and
// Llama-3 it covers every object's key but in the largest schemas, whose
// compiles it would make the slowest.
const prepareShare = 3
