package mask

import (
	"encoding/binary"

	"github.com/reinlm/rein/tokenizer/toktrie"
)

// Classifications within a known return.
//
// A node a few characters before the end of its rule, where nearly every
// token runs past that end (a position near the end of a 64-character
// chunk of a long string), has tens of thousands of uncertain tokens with
// an unknown caller: classifying it walks them all and records where each
// leaves, 250,000 steps and 10-30 ms on the first mask there, and the
// first mask for each caller shape then walks them again through the
// caller (exits.go). Yet its callers look alike: the next chunk, or the
// end of the string. So such a node (near its end: nearEnd) is classified
// with the node its rule returns to, once per shape of the pair (shared by
// the vocabulary's grammars like any shape), as if that node's rule were
// its own: most tokens then run into the next chunk and are taken whole,
// and the uncertain ones are the few that leave the caller's rule too,
// decided against the frame below it.

// classifyWithinReturns turns the classification of near-end nodes within
// their return on; tests turn it off to check the path it replaces
// (exits.go) on the nodes it was made for.
var classifyWithinReturns = true

// useWithin reports whether node n is to be classified within its return:
// it is near its rule's end (chainEndsNear), and its own classification,
// where this grammar or another one of the vocabulary has it already,
// leaves at least minShapedExits tokens uncertain. Fewer are decided
// through the caller at each mask for less than a classification within
// costs the first time. So the near-end nodes of short strings, whose own
// classifications are shared, cost a shape lookup, which their first mask
// needs anyway, and not a walk along the chain. It is decided once per node.
func (c *Compiled) useWithin(n int32) bool {
	if !classifyWithinReturns {
		return false
	}
	if x := c.near[n].Load(); x != 0 {
		return x > 0
	}
	use := false
	if c.prog.HasBytes(n) && c.prog.BytesToEnd(n) > 0 && isWide(c.prog, c.voc, n) {
		x := c.index[n].Load()
		if x == nil {
			x = c.sharedIndex(n)
		}
		use = (x == nil || x.uncertain >= minShapedExits) && c.chainEndsNear(n)
	}
	x := int32(-1)
	if use {
		x = 1
	}
	c.near[n].Store(x)
	return use
}

// chainEndsNear reports whether, from wide node n, the chain of states most
// bytes lead along (chainSet) reaches a rule end within chainCap
// characters, without looping.
func (c *Compiled) chainEndsNear(n int32) bool {
	a := takeWalk(c.prog, n)
	defer putWalk(c.prog, a)
	if a.start < 0 {
		return false
	}
	root := toktrie.Rest{Depth: chainCap}
	ch := a.chainSet(a.start, &root)
	return !ch.loop && ch.ends
}

// withinIndex returns the classification of near-end node n for a stack
// whose rule returns into frame f, and the frame its uncertain tokens
// return into (the one below f), or nil where f has no sole return node,
// where that node's shape is too large to describe, or where the walk met
// more configurations than it keeps: the node's own classification serves
// then.
func (m *Matcher) withinIndex(n, f int32) (*nodeIndex, int32) {
	r, below, ok := m.st.SoleReturn(f)
	if !ok {
		return nil, 0
	}
	c := m.c
	cls := c.returnClass(r)
	if cls < 0 {
		return nil, 0
	}
	key := exitKey{n, cls}
	c.exits.mu.Lock()
	x := c.exits.within[key]
	c.exits.mu.Unlock()
	if x == nil {
		var shared bool
		x, shared = c.classifyWithin(n, r)
		c.exits.mu.Lock()
		if c.exits.within == nil {
			c.exits.within = map[exitKey]*nodeIndex{}
		}
		if y := c.exits.within[key]; y != nil {
			x = y // another matcher got there first
		} else {
			c.exits.within[key] = x
			if !shared {
				// A shared classification is charged to the vocabulary's
				// cache, not to every grammar using it.
				c.grow(int64(x.sizeBytes()))
			}
		}
		c.exits.mu.Unlock()
	}
	if x.err != nil {
		return nil, 0
	}
	return x, below
}

// classifyWithin classifies node n as if its rule's caller were return
// node r (with an unknown caller below r's rule), or takes the
// classification another grammar of the vocabulary made for a pair of the
// same shapes, and reports whether the vocabulary's cache holds it. Where
// the walk meets more configurations than it keeps, the index it returns
// holds errNoWalk.
func (c *Compiled) classifyWithin(n, r int32) (*nodeIndex, bool) {
	var key []byte
	nb, rb, kb := takeShapeBuf(), takeShapeBuf(), takeShapeBuf()
	defer func() { putShapeBuf(nb); putShapeBuf(rb); putShapeBuf(kb) }()
	if ns, ok := nb.describe(c, n); ok {
		if rs, ok := rb.describe(c, r); ok {
			// A node's own shape starts with its number, 0: this key, with
			// the length of n's first, never equals one.
			key = binary.AppendUvarint(kb.b[:0], uint64(len(ns)))
			key = append(append(key, ns...), rs...)
			kb.b = key
		}
	}
	shareable := key != nil
	if x := c.voc.shared.get(key, shareable); x != nil {
		return x, true
	}
	a := takeWalk(c.prog, n)
	var x *nodeIndex
	work := 0
	ok := a.beginWithin(n, r)
	if ok {
		x, ok = a.classifyWide(c.voc, n, c.stride, false)
		work = a.work
		if !ok {
			x, ok = a.classify(c.voc, n, c.stride)
			work += a.work
		}
	}
	putWalk(c.prog, a)
	c.stats.classified.Add(1)
	c.stats.work.Add(int64(work))
	classifications.Add(1)
	if !ok {
		return &nodeIndex{err: errNoWalk}, false
	}
	if !shareable {
		return x, false
	}
	return c.voc.shared.put(key, x)
}
