package mask

import (
	"math/bits"
	"slices"

	"github.com/reinlm/rein/internal/byteset"
	"github.com/reinlm/rein/internal/pda"
	"github.com/reinlm/rein/tokenizer/toktrie"
)

// A wide node is one whose first bytes start most of the vocabulary: the
// inside of a string, of a key that must not be one of some names, of an
// unanchored pattern, the positions of a maxLength. From such a node some
// set of bytes keeps the walk alive however long a token goes on (a loop's
// bytes, or those every state of a closure takes), or for a known number of
// characters (a chain of positions). Every token made of those bytes, and
// short enough along a chain, is then accepted without a walk: its row is
// the vocabulary's row of tokens without the other bytes (built once per
// set of bytes and shared by every grammar), masked by the row of tokens of
// at most so many characters. Only the tokens with one of the other bytes
// are walked, and fewer still where those bytes kill the walk wherever they
// come and no state of the set may leave the rule: a control byte or a
// broken character inside a string refuses its token, and only the tokens
// with a quote or a backslash are walked. So the first classification of a
// string's inside walks a few thousand tokens, not the trie.

// wideShare: a node whose first bytes start more than 1/wideShare of the
// vocabulary's tokens is wide.
const wideShare = 16

// isWide reports whether node n of p is wide.
func isWide(p *pda.Program, v *vocabIndex, n int32) bool {
	return startsWide(v, p.FirstBytes(n))
}

// startsWide reports whether the first bytes first start more than
// 1/wideShare of the vocabulary's tokens.
func startsWide(v *vocabIndex, first *byteset.Set) bool {
	live := 0
	for b := range 256 {
		if first.Has(byte(b)) {
			live += v.FirstByteCount(byte(b))
		}
	}
	return live*wideShare > v.Len()
}

// maxWideWalk bounds, as a share of the vocabulary, the tokens classifyWide
// walks; a node that would walk more is classified by the trie walk.
const maxWideWalk = 8

// classifyWide classifies from the walk's start when it is a wide node with
// such a set of bytes, reporting false when it is not (or when the walk met
// more configurations than it keeps: the caller's fallbacks decide then).
// The set is taken along the start's chain of states (chainSet) or, where
// that leaves too many tokens to walk, in its closure (safe): a key that
// must not be one of some names loops, once off them, on bytes that leave
// out the names' first letters, while its closure, which takes the names'
// states in, keeps every byte but the quote and the backslash.
func (a *walkDFA) classifyWide(v *vocabIndex, n int32, stride int) (*nodeIndex, bool) {
	a.work = 0 // a kept walk holds its last classification's
	if !startsWide(v, &a.first) {
		return nil, false
	}
	// A chain is followed for chainCap characters at most: longer tokens,
	// which are few, are walked.
	root := toktrie.Rest{Depth: chainCap}
	c := a.chainSet(a.start, &root)
	chained := wideSet{ascii: c.ascii, chars: c.chars, limit: -1}
	switch {
	case c.loop:
	case c.depth == chainCap:
		chained.limit, chained.walkLong = chainCap, true
	case c.depth > 0 && !c.ends && a.refusesAll(c.last, &c.ascii, c.chars):
		chained.limit = c.depth // longer tokens of those bytes die after the chain, refused
	default:
		chained = wideSet{} // nothing along the chain
	}
	chained.states = slices.Clone(a.chainStates)
	// The candidate with the fewer tokens to walk, by an estimate from the
	// vocabulary's byte counts, before any set of tokens is built.
	var best *wideSet
	cost := v.Len()
	if a.plan(v, &chained) {
		best, cost = &chained, chained.cost
	}
	if cost*maxWideWalk*4 > v.Len() { // not clearly good: the closure may do better
		sf := a.safe(a.start)
		closed := wideSet{ascii: sf.ascii, states: sf.closure, limit: -1}
		if sf.utf8 {
			closed.chars = allChars
		}
		if a.plan(v, &closed) && closed.cost < cost {
			best = &closed
		}
	}
	if best == nil {
		return nil, false
	}
	return a.classifyThrough(v, best, stride)
}

// plan fills in w's dirty and walked bytes and estimates the tokens it
// would walk, reporting false where w is empty or the estimate is too high.
func (a *walkDFA) plan(v *vocabIndex, w *wideSet) bool {
	if w.ascii == (byteset.ASCII{}) && w.chars == 0 {
		return false
	}
	// The other bytes; the killers among them, which no state of the set
	// takes, refuse their token unless a state may leave the rule first.
	ends := false
	for _, s := range w.states {
		ends = ends || a.canEnd[s]
	}
	w.dirty, w.walked = byteKey{wholeUTF8: w.chars != 0}, byteKey{wholeUTF8: w.chars != 0}
	w.cost = 0
	most := 0
	for b := range 256 {
		if b < 0x80 && w.ascii.Has(byte(b)) || b >= 0x80 && w.chars.takesHigh(byte(b)) {
			continue
		}
		w.dirty.bytes.Add(byte(b))
		if ends || !a.refusedBy(w.states, byte(b)) {
			w.walked.bytes.Add(byte(b))
			w.cost += v.WithByteInside(byte(b))
			most = max(most, v.WithByteInside(byte(b)))
		}
	}
	// The walk takes every token with a walked byte after its first, but
	// for those whose first byte the start refuses: where one byte alone
	// brings more than classifyThrough walks, the set is given up before
	// its list is built (a pass over the vocabulary). A sum over bytes
	// counts a token once per byte it has: allow for it.
	return (most-a.refusedFirstTokens(v))*maxWideWalk <= v.Len() && w.cost*maxWideWalk <= v.Len()*4
}

// refusedFirstTokens is the number of tokens whose first byte the walk's
// start refuses.
func (a *walkDFA) refusedFirstTokens(v *vocabIndex) int {
	n := 0
	for b := range 256 {
		if !a.first.Has(byte(b)) {
			n += v.FirstByteCount(byte(b))
		}
	}
	return n
}

// wideSet is a set of bytes that keeps a walk alive: the ASCII bytes, and
// the whole multi-byte characters of chars; the states they keep it
// in; how many characters they are good for (-1: any number), and whether
// the tokens longer than that must be walked (else they are refused).
type wideSet struct {
	ascii    byteset.ASCII
	chars    charSet
	states   []int32
	limit    int
	walkLong bool

	dirty, walked byteKey // plan's: the bytes not in the set, those of them walked
	cost          int     // plan's estimate of the tokens walked
}

// classifyThrough classifies from the walk's start through w, which plan
// has filled in, reporting false where it would walk too many tokens, where
// a token set is over its budget, or where the walk met more
// configurations than it keeps (the caller's fallbacks decide then).
func (a *walkDFA) classifyThrough(v *vocabIndex, w *wideSet, stride int) (*nodeIndex, bool) {
	// A token whose first byte the start refuses is refused there, before
	// any way out of the rule: only the others are walked.
	var first byteset.Set
	for b := range 256 {
		if a.next(a.start, byte(b)) >= 0 {
			first.Add(byte(b))
		}
	}
	dirty, walked := w.dirty, w.walked
	sets := &v.perTrie.sets
	all, ok := sets.containing(v.Trie, walked)
	if !ok {
		return nil, false
	}
	// The positions of one first byte are a run of the trie.
	walk := a.walkList[:0]
	for b := range 256 {
		if !first.Has(byte(b)) || v.FirstByteCount(byte(b)) == 0 {
			continue
		}
		lo, _ := slices.BinarySearch(all, int32(v.FirstByteStart(b)))
		hi, _ := slices.BinarySearch(all, int32(v.FirstByteStart(b+1)))
		walk = append(walk, all[lo:hi]...)
	}
	a.walkList = walk
	if len(walk)*maxWideWalk > v.Len() {
		return nil, false
	}
	if w.walkLong {
		long, ok := sets.longer(v, w.limit)
		if !ok {
			return nil, false
		}
		walk = a.merge(walk, long)
	}
	clean, ok := sets.without(v, dirty)
	if !ok {
		return nil, false
	}
	a.acc = append(a.acc[:0], clean...)
	if !a.takesFirst(&first, w) {
		starts, ok := sets.startingWith(v, first)
		if !ok {
			return nil, false
		}
		for i, s := range starts {
			a.acc[i] &= s
		}
	}
	if w.limit >= 0 {
		short, ok := sets.atMost(v, w.limit)
		if !ok {
			return nil, false
		}
		for i, s := range short {
			a.acc[i] &= s
		}
	}
	a.acc = growTo(a.acc, stride)
	// Walk the others, each from the start, reusing the previous one's
	// path where they share a prefix.
	a.exits = a.exits[:0]
	a.path = append(a.path[:0], a.start)
	a.work = len(walk)
	ids := v.IDs()
	var prev []byte
	for _, p := range walk {
		tok := v.Token(int(p))
		l := min(commonPrefix(prev, tok), len(a.path)-1)
		a.path = a.path[:l+1]
		prev = tok
		failAt := -1
		for k := l; k < len(tok); k++ {
			a.work++
			t := a.next(a.path[k], tok[k])
			if t < 0 {
				if t == stateFull {
					return nil, false
				}
				failAt = k
				break
			}
			a.path = append(a.path, t)
		}
		id := ids[p]
		if failAt < 0 {
			a.acc[id>>5] |= 1 << (uint32(id) & 31)
			continue
		}
		for d := 1; d <= failAt; d++ {
			if a.canEnd[a.path[d]] {
				a.exits = append(a.exits, exitEntry{id: id, pos: p, at: int32(d)})
			}
		}
		// The path holds this token's states up to its death only.
		prev = tok[:failAt]
	}
	count := 0
	for _, w := range a.acc {
		count += bits.OnesCount32(w)
	}
	a.work += len(a.exits)
	return newNodeIndex(v, a.acc, nil, count, a.exits, nil, stride), true
}

// takesFirst reports whether the start takes, as a first byte, every byte
// a clean token of w can start with.
func (a *walkDFA) takesFirst(first *byteset.Set, w *wideSet) bool {
	for b := range 256 {
		clean := b < 0x80 && w.ascii.Has(byte(b)) || seqOf(byte(b)) >= 0 && w.chars.takesHigh(byte(b))
		if clean && !first.Has(byte(b)) {
			return false
		}
	}
	return true
}

// chainCap is the most characters classifyWide follows a chain for.
const chainCap = 16

// merge returns the union of the sorted lists x and y, in a scratch slice.
func (a *walkDFA) merge(x, y []int32) []int32 {
	a.merged = a.merged[:0]
	for len(x) > 0 || len(y) > 0 {
		switch {
		case len(y) == 0 || len(x) > 0 && x[0] < y[0]:
			a.merged, x = append(a.merged, x[0]), x[1:]
		case len(x) == 0 || y[0] < x[0]:
			a.merged, y = append(a.merged, y[0]), y[1:]
		default:
			a.merged, x, y = append(a.merged, x[0]), x[1:], y[1:]
		}
	}
	return a.merged
}

// refusedBy reports whether every state of states refuses byte b.
func (a *walkDFA) refusedBy(states []int32, b byte) bool {
	for _, s := range states {
		if a.next(s, b) >= 0 {
			return false
		}
	}
	return true
}

// refusesAll reports whether state s refuses every byte of ascii and
// every byte that starts a character of chars.
func (a *walkDFA) refusesAll(s int32, ascii *byteset.ASCII, chars charSet) bool {
	for b := range 256 {
		if (b < 0x80 && ascii.Has(byte(b)) || seqOf(byte(b)) >= 0 && chars.takesHigh(byte(b))) && a.next(s, byte(b)) >= 0 {
			return false
		}
	}
	return true
}

func growTo(s []uint32, n int) []uint32 {
	for len(s) < n {
		s = append(s, 0)
	}
	return s[:n]
}
