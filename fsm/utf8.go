package fsm

import (
	"slices"
	"sync"
	"unicode/utf8"
)

// Runes adds edges from one state to another that read exactly one code point
// from the given ranges, UTF-8 encoded. pairs holds inclusive ranges as lo, hi
// pairs, like syntax.Regexp.Rune; they need not be sorted or disjoint, and a
// trailing odd element is ignored. Surrogates (U+D800 to U+DFFF), which UTF-8
// cannot encode, and values outside [0, U+10FFFF] never match.
//
// The edges form an acyclic automaton, in practice the minimal one of the
// class (Minimize finds nothing to merge in it): the class is split into
// byte-range sequences (such as [E1-EC][80-BF][80-BF]), which are added in
// order sharing common prefixes, and intermediate states with identical
// outgoing edges are shared, so large classes such as \p{L} or [^"] stay
// compact.
func (n *NFA) Runes(from, to int, pairs []rune) {
	n.check(from, to)
	b := utf8BuilderPool.Get().(*utf8Builder)
	defer utf8BuilderPool.Put(b)
	b.ranges = normalizeRunes(b.ranges[:0], pairs)
	if len(b.ranges) == 0 {
		return
	}
	if b.ranges[len(b.ranges)-1].hi < utf8.RuneSelf {
		for _, r := range b.ranges {
			n.Bytes(from, to, byte(r.lo), byte(r.hi))
		}
		return
	}
	b.reset(n, int32(from), int32(to))
	for _, r := range b.ranges {
		b.seqs = appendUTF8Seqs(b.seqs[:0], r.lo, r.hi)
		for _, s := range b.seqs {
			b.add(s)
		}
	}
	b.finish()
}

type runeRange struct{ lo, hi rune }

// normalizeRunes returns the ranges of pairs clipped to [0, MaxRune], sorted
// and merged, in the storage of rs (which must be empty).
func normalizeRunes(rs []runeRange, pairs []rune) []runeRange {
	for i := 0; i+1 < len(pairs); i += 2 {
		lo, hi := max(pairs[i], 0), min(pairs[i+1], utf8.MaxRune)
		if lo <= hi {
			rs = append(rs, runeRange{lo, hi})
		}
	}
	slices.SortFunc(rs, func(a, b runeRange) int { return int(a.lo - b.lo) })
	out := rs[:0]
	for _, r := range rs {
		if k := len(out); k > 0 && r.lo <= out[k-1].hi+1 {
			out[k-1].hi = max(out[k-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// utf8Seq is a sequence of byte ranges: the byte strings whose i-th byte lies
// in r[i], for i < n.
type utf8Seq struct {
	n int
	r [utf8.UTFMax]byteRange
}

type byteRange struct{ lo, hi byte }

// appendUTF8Seqs appends the byte-range sequences that encode exactly the code
// points in [lo, hi], surrogates left out, in increasing order. Each sequence
// has one encoded length, and every range but the first of its sequence is
// either one continuation byte value or the full continuation range where all
// earlier positions are full too, so that the product of the ranges is exactly
// the set of encodings.
func appendUTF8Seqs(out []utf8Seq, lo, hi rune) []utf8Seq {
	if lo > hi {
		return out
	}
	if lo <= 0xDFFF && hi >= 0xD800 {
		if lo < 0xD800 {
			out = appendUTF8Seqs(out, lo, 0xD7FF)
		}
		if hi > 0xDFFF {
			out = appendUTF8Seqs(out, 0xE000, hi)
		}
		return out
	}
	// Split where the encoded length changes.
	for _, top := range [...]rune{0x7F, 0x7FF, 0xFFFF} {
		if lo <= top && hi > top {
			out = appendUTF8Seqs(out, lo, top)
			return appendUTF8Seqs(out, top+1, hi)
		}
	}
	if hi < utf8.RuneSelf {
		return append(out, utf8Seq{n: 1, r: [utf8.UTFMax]byteRange{{byte(lo), byte(hi)}}})
	}
	// Split until the range covers, for each trailing group of continuation
	// bytes, either one prefix or all values of the group.
	n := utf8.RuneLen(lo)
	for i := 1; i < n; i++ {
		m := rune(1)<<(6*i) - 1 // the low bits of i continuation bytes
		if lo&^m == hi&^m {
			continue
		}
		if lo&m != 0 {
			out = appendUTF8Seqs(out, lo, lo|m)
			return appendUTF8Seqs(out, (lo|m)+1, hi)
		}
		if hi&m != m {
			out = appendUTF8Seqs(out, lo, hi&^m-1)
			return appendUTF8Seqs(out, hi&^m, hi)
		}
	}
	var a, b [utf8.UTFMax]byte
	utf8.EncodeRune(a[:], lo)
	utf8.EncodeRune(b[:], hi)
	s := utf8Seq{n: n}
	for i := range n {
		s.r[i] = byteRange{a[i], b[i]}
	}
	return append(out, s)
}

// utf8Builder turns sorted byte-range sequences into a trie whose equal
// subtrees are merged as soon as they are complete, the incremental
// construction of a minimal acyclic automaton: stack holds the path of the
// last sequence added, whose nodes may still grow; a node that can no longer
// change is compiled into an NFA state, or reuses an equal one found through
// a hash table. Builders are pooled: classes are compiled often.
type utf8Builder struct {
	n        *NFA
	from, to int32
	stack    []pendingNode
	ranges   []runeRange
	seqs     []utf8Seq

	// The compiled states: state[i] has the edges edges[off[i]:off[i+1]].
	state []int32
	off   []int32
	edges []compiledEdge
	hash  []uint64
	table []int32 // open addressing: index into state + 1, or 0 for a free slot
}

var utf8BuilderPool = sync.Pool{New: func() any { return new(utf8Builder) }}

type pendingNode struct {
	done    []compiledEdge // edges to compiled states
	last    byteRange      // the edge to the next node on the stack
	hasLast bool
}

type compiledEdge struct {
	r  byteRange
	to int32
}

func (b *utf8Builder) reset(n *NFA, from, to int32) {
	b.n, b.from, b.to = n, from, to
	b.stack = b.stack[:0]
	b.push(byteRange{}, false)
	b.state, b.edges, b.hash = b.state[:0], b.edges[:0], b.hash[:0]
	b.off = append(b.off[:0], 0)
	b.table = resize(b.table, 64)
}

// push adds a node to the stack, reusing the storage of one popped earlier.
func (b *utf8Builder) push(last byteRange, hasLast bool) {
	if len(b.stack) < cap(b.stack) {
		b.stack = b.stack[:len(b.stack)+1]
	} else {
		b.stack = append(b.stack, pendingNode{})
	}
	top := &b.stack[len(b.stack)-1]
	top.done, top.last, top.hasLast = top.done[:0], last, hasLast
}

func (b *utf8Builder) add(s utf8Seq) {
	p := 0
	for p < s.n && p < len(b.stack) && b.stack[p].hasLast && b.stack[p].last == s.r[p] {
		p++
	}
	if p == s.n {
		return // already present; sequences are prefix-free
	}
	b.freeze(p)
	b.stack[p].last, b.stack[p].hasLast = s.r[p], true
	for i := p + 1; i < s.n; i++ {
		b.push(s.r[i], true)
	}
	b.push(byteRange{}, false)
}

// freeze compiles the nodes below depth keep and hangs them off their parents.
func (b *utf8Builder) freeze(keep int) {
	for len(b.stack) > keep+1 {
		top := len(b.stack) - 1
		st := b.compile(b.stack[top].done)
		b.stack = b.stack[:top]
		parent := &b.stack[top-1]
		parent.done = append(parent.done, compiledEdge{parent.last, st})
		parent.hasLast = false
	}
}

func (b *utf8Builder) finish() {
	b.freeze(0)
	for _, e := range b.stack[0].done {
		b.n.edges = append(b.n.edges, nfaEdge{from: b.from, to: e.to, kind: byteEdge, lo: e.r.lo, hi: e.r.hi})
	}
	b.n = nil
}

// compile returns a state with exactly the given edges: the final state when
// there are none, else a state made earlier with the same edges, else a new one.
func (b *utf8Builder) compile(edges []compiledEdge) int32 {
	if len(edges) == 0 {
		return b.to
	}
	h := uint64(14695981039346656037)
	for _, e := range edges {
		h = (h ^ uint64(e.r.lo)<<40 ^ uint64(e.r.hi)<<32 ^ uint64(uint32(e.to))) * 1099511628211
	}
	mask := uint64(len(b.table) - 1)
	i := h & mask
	for ; b.table[i] != 0; i = (i + 1) & mask {
		k := b.table[i] - 1
		if b.hash[k] == h && slices.Equal(b.edges[b.off[k]:b.off[k+1]], edges) {
			return b.state[k]
		}
	}
	st := int32(b.n.NewState())
	for _, e := range edges {
		b.n.edges = append(b.n.edges, nfaEdge{from: st, to: e.to, kind: byteEdge, lo: e.r.lo, hi: e.r.hi})
	}
	b.table[i] = int32(len(b.state)) + 1
	b.state = append(b.state, st)
	b.hash = append(b.hash, h)
	b.edges = append(b.edges, edges...)
	b.off = append(b.off, int32(len(b.edges)))
	if 2*len(b.state) > len(b.table) {
		b.table = resize(b.table, 2*len(b.table))
		mask = uint64(len(b.table) - 1)
		for k, h := range b.hash {
			i := h & mask
			for b.table[i] != 0 {
				i = (i + 1) & mask
			}
			b.table[i] = int32(k) + 1
		}
	}
	return st
}
