package mask

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sync"

	"github.com/reinlm/rein/internal/pda"
)

// Where a mask meets several tops at once, each at a wide node no
// classification covers yet, the nodes are classified together: one walk
// from all of them, whose accepted tokens are those some node takes whole,
// and whose uncertain tokens are then split among the nodes whose rules
// can end where each token could leave. An object whose patternProperties
// split its keys into "matches none of the patterns" and "matches these
// ones" is the case it is for: its key rules together take every string,
// so their union is classified from the vocabulary's rows, while each
// rule alone, tracking where a pattern starts inside the key, walks the
// whole trie (about 190,000 steps on Llama-3, for each of five rules at
// each of a key's positions). The mask is the same either way: what the
// tops accept is the union's, and each top's uncertain tokens are decided
// against its own frame.

// classifyUnions turns the classification of tops together on; tests turn
// it off to compare.
var classifyUnions = true

// maxUnionTops bounds the tops classified together: a union's walk meets
// the product of their configurations.
const maxUnionTops = 8

// unionIndex is the classification of several nodes together.
type unionIndex struct {
	nodes []int32      // sorted
	acc   *nodeIndex   // the tokens some node takes whole; its uncertain tokens are not used
	parts []*nodeIndex // per node of nodes, its uncertain tokens only (no accepted ones)
}

// part returns node n's uncertain tokens, or nil where n is not one of
// the union's nodes.
func (u *unionIndex) part(n int32) *nodeIndex {
	if i, ok := slices.BinarySearch(u.nodes, n); ok {
		return u.parts[i]
	}
	return nil
}

// lastUnion is a matcher's last union (or none) and the key of the tops
// unionFor found it for.
type lastUnion struct {
	key []byte
	u   *unionIndex
	ok  bool
}

// unionCache holds a grammar's unions by their nodes; a nil entry marks a
// union whose walk failed, classified node by node instead.
type unionCache struct {
	mu sync.Mutex
	m  map[string]*unionIndex
}

// unionFor returns the union classification of the tops that are to be
// classified together, computing it on first use, or nil where fewer than
// two are. Those are the tops at wide nodes with bytes that no
// classification covers yet, below the grammar's outermost rule and not
// classified within their return (within.go); the others (a string's
// escape, a rule's whitespace) are classified one by one. At most
// maxUnionTops are taken.
func (m *Matcher) unionFor(tops []pda.Top) *unionIndex {
	if !classifyUnions || len(tops) < 2 {
		return nil
	}
	c := m.c
	m.unodes = m.unodes[:0]
	for _, t := range tops {
		if t.Frame >= 0 && c.prog.HasBytes(t.Node) && c.index[t.Node].Load() == nil {
			m.unodes = append(m.unodes, t.Node)
		}
	}
	if len(m.unodes) < 2 {
		return nil
	}
	// A union's nodes stay unclassified (the union holds their
	// classification), so every later mask at them comes here again. It
	// finds the union by the tops it started from: the matcher's last one
	// without a lock, the grammar's by this set's key otherwise. The key
	// leads with 0, a union's own key with 1.
	slices.Sort(m.unodes)
	m.ukey = append(m.ukey[:0], 0)
	for _, n := range m.unodes {
		m.ukey = binary.LittleEndian.AppendUint32(m.ukey, uint32(n))
	}
	if m.ulast.ok && bytes.Equal(m.ukey, m.ulast.key) {
		return m.ulast.u
	}
	c.unions.mu.Lock()
	u, known := c.unions.m[string(m.ukey)]
	c.unions.mu.Unlock()
	m.ulast.key = append(m.ulast.key[:0], m.ukey...)
	if !known {
		// newUnion takes m.ukey for the union's own key.
		u = m.newUnion()
		// Nil (no union, or its walk failed) is kept too: the tops left
		// out stay out (the tests below do not change), and the others are
		// classified one by one by this mask, so the set is not met again.
		c.unions.mu.Lock()
		if c.unions.m == nil {
			c.unions.m = map[string]*unionIndex{}
		}
		c.unions.m[string(m.ulast.key)] = u
		c.unions.mu.Unlock()
	}
	m.ulast.u, m.ulast.ok = u, true
	return u
}

// newUnion returns the union classification of m.unodes (sorted, at least
// two, unclassified), which it filters, or nil where fewer than two are to
// be classified together. m.ukey is its to use.
func (m *Matcher) newUnion() *unionIndex {
	c := m.c
	m.unodes = slices.DeleteFunc(m.unodes, func(n int32) bool { return !isWide(c.prog, c.voc, n) || c.useWithin(n) })
	if len(m.unodes) < 2 {
		return nil
	}
	m.unodes = m.unodes[:min(len(m.unodes), maxUnionTops)]
	if u, known := m.knownUnion(); known {
		return u
	}
	// A node classified cheaply alone is: from another grammar's
	// classification of its shape (a union is not shared), or derived
	// from its reference's (the positions of a key that must not be one of
	// its object's names). Classifying it alone costs what the union would
	// spend on it, or less.
	m.unodes = slices.DeleteFunc(m.unodes, func(n int32) bool { return c.cheapIndex(n) != nil })
	if len(m.unodes) < 2 {
		return nil
	}
	u, known := m.knownUnion()
	if known {
		return u
	}
	u = c.classifyUnion(slices.Clone(m.unodes))
	c.unions.mu.Lock()
	if c.unions.m == nil {
		c.unions.m = map[string]*unionIndex{}
	}
	c.unions.m[string(m.ukey)] = u
	c.unions.mu.Unlock()
	return u
}

// knownUnion looks up the union of m.unodes, leaving its key in m.ukey.
func (m *Matcher) knownUnion() (*unionIndex, bool) {
	m.ukey = append(m.ukey[:0], 1)
	for _, n := range m.unodes {
		m.ukey = binary.LittleEndian.AppendUint32(m.ukey, uint32(n))
	}
	c := m.c
	c.unions.mu.Lock()
	defer c.unions.mu.Unlock()
	u, known := c.unions.m[string(m.ukey)]
	return u, known
}

// classifyUnion classifies the sorted nodes together, or returns nil where
// the walk met more configurations than it keeps.
func (c *Compiled) classifyUnion(nodes []int32) *unionIndex {
	p := c.prog
	a := takeWalk(p, nodes[0])
	defer putWalk(p, a)
	tops := make([]pda.Top, len(nodes))
	for i, n := range nodes {
		tops[i] = pda.Top{Node: n, Frame: -1}
	}
	if !a.beginTops(tops, false) {
		return nil
	}
	x, ok := a.classifyWide(c.voc, nodes[0], c.stride, false)
	work := a.work
	if !ok {
		x, ok = a.classify(c.voc, nodes[0], c.stride)
		work += a.work
	}
	if !ok || x.err != nil {
		return nil
	}
	exits, ranges := slices.Clone(a.exits), slices.Clone(a.ranges)
	slices.SortStableFunc(exits, func(e, f exitEntry) int { return int(e.pos - f.pos) })
	u := &unionIndex{nodes: nodes, acc: x, parts: make([]*nodeIndex, len(nodes))}
	none := make([]uint32, c.stride)
	size := x.sizeBytes()
	for i, n := range nodes {
		if !a.begin(n) {
			return nil
		}
		ex, rg, ok := a.splitExits(c.voc, exits, ranges)
		work += a.work
		if !ok {
			return nil
		}
		u.parts[i] = newNodeIndex(c.voc, none, []int32{}, 0, ex, rg, c.stride)
		size += u.parts[i].sizeBytes()
	}
	// Its work is the decode path's; it is no node's classification
	// (IndexStats.Classified).
	c.stats.work.Add(int64(work))
	classifications.Add(1)
	c.grow(int64(size))
	return u
}

// splitExits returns, of a union's exits and ranges (exits sorted by
// position), those where the rule of the walk's start can end: the start's
// node is alive along the token's first bytes up to the exit, and its rule
// may end there. Every token of the union's exits dies in every node of
// it, so these are the node's own uncertain tokens, as its own
// classification would find them. It reports false where the walk met more
// configurations than it keeps.
func (a *walkDFA) splitExits(v *vocabIndex, exits []exitEntry, ranges []exitRange) ([]exitEntry, []exitRange, bool) {
	a.work = 0
	a.path = append(a.path[:0], a.start)
	var prev []byte // the bytes a.path holds the states after
	// alive walks the first at bytes of tok, reusing the path of the
	// previous ones, and reports whether the start's rule may end there.
	alive := func(tok []byte, at int32) (bool, bool) {
		l := min(commonPrefix(prev, tok[:at]), len(a.path)-1)
		a.path = a.path[:l+1]
		var failAt int
		var ok bool
		if a.path, failAt, ok = a.stepThrough(a.path, tok[:at]); failAt >= 0 {
			prev = tok[:failAt]
			return false, ok
		}
		prev = tok[:at]
		return a.canEnd[a.path[at]], true
	}
	var ex []exitEntry
	for _, e := range exits {
		ends, ok := alive(v.Token(int(e.pos)), e.at)
		if !ok {
			return nil, nil, false
		}
		if ends {
			ex = append(ex, e)
		}
	}
	var rg []exitRange
	for _, r := range ranges {
		ends, ok := alive(v.Token(int(r.lo)), r.at)
		if !ok {
			return nil, nil, false
		}
		if ends {
			rg = append(rg, r)
		}
	}
	return ex, rg, true
}
