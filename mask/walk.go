package mask

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/byteset"
	"github.com/reinlm/rein/internal/pda"
	"github.com/reinlm/rein/tokenizer/toktrie"
)

// Classifying a node walks the token trie from the node's configuration.
// Walking through a pda.State costs a closure per byte; walkDFA instead
// builds, lazily, the deterministic automaton whose states are the
// pushdown configurations the walk meets (sets of stack tops over frames
// that are never dropped), so each configuration's successor on a byte is
// computed once and every later step is a table load. It also finds the
// configurations that loop: where every byte of a set, and every whole
// UTF-8 character, leads back to the same configuration (the inside of a
// string, a key, a pattern's star). From such a configuration a whole trie
// subtree whose tokens have only those bytes left is accepted at once,
// without walking it; that is what makes nodes that allow most of the
// vocabulary cheap to classify.
type walkDFA struct {
	p   *pda.Program
	stp *pda.Stepper

	trans  []int32 // 256 successors per state: stateUnknown, stateDead, stateFull or a state
	canEnd []bool  // per state: the node's rule may have ended
	topOff []int32 // state s's tops are tops[topOff[s]:topOff[s+1]]
	tops   []pda.Top
	loops  []loopInfo
	cls    []uint8 // 256 per state: bytes of one class have one successor
	ids    map[string]int32
	key    []byte
	set    []int32 // scratch for the UTF-8 loop test
	pair   []int16 // scratch for byteClasses, -1 when unused
	paired []uint16

	acc   []uint32 // accepted tokens, as a bitmask row
	exits []exitEntry
	path  []int32 // path[d]: the state after d bytes of the current token

	maxStates int  // grammar.Limits.WalkStates, lowered by tests
	prunedAny bool // some subtree was accepted without a walk (for tests)
	chained   bool // some subtree test followed a chain of distinct states (for tests)
}

const (
	stateUnknown int32 = -3 // successor not computed yet
	stateFull    int32 = -2 // successor would exceed maxStates
	stateDead    int32 = -1
)

var unknownRow = func() (r [256]int32) {
	for i := range r {
		r[i] = stateUnknown
	}
	return r
}()

// loopInfo says where most input leads a state: succ, the successor of most
// ASCII bytes, the bytes that lead there, and whether every multi-byte UTF-8
// character does too. A state inside a string or a pattern's star loops
// (succ is the state itself); a position of a counted repetition
// (maxLength) leads every character to the next position. It is filled in
// once pruning asks, after the walk has seen the state loop on some byte or
// entered it loopVisits times.
type loopInfo struct {
	visits    int32         // times the walk entered the state
	candidate bool          // the state looped on some byte, or was entered often
	probed    bool          // succ and ascii are set
	succ      int32         // the successor of most ASCII bytes (stateDead: none alive)
	ascii     byteset.ASCII // the ASCII bytes that lead to succ
	utf8      int8          // 0 untested, 1 every multi-byte UTF-8 character leads to succ (through live states), -1 not
}

const loopVisits = 64

var walkPool = sync.Pool{New: func() any { return &walkDFA{ids: map[string]int32{}} }}

// reset starts a walk of p from node n with an unknown caller.
func (a *walkDFA) reset(p *pda.Program, n int32) {
	if a.stp == nil {
		a.stp = pda.NewStepper(p)
	} else {
		a.stp.Reset(p)
	}
	a.p = p
	a.maxStates = p.Limits().WalkStates // past it, the caller walks a pda.State: each configuration costs a 1 KiB row
	a.trans = a.trans[:0]
	a.canEnd = a.canEnd[:0]
	a.topOff = append(a.topOff[:0], 0)
	a.tops = a.tops[:0]
	a.loops = a.loops[:0]
	a.cls = a.cls[:0]
	clear(a.ids)
	a.intern([]pda.Top{{Node: n, Frame: -1}}, false)
}

// next is the state reached from s on byte b.
func (a *walkDFA) next(s int32, b byte) int32 {
	if t := a.trans[int(s)<<8|int(b)]; t != stateUnknown {
		return t
	}
	out, end := a.stp.Step(a.tops[a.topOff[s]:a.topOff[s+1]], b)
	if a.stp.Overflowed() {
		// Too ambiguous to walk here: the pushdown walk decides, or fails.
		return stateFull
	}
	t := stateDead
	if len(out) > 0 || end {
		t = a.intern(out, end)
	}
	// Every byte of b's class has the same successor.
	row := a.trans[int(s)<<8 : int(s+1)<<8]
	cls := a.cls[int(s)<<8 : int(s+1)<<8]
	// Byte 0xFF stays dead whatever its class (intern set it): no token's
	// byte spells a token terminal.
	for x, c := range cls[:grammar.ReservedByte] {
		if c == cls[b] {
			row[x] = t
		}
	}
	return t
}

// byteClasses sets state s's byte classes: the coarsest partition of the
// bytes that refines the class table of every top's rule.
func (a *walkDFA) byteClasses(s int32) {
	tops := a.tops[a.topOff[s]:a.topOff[s+1]]
	cls := a.cls[int(s)<<8 : int(s+1)<<8]
	if len(tops) == 0 {
		clear(cls)
		return
	}
	copy(cls, a.p.ByteClasses(tops[0].Node))
	if len(a.pair) == 0 {
		a.pair = make([]int16, 1<<16)
		for i := range a.pair {
			a.pair[i] = -1
		}
	}
	for _, t := range tops[1:] {
		tab := a.p.ByteClasses(t.Node)
		n := int16(0)
		for b := range cls {
			k := uint16(cls[b])<<8 | uint16(tab[b])
			if a.pair[k] < 0 {
				a.pair[k] = n
				n++
				a.paired = append(a.paired, k)
			}
			cls[b] = uint8(a.pair[k])
		}
		for _, k := range a.paired {
			a.pair[k] = -1
		}
		a.paired = a.paired[:0]
	}
}

// intern returns the state of the configuration tops, which are sorted (as
// pda.Stepper.Step returns them).
func (a *walkDFA) intern(tops []pda.Top, end bool) int32 {
	a.key = a.key[:0]
	if end {
		a.key = append(a.key, 1)
	} else {
		a.key = append(a.key, 0)
	}
	for _, t := range tops {
		a.key = binary.LittleEndian.AppendUint32(a.key, uint32(t.Node))
		a.key = binary.LittleEndian.AppendUint32(a.key, uint32(t.Frame))
	}
	if s, ok := a.ids[string(a.key)]; ok {
		return s
	}
	s := int32(len(a.canEnd))
	if int(s) >= a.maxStates {
		return stateFull
	}
	a.ids[string(a.key)] = s
	a.trans = append(a.trans, unknownRow[:]...)
	// No token's bytes take the byte that spells token terminals.
	a.trans[int(s)<<8|grammar.ReservedByte] = stateDead
	a.canEnd = append(a.canEnd, end)
	a.tops = append(a.tops, tops...)
	a.topOff = append(a.topOff, int32(len(a.tops)))
	a.cls = slices.Grow(a.cls, 256)[:len(a.trans)]
	a.byteClasses(s)
	a.loops = append(a.loops, loopInfo{})
	return s
}

// coversSubtree reports whether every token below a trie node, whose bytes
// below it are described by r, is taken whole from state s: along the chain
// of states s, succ(s), succ(succ(s)), ... each state leads each of r's
// ASCII bytes and, if r has others, every multi-byte UTF-8 character to the
// next one, for as many characters as the longest token has bytes below the
// node (or until the chain loops). The chain's states are all alive, so
// every token ends in a live state.
func (a *walkDFA) coversSubtree(s int32, r *toktrie.Rest) bool {
	na := (*byteset.ASCII)(&r.ASCII)
	if r.NonASCII && !r.ValidUTF8 {
		return false
	}
	for range int(r.Depth) {
		if !a.loops[s].probed {
			a.probe(s)
		}
		li := &a.loops[s]
		if li.succ < 0 || !na.SubsetOf(&li.ascii) {
			return false
		}
		if r.NonASCII {
			if li.utf8 == 0 {
				ok := a.leadsUTF8(s, li.succ)
				li = &a.loops[s] // leadsUTF8 may have grown a.loops
				li.utf8 = -1
				if ok {
					li.utf8 = 1
				}
			}
			if li.utf8 < 0 {
				return false
			}
		}
		if li.succ == s {
			return true // a loop: every later character is the same test
		}
		a.chained = true
		s = li.succ
	}
	return true
}

// probe sets state s's loopInfo successor and the ASCII bytes leading to it.
func (a *walkDFA) probe(s int32) {
	var next [128]int32
	var succ [8]int32
	var count [8]int
	n := 0
	for b := range next {
		t := a.next(s, byte(b))
		next[b] = t
		if t < 0 {
			continue
		}
		k := 0
		for k < n && succ[k] != t {
			k++
		}
		if k == n {
			if n == len(succ) {
				continue // rare: the first successors decide
			}
			succ[k] = t
			n++
		}
		count[k]++
	}
	li := &a.loops[s] // after the steps, which may have grown a.loops
	li.probed, li.succ = true, stateDead
	best := 0
	for k := range n {
		if count[k] > best {
			best, li.succ = count[k], succ[k]
		}
	}
	for b, t := range next {
		if t == li.succ && t >= 0 {
			li.ascii.Add(byte(b))
		}
	}
}

// utf8Seqs are the multi-byte UTF-8 characters, as byte ranges.
var utf8Seqs = [][][2]byte{
	{{0xC2, 0xDF}, {0x80, 0xBF}},
	{{0xE0, 0xE0}, {0xA0, 0xBF}, {0x80, 0xBF}},
	{{0xE1, 0xEC}, {0x80, 0xBF}, {0x80, 0xBF}},
	{{0xED, 0xED}, {0x80, 0x9F}, {0x80, 0xBF}},
	{{0xEE, 0xEF}, {0x80, 0xBF}, {0x80, 0xBF}},
	{{0xF0, 0xF0}, {0x90, 0xBF}, {0x80, 0xBF}, {0x80, 0xBF}},
	{{0xF1, 0xF3}, {0x80, 0xBF}, {0x80, 0xBF}, {0x80, 0xBF}},
	{{0xF4, 0xF4}, {0x80, 0x8F}, {0x80, 0xBF}, {0x80, 0xBF}},
}

// leadsUTF8 reports whether every multi-byte UTF-8 character leads from s
// to u, through states that are alive.
func (a *walkDFA) leadsUTF8(s, u int32) bool {
	for _, seq := range utf8Seqs {
		a.set = append(a.set[:0], s)
		for _, r := range seq {
			n := len(a.set)
			for _, x := range a.set[:n] {
				for b := int(r[0]); b <= int(r[1]); b++ {
					t := a.next(x, byte(b))
					if t < 0 {
						return false
					}
					if !containsState(a.set[n:], t) {
						a.set = append(a.set, t)
					}
				}
			}
			a.set = append(a.set[:0], a.set[n:]...)
		}
		if len(a.set) != 1 || a.set[0] != u {
			return false
		}
	}
	return true
}

func containsState(set []int32, s int32) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}

// classify classifies the sorted vocabulary from node n (see nodeIndex). It
// reports false when the walk met more configurations than it keeps.
func (a *walkDFA) classify(v *vocabIndex, n int32, stride int) (*nodeIndex, bool) {
	a.acc = growClear(a.acc, stride)
	a.exits = a.exits[:0]
	a.path = append(a.path[:0], 0)
	a.prunedAny, a.chained = false, false
	first := a.p.FirstBytes(n)
	tr := v.Trie // one load, not one per use: the loop calls out between uses
	ids := tr.IDs()
	// The row costs a store per token put in it. Where the node's first
	// bytes cover most of the vocabulary, start from every token and take
	// out the refused ones instead.
	live := 0
	for b := range 256 {
		if first.Has(byte(b)) {
			live += tr.FirstByteCount(byte(b))
		}
	}
	invert := 2*live > len(ids)
	count := 0
	if invert {
		copy(a.acc, v.perTrie.all)
		count = len(ids)
	}
	accept := func(lo, hi int) {
		if invert {
			return
		}
		for _, id := range ids[lo:hi] {
			a.acc[id>>5] |= 1 << (uint32(id) & 31)
		}
		count += hi - lo
	}
	refuse := func(lo, hi int) {
		if !invert {
			return
		}
		for _, id := range ids[lo:hi] {
			a.acc[id>>5] &^= 1 << (uint32(id) & 31)
		}
		count -= hi - lo
	}
	addExits := func(i int, tok []byte, reached int) {
		// The walk may leave the rule after d bytes wherever it could end.
		for d := 1; d <= reached && d < len(tok); d++ {
			if a.canEnd[a.path[d]] {
				a.exits = append(a.exits, exitEntry{id: ids[i], pos: int32(i), at: int32(d)})
			}
		}
	}
	failAt := -1 // the previous token died adding its byte failAt
outer:
	for i := 0; i < len(ids); i++ {
		tok := tr.Token(i)
		if !first.Has(tok[0]) {
			// No token with this first byte: skip its subtree.
			end := tr.End(tr.Node(i, 1))
			refuse(i, end)
			i = end - 1
			failAt = -1
			a.path = a.path[:1]
			continue
		}
		l := tr.LCP(i)
		if failAt >= 0 && l > failAt {
			// Dies where the previous token died; it may still leave the
			// rule before that.
			refuse(i, i+1)
			addExits(i, tok, failAt)
			continue
		}
		failAt = -1
		a.path = a.path[:min(l, len(a.path)-1)+1]
		for k := len(a.path) - 1; k < len(tok); k++ {
			s := a.path[k]
			t := a.next(s, tok[k])
			if t < 0 {
				if t == stateFull {
					return nil, false
				}
				failAt = k
				break
			}
			a.path = append(a.path, t)
			if li := &a.loops[t]; !li.candidate {
				li.visits++
				li.candidate = t == s || li.visits >= loopVisits
			}
			if k+1 > l && a.loops[t].candidate {
				// The subtree of this token's first k+1 bytes starts here;
				// when all of it stays in this loop, it is all accepted.
				node := tr.Node(i, k+1)
				if a.coversSubtree(t, tr.Rest(node)) {
					end := tr.End(node)
					accept(i, end)
					a.prunedAny = true
					i = end - 1
					continue outer
				}
			}
		}
		if failAt < 0 {
			// Every byte was taken, so some stack is alive or the rule
			// ended exactly here: allowed whatever lies below.
			accept(i, i+1)
			continue
		}
		if !a.leavesBefore(failAt) {
			// Every token with this token's first failAt+1 bytes dies at
			// the same byte without leaving the rule: refuse them at once.
			end := tr.End(tr.Node(i, failAt+1))
			refuse(i, end)
			i = end - 1
			failAt = -1
			continue
		}
		refuse(i, i+1)
		addExits(i, tok, failAt)
	}
	return newNodeIndex(v, a.acc, count, a.exits, stride), true
}

// leavesBefore reports whether the current token's walk could have left the
// rule after one of its first k bytes (1 <= d <= k).
func (a *walkDFA) leavesBefore(k int) bool {
	for _, s := range a.path[1 : k+1] {
		if a.canEnd[s] {
			return true
		}
	}
	return false
}

func growClear(s []uint32, n int) []uint32 {
	if cap(s) < n {
		return make([]uint32, n)
	}
	s = s[:n]
	clear(s)
	return s
}
