package mask

import (
	"math"
	"slices"
	"sync"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/byteset"
	"github.com/reinlm/rein/internal/fillgate"
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

	bg    bool // a background walk (warming): it steps aside for fills (tick)
	ticks int  // its steps since it last did

	trans          []int16 // 256 successors per state: stateUnknown, stateDead, stateFull or a state (int16: half the memory a walk touches)
	canEnd         []bool  // per state: the node's rule may have ended
	topOff         []int32 // state s's tops are tops[topOff[s]:topOff[s+1]]
	tops           []pda.Top
	loops          []loopInfo
	cls            []uint8    // 256 per state: bytes of one class have one successor
	ring           []byte     // 256 per state: the next byte of the same class (see byteClasses)
	folds          []uint8    // per state: the groups of bytes it steps alike, once asked for (foldsAt)
	ids            []int32    // the states by their configurations: an open-addressed hash table, -1 where empty
	set            []int32    // scratch for the UTF-8 loop test
	safes          []safeInfo // per state, once asked for (see safe)
	closure        []int32    // scratch for safe
	set2           []int32    // scratch for safe
	chainStates    []int32    // chainSet's chain
	layer          []int32    // layerSet's current layer, sorted
	nextLayer      []int32    // and the next one
	dieLayer       []int32    // layersDie's next layer
	layerBudget    int        // the configurations layerSet and layersDie may reach
	layerSteps     int        // successors asked for by layerCovers' layers in this walk
	layerStates    int        // configurations they built
	layerStepLimit int        // layers stop where layerSteps passes it
	asciiOff       [][2]int32 // per state, asciiCls[lo:hi] holds its ASCII byte classes (hi 0: not yet; see asciiClasses)
	asciiCls       []byteset.ASCII
	merged         []int32            // scratch for merge
	walkList       []int32            // scratch for classifyThrough and classifyPastChar
	firstClass     [256]uint8         // classifyPastChar's: per first byte, firstDead, firstToOne or firstWalk
	charMemo       map[[2]int32]int32 // classifyPastChar's: charEndsMemo's answers
	apart          [][]uint32         // classifyThrough's rows of tokens taken apart (apartRun)
	apartList      []int32            // scratch for secondBytes
	ends           []charEnds         // per state, once asked for (see utf8Ends)
	endStates      []int32
	entry          []int16  // scratch for safe
	from           []int32  // scratch for safe
	stamps         []uint32 // safe's closure, as a set (see markState)
	stamp          uint32
	pair           []int16    // scratch for byteClasses, -1 when unused
	weights        [256]int32 // per byte, the vocabulary's tokens with it (safe's cuts), a copy: a kept walk holds no vocabulary
	weighted       bool       // weights is set; else safe cuts by counting bytes
	paired         []uint16

	acc          []uint32 // accepted tokens, as a bitmask row
	accepted     []int32  // and as ids, while they are few (classify)
	exits        []exitEntry
	ranges       []exitRange
	path         []int32     // path[d]: the state after d bytes of the current token
	twin         []int32     // walkApart's: the state after d bytes from the loop
	foldPath     []int32     // classifyFolded's, for the tokens walked byte by byte
	foldSorted   []int32     // classifyFolded's, the tokens that die below a node, by position
	clean        []bool      // walkApart's: no rule may end along either walk so far
	except       []uint32    // walkApart's: the tokens walked apart, as a row
	refusedFirst byteset.Set // walkApart's: first bytes the start refuses and the reference takes

	start     int32       // the state the walk starts from (reset, begin)
	first     byteset.Set // the bytes start takes
	maxStates int         // grammar.Limits.WalkStates, lowered by tests
	prunedAny bool        // some subtree was accepted without a walk (for tests)
	chained   bool        // some subtree test followed a chain of distinct states (for tests)
	work      int         // the last classification's work (see classify)
}

const (
	stateUnknown int32 = -3 // successor not computed yet
	stateFull    int32 = -2 // successor would exceed maxStates
	stateDead    int32 = -1
)

var unknownRow = func() (r [256]int16) {
	for i := range r {
		r[i] = int16(stateUnknown)
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
	charsDone bool          // chars is set
	chars     charSet       // the multi-byte UTF-8 characters that lead to succ (through live states)

	layered    bool          // layerASCII, layerChars and layerLimit are set (layerCovers)
	layerLimit int16         // the characters the layers from the state hold for: -1 any number, 0 none
	layerASCII byteset.ASCII // the bytes they take
	layerChars charSet       // and the multi-byte characters
}

const loopVisits = 64

// walkPool keeps walks for reuse, and, unlike a sync.Pool, keeps them
// through garbage collections: a walk's rows are megabytes, and a
// classification on the decode path that grows a new walk touches each
// page for the first time, paying the kernel for it (in fresh MaskBench
// runs, 500 to 2,000 minor page faults in one mask). It holds at most maxFreeWalks, and drops the rows of a walk that
// grew past maxFreeWalkStates configurations, so what it keeps is bounded
// (about 2.5 MiB a walk).
var walkPool walkList

const (
	maxFreeWalks      = 8
	maxFreeWalkStates = 2048
)

type walkList struct {
	mu    sync.Mutex
	walks []*walkDFA
}

// Get returns a free walk, or a new one.
func (l *walkList) Get() *walkDFA {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.walks); n > 0 {
		a := l.walks[n-1]
		l.walks[n-1] = nil
		l.walks = l.walks[:n-1]
		return a
	}
	return new(walkDFA)
}

// Put frees a for a later Get.
func (l *walkList) Put(a *walkDFA) {
	if cap(a.canEnd) > maxFreeWalkStates {
		a.trans, a.cls, a.ring, a.canEnd, a.loops = nil, nil, nil, nil, nil
		a.tops, a.topOff, a.safes, a.ids = nil, nil, nil, nil
	}
	a.p, a.stp = nil, nil // no program is kept alive by a free walk
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.walks) < maxFreeWalks {
		l.walks = append(l.walks, a)
	}
}

// The configurations a classification meets are mostly those its
// neighbours' classifications met: the next position of a literal, the
// other positions of a key, the states of one string rule. Building one
// (its successors, its byte classes) is most of a narrow node's first
// classification, so the walks of the programs classified last are kept,
// configurations and all, and the next classification of the same program
// starts from where they left off (begin), not from nothing.
const (
	walkSlots  = 8   // programs whose walk is kept
	keptStates = 512 // the most configurations a kept walk holds (about 1.2 KiB each)
)

var walkCache struct {
	mu    sync.Mutex
	slots [walkSlots]struct {
		p *pda.Program
		a *walkDFA
	}
	next int // the slot to fill next, round robin
}

// takeWalk returns a walk of p started at node n: p's kept walk where there
// is one with room, else a fresh one. The caller owns it until putWalk.
func takeWalk(p *pda.Program, n int32) *walkDFA {
	var a *walkDFA
	walkCache.mu.Lock()
	for i := range walkCache.slots {
		if s := &walkCache.slots[i]; s.p == p {
			a, s.p, s.a = s.a, nil, nil
			break
		}
	}
	walkCache.mu.Unlock()
	if a != nil && a.numStates() < keptStates && a.begin(n) {
		return a
	}
	if a == nil {
		a = walkPool.Get()
	}
	a.reset(p, n)
	return a
}

// putWalk keeps a, a walk of p, for p's next classification, unless it has
// grown past keptStates; the walk it displaces goes back to the pool.
func putWalk(p *pda.Program, a *walkDFA) {
	a.bg, a.ticks = false, 0
	if a.numStates() > keptStates {
		walkPool.Put(a)
		return
	}
	walkCache.mu.Lock()
	i := walkCache.next
	for k := range walkCache.slots {
		if walkCache.slots[k].p == nil {
			i = k
			break
		}
	}
	if i == walkCache.next {
		walkCache.next = (i + 1) % walkSlots
	}
	old := walkCache.slots[i].a
	walkCache.slots[i].p, walkCache.slots[i].a = p, a
	walkCache.mu.Unlock()
	if old != nil {
		walkPool.Put(old)
	}
}

// reset starts a walk of p from node n with an unknown caller, forgetting
// every configuration met before.
func (a *walkDFA) reset(p *pda.Program, n int32) {
	if a.stp == nil {
		a.stp = pda.NewStepper(p)
	} else {
		a.stp.Reset(p)
	}
	a.p = p
	// Past maxStates, the caller walks a pda.State: each configuration
	// costs 1 KiB of rows. A state is an int16 in trans.
	a.maxStates = min(p.Limits().WalkStates, math.MaxInt16)
	a.trans = a.trans[:0]
	a.canEnd = a.canEnd[:0]
	a.topOff = append(a.topOff[:0], 0)
	a.tops = a.tops[:0]
	a.loops = a.loops[:0]
	a.cls = a.cls[:0]
	a.ring = a.ring[:0]
	a.folds = a.folds[:0]
	a.safes = a.safes[:0]
	a.asciiOff, a.asciiCls = a.asciiOff[:0], a.asciiCls[:0]
	a.ends, a.endStates = a.ends[:0], a.endStates[:0]
	for i := range a.ids {
		a.ids[i] = -1
	}
	a.begin(n)
}

// begin starts a walk from node n of the program a walks already, keeping
// the configurations met so far (their successors are the program's, not
// the walk's), and reports false where there is no room for n's. A node
// without bytes of its own starts from the tops it stands for (a rule
// call's), as a reference of derive.go does.
func (a *walkDFA) begin(n int32) bool {
	if a.p.HasBytes(n) {
		a.start = a.intern([]pda.Top{{Node: n, Frame: -1}}, false)
		a.first = *a.p.FirstBytes(n)
		return a.start >= 0
	}
	return a.beginAt(a.stp.Close(n))
}

// beginWithin starts a walk from node n whose rule returns to node ret
// (the caller of ret's rule unknown), keeping the configurations met so
// far, and reports false where there is no room for it.
func (a *walkDFA) beginWithin(n, ret int32) bool {
	return a.beginAt(a.stp.CloseWithin(n, ret))
}

// beginAt starts a walk from the configuration tops (end: a rule may have
// ended), which the Stepper just closed, and reports false where the
// closure overflowed or there is no room for it.
func (a *walkDFA) beginAt(tops []pda.Top, end bool) bool {
	if a.stp.Overflowed() {
		a.start = stateFull
		return false
	}
	return a.beginTops(tops, end)
}

// beginTops starts a walk from the configuration tops, closed already (a
// union's nodes with bytes, union.go), and reports false where there is no
// room for it.
func (a *walkDFA) beginTops(tops []pda.Top, end bool) bool {
	if a.start = a.intern(tops, end); a.start < 0 {
		return false
	}
	a.first = byteset.Set{}
	for b := range 256 {
		if a.next(a.start, byte(b)) >= 0 {
			a.first.Add(byte(b))
		}
	}
	return true
}

// numStates is the number of configurations the walk keeps.
func (a *walkDFA) numStates() int { return len(a.canEnd) }

// next is the state reached from s on byte b.
func (a *walkDFA) next(s int32, b byte) int32 {
	if t := int32(a.trans[int(s)<<8|int(b)]); t != stateUnknown {
		return t
	}
	a.tick()
	out, end := a.stp.Step(a.tops[a.topOff[s]:a.topOff[s+1]], b)
	if a.stp.Overflowed() {
		// Too ambiguous to walk here: the pushdown walk decides, or fails.
		return stateFull
	}
	t := stateDead
	if len(out) > 0 || end {
		t = a.intern(out, end)
	}
	// Every byte of b's class has the same successor: follow the class's
	// ring of bytes (byteClasses), not all 256. Byte 0xFF is in no ring and
	// stays dead (intern set it): no token's byte spells a token terminal.
	row := a.trans[int(s)<<8 : int(s+1)<<8]
	ring := a.ring[int(s)<<8 : int(s+1)<<8]
	for x := b; ; {
		row[x] = int16(t)
		if x = ring[x]; x == b {
			break
		}
	}
	return t
}

// byteClasses sets state s's byte classes: the coarsest partition of the
// bytes that refines the class table of every top's rule, and the ring of
// each class's bytes (ring[b] is the next byte of b's class, wrapping
// around; byte 0xFF, which no token has, is in none).
func (a *walkDFA) byteClasses(s int32) {
	tops := a.tops[a.topOff[s]:a.topOff[s+1]]
	cls := a.cls[int(s)<<8 : int(s+1)<<8]
	ring := a.ring[int(s)<<8 : int(s+1)<<8]
	if len(tops) == 0 {
		clear(cls)
		pda.LinkClasses(cls, ring)
		return
	}
	copy(cls, a.p.ByteClasses(tops[0].Node))
	if len(tops) == 1 {
		copy(ring, a.p.ClassRing(tops[0].Node))
		return
	}
	defer linkRenumbered(cls, ring)
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

// linkRenumbered is pda.LinkClasses for a class table whose classes are
// numbered in the order of their first bytes, as byteClasses renumbers
// them: no table of first bytes to clear.
func linkRenumbered(cls []uint8, ring []byte) {
	var first, last [256]byte
	n := 0
	for x := range byte(grammar.ReservedByte) {
		c := cls[x]
		if int(c) == n {
			first[c] = x
			n++
		} else {
			ring[last[c]] = x
		}
		last[c] = x
	}
	for c := range n {
		ring[last[c]] = first[c]
	}
	ring[grammar.ReservedByte] = grammar.ReservedByte
}

// intern returns the state of the configuration tops, which are sorted (as
// pda.Stepper.Step returns them).
func (a *walkDFA) intern(tops []pda.Top, end bool) int32 {
	if 2*(len(a.canEnd)+1) > len(a.ids) {
		a.growIDs()
	}
	mask := uint32(len(a.ids) - 1)
	i := hashConfig(tops, end) & mask
	for ; a.ids[i] >= 0; i = (i + 1) & mask {
		s := a.ids[i]
		if a.canEnd[s] == end && slices.Equal(a.tops[a.topOff[s]:a.topOff[s+1]], tops) {
			return s
		}
	}
	s := int32(len(a.canEnd))
	if int(s) >= a.maxStates {
		return stateFull
	}
	a.ids[i] = s
	a.trans = append(a.trans, unknownRow[:]...)
	// No token's bytes take the byte that spells token terminals.
	a.trans[int(s)<<8|grammar.ReservedByte] = int16(stateDead)
	a.canEnd = append(a.canEnd, end)
	a.tops = append(a.tops, tops...)
	a.topOff = append(a.topOff, int32(len(a.tops)))
	a.cls = slices.Grow(a.cls, 256)[:len(a.trans)]
	a.ring = slices.Grow(a.ring, 256)[:len(a.trans)]
	a.byteClasses(s)
	a.folds = append(a.folds, foldsUnknown) // asked for by folded walks only (foldsAt)
	a.loops = append(a.loops, loopInfo{})
	return s
}

// growIDs doubles the table of states by configuration (from 64 slots),
// putting the states in again.
func (a *walkDFA) growIDs() {
	ids := make([]int32, max(2*len(a.ids), 64))
	for i := range ids {
		ids[i] = -1
	}
	mask := uint32(len(ids) - 1)
	for s := range int32(len(a.canEnd)) {
		i := hashConfig(a.tops[a.topOff[s]:a.topOff[s+1]], a.canEnd[s]) & mask
		for ids[i] >= 0 {
			i = (i + 1) & mask
		}
		ids[i] = s
	}
	a.ids = ids
}

// hashConfig hashes a configuration for intern's table.
func hashConfig(tops []pda.Top, end bool) uint32 {
	h := uint64(len(tops))<<1 | uint64(b2u(end))
	for _, t := range tops {
		h ^= uint64(uint32(t.Node)) | uint64(uint32(t.Frame))<<32
		h *= 0x9E3779B97F4A7C15
		h ^= h >> 29
	}
	return uint32(h ^ h>>32)
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// coversSubtree reports whether every token below a trie node, whose bytes
// below it are described by r, is taken whole from state s: along the chain
// of states s, succ(s), succ(succ(s)), ... each state leads each of r's
// ASCII bytes and, if r has others, every multi-byte UTF-8 character to the
// next one, for as many characters as the longest token has bytes below the
// node (or until the chain loops). The chain's states are all alive, so
// every token ends in a live state. It is chainSet's question for one
// subtree, answered without following the chain further than it holds.
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
		if r.NonASCII && a.takesUTF8(s) != allChars {
			return false
		}
		if li.succ == s {
			return true // a loop: every later character is the same test
		}
		a.chained = true
		s = li.succ
	}
	return true
}

// takesUTF8 returns the multi-byte UTF-8 characters that lead s to its
// successor (see loopInfo), computing them on first use.
func (a *walkDFA) takesUTF8(s int32) charSet {
	if !a.loops[s].charsDone {
		cs := a.charsTo(s, a.loops[s].succ)
		a.loops[s].charsDone, a.loops[s].chars = true, cs // after charsTo, which may grow a.loops
	}
	return a.loops[s].chars
}

// charSet is a set of multi-byte UTF-8 characters by their lead byte: bit
// b-0xC0 holds the characters lead byte b starts. Where not every
// character moves a pattern on alike (ECMAScript counts a character
// outside the Basic Multilingual Plane as two, and "." takes neither
// U+2028 nor U+2029), the others may still be taken whole.
type charSet uint64

// allChars holds every multi-byte UTF-8 character: lead bytes C2 to F4.
const allChars charSet = (1<<(0xF4-0xC0+1) - 1) &^ (1<<(0xC2-0xC0) - 1)

// seqOf returns the utf8Seqs entry of the characters lead byte b starts,
// or -1 where b starts none.
func seqOf(b byte) int {
	switch {
	case b >= 0xC2 && b <= 0xDF:
		return 0
	case b == 0xE0:
		return 1
	case b >= 0xE1 && b <= 0xEC:
		return 2
	case b == 0xED:
		return 3
	case b == 0xEE || b == 0xEF:
		return 4
	case b == 0xF0:
		return 5
	case b >= 0xF1 && b <= 0xF3:
		return 6
	case b == 0xF4:
		return 7
	}
	return -1
}

// takesHigh reports whether byte b, from 0x80 up, may be in a token made of
// cs's characters: a lead byte where cs holds its characters, any other
// (a continuation, or a byte UTF-8 never has) where cs holds some, since a
// token of whole characters has such bytes only inside them.
func (cs charSet) takesHigh(b byte) bool {
	if seqOf(b) >= 0 {
		return cs&(1<<(b-0xC0)) != 0
	}
	return cs != 0
}

// charsTo returns the multi-byte UTF-8 characters that all lead from s to
// u, through states that are alive, by lead byte. Lead bytes of one class
// of s and one utf8Seqs entry have one answer.
func (a *walkDFA) charsTo(s, u int32) charSet {
	var cs charSet
	prev, prevOK := -1, false
	for b := 0xC2; b <= 0xF4; b++ {
		k := seqOf(byte(b))
		same := b > 0xC2 && seqOf(byte(b-1)) == k && a.cls[int(s)<<8|b] == a.cls[int(s)<<8|(b-1)]
		if !same || prev < 0 {
			t, ok := a.leadEnd(s, byte(b), k)
			prevOK = ok && t == u
		}
		prev = b
		if prevOK {
			cs |= 1 << (b - 0xC0)
		}
	}
	return cs
}

// leadEnd returns the state every character with lead byte b (of
// utf8Seqs[k]) leads s to, through live states, where there is one.
func (a *walkDFA) leadEnd(s int32, b byte, k int) (int32, bool) {
	t := a.next(s, b)
	if t < 0 {
		return stateDead, false
	}
	return a.rangesEnd(t, utf8Seqs[k][1:])
}

// seqEnd returns the state every character of utf8Seqs[k] leads s to,
// through live states, where there is one.
func (a *walkDFA) seqEnd(s int32, k int) (int32, bool) {
	return a.rangesEnd(s, utf8Seqs[k])
}

// rangesEnd returns the state every byte string of the ranges (one byte
// of each) leads s to, through live states, where there is one.
func (a *walkDFA) rangesEnd(s int32, ranges [][2]byte) (int32, bool) {
	if !a.rangesEnds(s, ranges) || len(a.set) != 1 {
		return stateDead, false
	}
	return a.set[0], true
}

// rangesEnds leaves in a.set the states the byte strings of the ranges (one
// byte of each) lead s to, and reports whether each leads through live
// states.
func (a *walkDFA) rangesEnds(s int32, ranges [][2]byte) bool {
	a.set = append(a.set[:0], s)
	for _, r := range ranges {
		n := len(a.set)
		for _, y := range a.set[:n] {
			for b := int(r[0]); b <= int(r[1]); b++ {
				if b > int(r[0]) && a.cls[int(y)<<8|b] == a.cls[int(y)<<8|(b-1)] {
					continue // the same successor as the byte before
				}
				t := a.next(y, byte(b))
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
	return true
}

// chainSet follows the chain of states s, succ(s), succ(succ(s)), ... (see
// loopInfo) for as many characters as the longest token below a trie node
// has bytes there (r.Depth), until the chain loops or reaches a state that
// takes none of the bytes so far (a string's last position leads on by its
// quote alone). It leaves the chain's states in a.chainStates. Every
// token below with at most chain.depth characters
// there, all among chain.ascii or, where chain.utf8, whole multi-byte UTF-8
// characters, is then taken whole: a string's inside takes every token
// without a quote, a backslash or a control byte, and the positions of a
// maxLength every such token short enough.
func (a *walkDFA) chainSet(s int32, r *toktrie.Rest) chain {
	c := chain{ascii: byteset.ASCII{^uint64(0), ^uint64(0)}, chars: allChars}
	a.chainStates = append(a.chainStates[:0], s)
	for c.depth < int(r.Depth) {
		if !a.loops[s].probed {
			a.probe(s)
		}
		if a.loops[s].succ < 0 {
			break
		}
		chars := c.chars & a.takesUTF8(s)
		li := &a.loops[s] // after takesUTF8, which may grow a.loops
		ascii := byteset.ASCII{c.ascii[0] & li.ascii[0], c.ascii[1] & li.ascii[1]}
		if ascii == (byteset.ASCII{}) && chars == 0 {
			break
		}
		c.ascii, c.chars = ascii, chars
		c.depth++
		if li.succ == s {
			c.depth, c.loop = int(r.Depth), true // every later character is the same test
			break
		}
		a.chained = true
		s = li.succ
		c.ends = c.ends || a.canEnd[s]
		a.chainStates = append(a.chainStates, s)
	}
	c.last = s
	return c
}

// chain is what chainSet finds: the bytes and characters that lead along
// the chain, how many characters it takes, the state it stops at, and
// whether a rule may end at one of its states after the first.
type chain struct {
	ascii byteset.ASCII
	chars charSet
	depth int
	loop  bool
	last  int32
	ends  bool
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
	if li.succ == stateDead {
		// No ASCII byte leads on (a class of characters outside ASCII):
		// the successor is where the commonest multi-byte characters lead,
		// all alike.
		for _, k := range [...]int{2, 0, 4, 6} { // E1-EC, C2-DF, EE-EF, F1-F3
			if u, ok := a.seqEnd(s, k); ok {
				a.loops[s].succ = u
				break
			}
		}
	}
}

// safeInfo is what keeps a walk alive from one state, for ever: every
// string of the ASCII bytes ascii and of whole multi-byte UTF-8
// characters of chars leads through live states only: a loop's own bytes,
// or, for the states of an unanchored pattern or a key that must not be
// one of some names, the bytes all of them take.
type safeInfo struct {
	done    bool
	ascii   byteset.ASCII
	chars   charSet // but where the first state refuses them (see safe)
	closure []int32 // the states the set keeps the walk in
}

const (
	maxSafeStates = 512 // a closure larger than this gets no safe set (an unanchored count of 162 has 164 states), nor one that builds more configurations than this
	maxSafeRounds = 6   // nor one that takes more rounds to settle
)

// safe returns state s's safeInfo, computing it on first use. It starts
// from the ASCII bytes s takes, and every character, and explores the
// closure of s under them, the ASCII bytes first (where s refuses every
// character, that is no matter if nothing leads back to s: such tokens
// die at their first byte). Where a state of the closure refuses one of
// them, the bytes that lead there from the state it was first reached from
// are taken out (or the characters, if one of them led there or s refuses
// one) and the closure explored again: the string's closing quote and the
// escape's backslash go, the bytes inside stay. A closure larger than
// maxSafeStates (the positions of a long maxLength), one that builds more
// than maxSafeStates configurations (each position's own states inside a
// multi-byte character, hundreds of positions over) or one that does not
// settle gets nothing.
//
// With the vocabulary's count of tokens holding each byte (a.weights, set
// by classifyWide), the bytes cut are those of the three that the fewest
// tokens hold: the refused ones, the way in, or the way into a state on
// the path from s to it. They are the tokens the classification walks.
func (a *walkDFA) safe(s int32) *safeInfo {
	a.growSafes(s)
	if a.safes[s].done {
		return &a.safes[s]
	}
	var ascii byteset.ASCII
	for b := range 128 {
		if a.next(s, byte(b)) >= 0 {
			ascii.Add(byte(b))
		}
	}
	chars := allChars
	startRefuses := false // s refuses characters, which the others take
	info := safeInfo{done: true}
	const byChar = 256 // entry: the state was first reached by a character
	built := a.numStates()
rounds:
	for range maxSafeRounds {
		closure := append(a.closure[:0], s)
		entry := append(a.entry[:0], -1) // the byte that first led to each state
		from := append(a.from[:0], -1)   // and the state it led from, by index
		a.stamp++
		a.markState(s)
		cut := func(k int, refusesByte bool) {
			// Cut the way into closure[k], or, where closure[k] refuses
			// an ASCII byte of the set and fewer bytes than lead there,
			// those bytes: the states of an unanchored pattern all take
			// every byte but the closing quote, which the ones before a
			// match refuse, and are reached by most bytes.
			e := entry[k]
			if e == -1 {
				chars = 0 // s itself refuses a character
				a.closure, a.entry, a.from = closure, entry, from
				return
			}
			x, p := closure[k], closure[from[k]]
			var into, refused byteset.ASCII
			if e != byChar {
				into = a.into(p, x, &ascii) // every byte of e's class leads there too
			}
			for b := range byte(128) {
				if refusesByte && ascii.Has(b) && a.next(x, b) < 0 {
					refused.Add(b)
				}
			}
			switch {
			case e == byChar && refusesByte && refused.Len() <= 2:
				ascii.Subtract(&refused) // a quote, say
			case e == byChar:
				// The lead bytes of the characters that lead there.
				if in := a.charsInto(p, x, chars); in != 0 {
					chars &^= in
				} else {
					chars = 0
				}
			case a.weighted:
				// The cut that leaves the fewest tokens to walk: the
				// refused bytes, the way in, or the way into a state on
				// the path to it. Every unanchored pattern of keys
				// spelled "net_", "netdrv_" and "netdir_" ends past an
				// underscore: cutting it keeps the walk off every match,
				// where cutting the letter that completes one leaves a
				// third of the vocabulary to walk.
				best, cost := into, a.weighs(&into)
				if refusesByte {
					if c := a.weighs(&refused); c < cost {
						best, cost = refused, c
					}
				}
				for j := from[k]; j > 0 && entry[j] != byChar; j = from[j] {
					up := a.into(closure[from[j]], closure[j], &ascii)
					if c := a.weighs(&up); c < cost {
						best, cost = up, c
					}
				}
				ascii.Subtract(&best)
			case refusesByte && refused.Len() < into.Len():
				ascii.Subtract(&refused)
			default:
				ascii.Subtract(&into)
			}
			a.closure, a.entry, a.from = closure, entry, from
		}
		// The ASCII bytes first: a closure that some byte cuts, or that
		// grows too large, is found before any state is built inside a
		// multi-byte character (a count's hundreds of positions each have
		// their own).
		for k, u := 0, 0; k < len(closure) || (chars != 0 && u < len(closure)); {
			if k < len(closure) {
				x := closure[k]
				for b := range 128 {
					if !ascii.Has(byte(b)) {
						continue
					}
					t := a.next(x, byte(b))
					if t < 0 {
						if k == 0 {
							break rounds // s refuses a byte it was found to take: cannot happen
						}
						cut(k, true)
						continue rounds
					}
					if !a.marked(t) {
						a.markState(t)
						closure = append(closure, t)
						entry = append(entry, int16(b))
						from = append(from, int32(k))
					}
				}
				k++
				if len(closure) > maxSafeStates || a.numStates()-built > maxSafeStates {
					break rounds
				}
				continue
			}
			x := closure[u]
			var refused charSet
			a.set2, refused = a.charsEnds(x, chars, a.set2[:0])
			if refused != 0 && u == 0 && a.refusesLeads(s) {
				// s refuses every character: that is no matter unless
				// the closure comes back to s (the caller refuses the
				// tokens that start with one, by their first byte).
				startRefuses = true
				u++
				continue
			}
			if refused != 0 {
				// Where x takes some of the characters, the others go
				// ("." refuses U+2028 and U+2029: lead byte E2); where
				// none, the way into x.
				if refused != chars {
					chars &^= refused
				} else {
					cut(u, false)
				}
				continue rounds
			}
			for _, t := range a.set2 {
				if !a.marked(t) {
					a.markState(t)
					closure = append(closure, t)
					entry = append(entry, byChar)
					from = append(from, int32(u))
				}
			}
			u++
			if len(closure) > maxSafeStates || a.numStates()-built > maxSafeStates {
				break rounds
			}
		}
		if startRefuses && chars != 0 && a.reenters(closure, &ascii, chars) {
			chars = 0
			continue rounds
		}
		a.closure, a.entry, a.from = closure, entry, from
		info.ascii, info.chars = ascii, chars
		info.closure = slices.Clone(closure)
		break
	}
	a.growSafes(int32(len(a.canEnd))) // next may have added states
	a.safes[s] = info
	return &a.safes[s]
}

// weighs is the tokens of the vocabulary (a.weights) with a byte of set.
func (a *walkDFA) weighs(set *byteset.ASCII) int {
	n := 0
	for b := range byte(128) {
		if set.Has(b) {
			n += int(a.weights[b])
		}
	}
	return n
}

// into returns the bytes of ascii that lead state p to state x.
func (a *walkDFA) into(p, x int32, ascii *byteset.ASCII) byteset.ASCII {
	var in byteset.ASCII
	for b := range byte(128) {
		if ascii.Has(b) && a.next(p, b) == x {
			in.Add(b)
		}
	}
	return in
}

// markState and marked keep safe's closure as a set, for a closure of
// hundreds of states: a state is in it while its stamp is the current one.
func (a *walkDFA) markState(s int32) {
	for int(s) >= len(a.stamps) {
		a.stamps = append(a.stamps, 0)
	}
	a.stamps[s] = a.stamp
}

func (a *walkDFA) marked(s int32) bool { return int(s) < len(a.stamps) && a.stamps[s] == a.stamp }

// refusesLeads reports whether s refuses every byte that starts a
// multi-byte character.
func (a *walkDFA) refusesLeads(s int32) bool {
	for b := 0xC2; b <= 0xF4; b++ {
		if a.next(s, byte(b)) >= 0 {
			return false
		}
	}
	return true
}

// reenters reports whether some byte of ascii or some character of chars
// leads a state of closure back to its first state.
func (a *walkDFA) reenters(closure []int32, ascii *byteset.ASCII, chars charSet) bool {
	s := closure[0]
	for _, x := range closure {
		for b := range 128 {
			if ascii.Has(byte(b)) && a.next(x, byte(b)) == s {
				return true
			}
		}
		if x == s {
			continue
		}
		var refused charSet
		if a.set2, refused = a.charsEnds(x, chars, a.set2[:0]); refused == 0 && containsState(a.set2, s) {
			return true
		}
	}
	return false
}

func (a *walkDFA) growSafes(s int32) {
	for int(s) >= len(a.safes) {
		a.safes = append(a.safes, safeInfo{})
	}
}

// charsEnds appends to set the states that the multi-byte UTF-8
// characters of cs lead to from x, and returns the lead bytes of cs some
// character of which does not lead through live states (the states set
// holds are then not all of them). Lead bytes of one class of x and one
// utf8Seqs entry have one answer.
func (a *walkDFA) charsEnds(x int32, cs charSet, set []int32) ([]int32, charSet) {
	if cs == allChars {
		if set, ok := a.utf8Ends(x, set); ok {
			return set, 0
		}
	}
	var refused charSet
	prevRefused := false
	for b := 0xC2; b <= 0xF4; b++ {
		if cs&(1<<(b-0xC0)) == 0 {
			continue
		}
		k := seqOf(byte(b))
		if b > 0xC2 && cs&(1<<(b-1-0xC0)) != 0 && seqOf(byte(b-1)) == k && a.cls[int(x)<<8|b] == a.cls[int(x)<<8|(b-1)] {
			// The same successor as the lead byte before: the same ends.
			if prevRefused {
				refused |= 1 << (b - 0xC0)
			}
			continue
		}
		t := a.next(x, byte(b))
		prevRefused = t < 0 || !a.rangesEnds(t, utf8Seqs[k][1:])
		if prevRefused {
			refused |= 1 << (b - 0xC0)
			continue
		}
		for _, u := range a.set {
			if !containsState(set, u) {
				set = append(set, u)
			}
		}
	}
	return set, refused
}

// charsInto returns the lead bytes of cs some character of which leads s
// to x, or may (one that dies on the way).
func (a *walkDFA) charsInto(s, x int32, cs charSet) charSet {
	var into charSet
	for b := 0xC2; b <= 0xF4; b++ {
		if cs&(1<<(b-0xC0)) == 0 {
			continue
		}
		t := a.next(s, byte(b))
		if t < 0 {
			continue
		}
		if !a.rangesEnds(t, utf8Seqs[seqOf(byte(b))][1:]) || containsState(a.set, x) {
			into |= 1 << (b - 0xC0)
		}
	}
	return into
}

// utf8Ends appends to set the states that every multi-byte UTF-8 character
// leads to from x, and reports whether each leads through live states.
func (a *walkDFA) utf8Ends(x int32, set []int32) ([]int32, bool) {
	for int(x) >= len(a.ends) {
		a.ends = append(a.ends, charEnds{})
	}
	if e := a.ends[x]; e.done {
		if e.ok {
			for _, t := range a.endStates[e.lo:e.hi] {
				if !containsState(set, t) {
					set = append(set, t)
				}
			}
		}
		return set, e.ok
	}
	lo := int32(len(a.endStates))
	ok := true
	for _, seq := range utf8Seqs {
		if !a.rangesEnds(x, seq) {
			ok = false
			break
		}
		for _, t := range a.set {
			if !containsState(a.endStates[lo:], t) {
				a.endStates = append(a.endStates, t)
			}
		}
	}
	for int(x) >= len(a.ends) { // next may have added states
		a.ends = append(a.ends, charEnds{})
	}
	a.ends[x] = charEnds{done: true, ok: ok, lo: lo, hi: int32(len(a.endStates))}
	return a.utf8Ends(x, set)
}

// charEnds records utf8Ends for one state: the states every multi-byte
// character leads it to are endStates[lo:hi], when ok.
type charEnds struct {
	done, ok bool
	lo, hi   int32
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

func containsState(set []int32, s int32) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}

// yieldEvery is how many steps a background walk takes between its
// checkpoints (tick): tokens looked at and successors built, tens of
// microseconds of work.
const yieldEvery = 1024

// tick counts a step of a background walk, and every yieldEvery steps
// parks it while fills run (fillgate.Yield): a node's classification takes
// up to milliseconds, and a batch's fill must not wait that long for a
// processor. A fill that needs the node being classified lets the walk go
// on (claimIndex).
func (a *walkDFA) tick() {
	if !a.bg {
		return
	}
	if a.ticks++; a.ticks >= yieldEvery {
		a.ticks = 0
		fillgate.Yield()
	}
}

// classify classifies the sorted vocabulary from node n (see nodeIndex). It
// reports false when the walk met more configurations than it keeps.
func (a *walkDFA) classify(v *vocabIndex, n int32, stride int) (*nodeIndex, bool) {
	a.acc = growClear(a.acc, stride)
	a.exits = a.exits[:0]
	a.ranges = a.ranges[:0]
	a.path = append(a.path[:0], a.start)
	a.prunedAny, a.chained = false, false
	a.work, a.layerSteps, a.layerStates = 0, 0, 0
	first := &a.first
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
	a.accepted = a.accepted[:0]
	accept := func(lo, hi int) {
		if invert {
			return
		}
		for _, id := range ids[lo:hi] {
			a.acc[id>>5] |= 1 << (uint32(id) & 31)
		}
		if count <= stride { // past it the row is kept, not a list
			a.accepted = append(a.accepted, ids[lo:hi]...)
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
	failAt := -1 // the previous token died adding its byte failAt
outer:
	for i := 0; i < len(ids); i++ {
		a.work++
		a.tick()
		tok := tr.Token(i)
		if !first.Has(tok[0]) {
			// No token with this first byte: skip to the next first byte
			// the node takes.
			b := int(tok[0]) + 1
			for b < 256 && !first.Has(byte(b)) {
				b++
			}
			end := tr.FirstByteStart(b)
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
			a.addExitsOn(a.path, ids[i], int32(i), failAt)
			continue
		}
		failAt = -1
		a.path = a.path[:min(l, len(a.path)-1)+1]
		for k := len(a.path) - 1; k < len(tok); k++ {
			s := a.path[k]
			a.work++
			t := int32(a.trans[int(s)<<8|int(tok[k])])
			if t == stateUnknown {
				t = a.next(s, tok[k])
			}
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
				if r := tr.Rest(node); a.coversSubtree(t, r) || a.layerCovers(t, r) {
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
		if !a.leavesBeforeOn(a.path, failAt) {
			// Every token with this token's first failAt+1 bytes dies at
			// the same byte without leaving the rule: refuse them at once.
			end := tr.End(tr.Node(i, failAt+1))
			refuse(i, end)
			i = end - 1
			failAt = -1
			continue
		}
		if end := tr.End(tr.Node(i, failAt+1)); end-i >= minExitRange {
			// So do all tokens with its first failAt+1 bytes, and they
			// could all leave the rule where it could: one range each.
			refuse(i, end)
			a.addRangesOn(a.path, int32(i), int32(end), failAt)
			i = end - 1
			failAt = -1
			continue
		}
		refuse(i, i+1)
		a.addExitsOn(a.path, ids[i], int32(i), failAt)
	}
	a.work += len(a.exits) + len(a.ranges) + a.layerSteps // layerCovers' steps are the walk's too
	var list []int32
	if !invert {
		list = a.accepted
	}
	return newNodeIndex(v, a.acc, list, count, a.exits, a.ranges, stride), true
}

// stepThrough extends path, the states after the first len(path)-1 bytes
// of tok (path[d] after d bytes), through the rest of tok, a step of
// a.work per byte. It returns the path, the byte tok dies at (-1: none),
// and false where the walk met more configurations than it keeps.
func (a *walkDFA) stepThrough(path []int32, tok []byte) ([]int32, int, bool) {
	for k := len(path) - 1; k < len(tok); k++ {
		a.work++
		a.tick()
		t := a.next(path[k], tok[k])
		if t < 0 {
			return path, k, t != stateFull
		}
		path = append(path, t)
	}
	return path, -1, true
}

// leavesBeforeOn reports whether a walk along path could have left the rule
// after one of its first k bytes.
func (a *walkDFA) leavesBeforeOn(path []int32, k int) bool {
	for _, s := range path[1 : k+1] {
		if a.canEnd[s] {
			return true
		}
	}
	return false
}

// addExitsOn records that token id, at position p, may leave the rule after
// any of its first k bytes where path could end.
func (a *walkDFA) addExitsOn(path []int32, id, p int32, k int) {
	for d := 1; d <= k; d++ {
		if a.canEnd[path[d]] {
			a.exits = append(a.exits, exitEntry{id: id, pos: p, at: int32(d)})
		}
	}
}

// addRangesOn records that the tokens at positions lo to hi, which share
// their first failAt+1 bytes and die at the last of them, may leave the
// rule after any of their first failAt bytes where path could end: one
// range for each place.
func (a *walkDFA) addRangesOn(path []int32, lo, hi int32, failAt int) {
	for d := 1; d <= failAt; d++ {
		if a.canEnd[path[d]] {
			a.ranges = append(a.ranges, exitRange{lo: lo, hi: hi, at: int32(d), common: int32(failAt + 1)})
		}
	}
}

func growClear(s []uint32, n int) []uint32 {
	if cap(s) < n {
		return make([]uint32, n)
	}
	s = s[:n]
	clear(s)
	return s
}
