package mask

import (
	"math/bits"
	"slices"
	"sync"

	"github.com/reinlm/rein/internal/byteset"
)

// Uncertain tokens decided once per caller shape.
//
// A node's uncertain tokens leave its rule before their last byte, so the
// caller decides them: checkSuffixes walks their suffixes from the frame's
// return node at every mask. Where a node has tens of thousands of them (a
// position a few characters before the end of a 64-character chunk of a
// long string: nearly every token crosses it) that walk takes 10-40 ms,
// at every such mask.
//
// A suffix's walk depends on the return node's rule, and on the stack
// below only if the walk ends that rule too (a token that closes the string
// and then the object). What the return node's rule does within the longest
// token's bytes is its Shape: equal shapes accept the same byte strings that
// far, with the same rule ends. So the verdicts are kept per (node, return
// node's shape): the tokens whose walks stayed in the return node's rule,
// decided once, and the few whose walks left it, walked again at every
// mask. The chunks of a long string are called from positions that all look
// alike, so one walk serves them all.

// minShapedExits is the fewest suffixes and range tokens a caller must walk
// (those starting with a byte it takes) for their verdicts to be kept: below
// it the walk, well under a millisecond, costs less than describing the
// return node's shape the first time and copying a row of verdicts after.
const minShapedExits = 4096

type exitKey struct{ node, class int32 }

// exitSet is what a caller shape decides of a node's uncertain tokens: the
// ones it allows whatever the stack below, as a row of bits when many, else
// as ids, and the suffixes and ranges that depend on the stack below.
type exitSet struct {
	dense  []uint32
	ids    []int32
	sufs   []int32
	ranges []int32
	all    bool // everything depends on the stack below: no verdicts kept
}

// exitRecord is what checkSuffixes finds depends on the stack below.
type exitRecord struct {
	sufs, ranges []int32
	all          bool
}

// exitCache holds the verdicts of one grammar.
type exitCache struct {
	mu     sync.Mutex
	costly map[[2]int32]bool // (node, return node) -> the walk is worth keeping
	class  map[int32]int32   // return node -> shape class, -1 when too large
	shapes map[string]int32  // shape -> class
	sets   map[exitKey]*exitSet
	within map[exitKey]*nodeIndex // near-end nodes' classifications by return shape (within.go)
}

// returnClass returns the shape class of return node r, or -1 when its
// shape is too large to describe.
func (c *Compiled) returnClass(r int32) int32 {
	e := &c.exits
	e.mu.Lock()
	cls, ok := e.class[r]
	e.mu.Unlock()
	if ok {
		return cls
	}
	cls = -1
	buf := takeShapeBuf()
	defer putShapeBuf(buf)
	if shape, ok := buf.describe(c, r); ok {
		e.mu.Lock()
		if e.shapes == nil {
			e.shapes = map[string]int32{}
		}
		var known bool
		if cls, known = e.shapes[string(shape)]; !known {
			cls = int32(len(e.shapes))
			e.shapes[string(shape)] = cls
			c.grow(int64(len(shape)))
		}
		e.mu.Unlock()
	}
	e.mu.Lock()
	if e.class == nil {
		e.class = map[int32]int32{}
	}
	e.class[r] = cls
	e.mu.Unlock()
	return cls
}

// checkSuffixesByShape is checkSuffixes for node n's index x at a top
// returning into frame f, through the grammar's verdicts by caller shape.
// It reports false, doing nothing, where those do not apply.
func (m *Matcher) checkSuffixesByShape(out []uint32, n int32, x *nodeIndex, f int32) bool {
	if x.uncertain < minShapedExits {
		return false
	}
	r, below, ok := m.st.SoleReturn(f)
	if !ok {
		return false
	}
	c := m.c
	pair := [2]int32{n, r}
	c.exits.mu.Lock()
	costly, known := c.exits.costly[pair]
	c.exits.mu.Unlock()
	if !known {
		costly = m.exitWork(x, f) >= minShapedExits
		c.exits.mu.Lock()
		if c.exits.costly == nil {
			c.exits.costly = map[[2]int32]bool{}
		}
		c.exits.costly[pair] = costly
		c.exits.mu.Unlock()
	}
	if !costly {
		return false
	}
	cls := c.returnClass(r)
	if cls < 0 {
		return false
	}
	key := exitKey{n, cls}
	c.exits.mu.Lock()
	set := c.exits.sets[key]
	c.exits.mu.Unlock()
	if set != nil {
		if set.all {
			return false
		}
		set.orInto(out)
		if len(set.sufs)+len(set.ranges) > 0 {
			m.checkSome(out, x, f, set.sufs, set.ranges)
		}
		return true
	}
	if cap(m.scratch) < len(out) {
		m.scratch = make([]uint32, len(out))
	}
	row := m.scratch[:len(out)]
	clear(row)
	var rec exitRecord
	m.st.WatchPops(below)
	m.checkSuffixes(row, x, f, &rec, nil)
	m.st.UnwatchPops()
	orWords(out, row)
	if m.st.Err() != nil {
		return true // a step limit cut the walk short: the mask fails, nothing is kept
	}
	set = newExitSet(row, x, &rec, c.voc)
	c.exits.mu.Lock()
	if c.exits.sets == nil {
		c.exits.sets = map[exitKey]*exitSet{}
	}
	if c.exits.sets[key] == nil {
		c.exits.sets[key] = set
		c.grow(int64(4*(len(set.dense)+len(set.ids)+len(set.sufs)+len(set.ranges)) + 96))
	}
	c.exits.mu.Unlock()
	return true
}

// newExitSet keeps the verdicts of row (x's uncertain tokens a caller
// allowed) that did not depend on the stack below, as rec says. A token may
// leave the rule at more than one byte, so it is uncertain in more than one
// suffix or range: one whose verdicts depend on the stack anywhere has all
// its suffixes and ranges walked again at every mask.
func newExitSet(row []uint32, x *nodeIndex, rec *exitRecord, v *vocabIndex) *exitSet {
	if rec.all {
		return &exitSet{all: true}
	}
	ids := v.Trie.IDs()
	dep := make([]uint32, len(row)) // tokens with a verdict that depends
	depSuf := make([]bool, x.numSuffixes())
	depRange := make([]bool, len(x.ranges))
	mark := func(id int32) { dep[id>>5] |= 1 << (uint32(id) & 31) }
	has := func(id int32) bool { return dep[id>>5]&(1<<(uint32(id)&31)) != 0 }
	for _, i := range rec.sufs {
		depSuf[i] = true
		for _, id := range x.sufToks[x.sufGroup[i]:x.sufGroup[i+1]] {
			mark(id)
		}
	}
	for _, k := range rec.ranges {
		depRange[k] = true
		for _, id := range ids[x.ranges[k].lo:x.ranges[k].hi] {
			mark(id)
		}
	}
	for changed := len(rec.sufs)+len(rec.ranges) > 0; changed; {
		changed = false
		for i := range depSuf {
			toks := x.sufToks[x.sufGroup[i]:x.sufGroup[i+1]]
			if !depSuf[i] && slices.ContainsFunc(toks, has) {
				depSuf[i], changed = true, true
				for _, id := range toks {
					mark(id)
				}
			}
		}
		for k, r := range x.ranges {
			if !depRange[k] && slices.ContainsFunc(ids[r.lo:r.hi], has) {
				depRange[k], changed = true, true
				for _, id := range ids[r.lo:r.hi] {
					mark(id)
				}
			}
		}
	}
	s := &exitSet{}
	for i, d := range depSuf {
		if d {
			s.sufs = append(s.sufs, int32(i))
		}
	}
	for k, d := range depRange {
		if d {
			s.ranges = append(s.ranges, int32(k))
		}
	}
	n := 0
	for i := range row {
		row[i] &^= dep[i]
		n += bits.OnesCount32(row[i])
	}
	if n > len(row) {
		s.dense = slices.Clone(row)
		return s
	}
	s.ids = make([]int32, 0, n)
	for i, w := range row {
		for ; w != 0; w &= w - 1 {
			s.ids = append(s.ids, int32(i<<5+bits.TrailingZeros32(w)))
		}
	}
	return s
}

// exitWork is the number of x's suffixes and range tokens that a walk from
// frame f's continuation must step through: those starting with a byte the
// continuation takes.
func (m *Matcher) exitWork(x *nodeIndex, f int32) int {
	st := m.st
	top := st.Depth()
	if !st.PushReturn(f) {
		return 0
	}
	var first byteset.Set
	for _, t := range st.Tops() {
		first.Union(m.c.prog.FirstBytes(t.Node))
	}
	st.Rollback(top)
	work := 0
	for i := 0; i < x.numSuffixes(); i = int(x.sufSkip[i]) {
		if first.Has(x.sufData[x.sufOff[i]]) {
			work += int(x.sufSkip[i]) - i
		}
	}
	tr := m.c.voc.Trie
	for _, r := range x.ranges {
		if first.Has(tr.Token(int(r.lo))[r.at]) {
			work += int(r.hi - r.lo)
		}
	}
	return work
}

func (s *exitSet) orInto(out []uint32) {
	if s.dense != nil {
		orWords(out, s.dense)
		return
	}
	for _, id := range s.ids {
		out[id>>5] |= 1 << (uint32(id) & 31)
	}
}
