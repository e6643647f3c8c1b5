package mask

import (
	"iter"
	"math"
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
// states in, keeps every byte but the quote and the backslash. With cheap,
// it walks only where a set is clearly good (a few thousand tokens), as
// for a node that a union of nodes would otherwise classify (union.go):
// one walk for them all costs less than two middling ones.
func (a *walkDFA) classifyWide(v *vocabIndex, n int32, stride int, cheap bool) (*nodeIndex, bool) {
	a.work = 0 // a kept walk holds its last classification's
	a.weights, a.weighted = v.perTrie.weight, true
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
	if !clearlyGood(v, cost) { // the closure may do better
		sf := a.safe(a.start)
		closed := wideSet{ascii: sf.ascii, chars: sf.chars, states: sf.closure, limit: -1}
		if a.plan(v, &closed) && closed.cost < cost {
			best, cost = &closed, closed.cost
		}
	}
	if !clearlyGood(v, cost) { // the layers may do better
		if layered, ok := a.layerSet(a.start); ok && a.plan(v, &layered) && layered.cost < cost {
			best = &layered
		}
	}
	if best == nil || cheap && !clearlyGood(v, best.cost) {
		return nil, false
	}
	return a.classifyThrough(v, best, stride, !cheap)
}

// clearlyGood reports whether a set that walks about cost tokens is
// clearly good: no other set is tried, and a cheap classification takes it.
func clearlyGood(v *vocabIndex, cost int) bool {
	return cost*maxWideWalk*4 <= v.Len()
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
			if a.first.Has(byte(b)) && !a.mayTakeApart(v, w, byte(b)) {
				w.cost += v.FirstByteCount(byte(b)) // every token it starts
			}
		}
	}
	// The walk takes every token with a walked byte after its first, but
	// for those whose first byte the start refuses: where one byte alone
	// brings more than classifyThrough walks, the set is given up before
	// its list is built (a pass over the vocabulary). A sum over bytes
	// counts a token once per byte it has: allow for it.
	long := 0
	if w.walkLong {
		// The tokens longer than the set holds for, walked whatever bytes
		// they have.
		to := w.longTo
		if to <= 0 {
			to = maxCountedChars
		}
		long = v.CountChars(w.limit, to)
		w.cost += long
	}
	return (most-a.refusedFirstTokens(v))*maxWideWalk <= v.Len() && long*maxWideWalk <= v.Len() && w.cost*maxWideWalk <= v.Len()*4
}

// maxCountedChars is the most characters toktrie.Trie.CountChars counts
// up to.
const maxCountedChars = 254

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
	longTo   int // with walkLong, where more than 0: the longer tokens walked are those of at most longTo characters; the others die, refused

	dirty, walked byteKey // plan's: the bytes not in the set, those of them walked
	cost          int     // plan's estimate of the tokens walked
}

// classifyThrough classifies from the walk's start through w, which plan
// has filled in, reporting false where it would walk too many tokens, where
// a token set is over its budget, or where the walk met more
// configurations than it keeps (the caller's fallbacks decide then). With
// fold, a list of tokens that would take well more steps to walk than the
// folded trie has nodes (the positions of a string that counts words:
// 75,838 steps) is left for a walk of the folded trie (classifyFolded),
// tried first.
func (a *walkDFA) classifyThrough(v *vocabIndex, w *wideSet, stride int, fold bool) (*nodeIndex, bool) {
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
	// The positions of one first byte are a run of the trie. A run of many
	// tokens whose first byte leaves the set may be taken apart (see
	// apartRun): its tokens are then walked by what follows that byte.
	walk := a.walkList[:0]
	a.apart = a.apart[:0]
	for b := range 256 {
		if !first.Has(byte(b)) || v.FirstByteCount(byte(b)) == 0 {
			continue
		}
		if a.mayTakeApart(v, w, byte(b)) {
			if list, row, ok := a.apartRun(v, byte(b)); ok {
				walk = append(walk, list...)
				a.apart = append(a.apart, row)
				continue
			}
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
		var long []int32
		var ok bool
		if w.longTo > 0 {
			long, ok = sets.between(v, w.limit, w.longTo)
		} else {
			long, ok = sets.longer(v, w.limit)
		}
		if !ok {
			return nil, false
		}
		walk = a.merge(walk, long)
	}
	wasted := 0
	if fold {
		// Walking the list costs a step per byte, less the bytes a token
		// shares with the one before it in the trie; where that is well
		// over the folded trie's size, the folded walk is tried first,
		// for at most as many steps.
		steps := 0
		for i, p := range walk {
			steps += len(v.Token(int(p)))
			if i > 0 && walk[i-1]+1 == p {
				steps -= v.LCP(int(p))
			}
		}
		if steps > foldedShare*len(v.perTrie.folded.fold) {
			if x, ok := a.classifyFolded(v, stride, steps); ok {
				return x, true
			}
			wasted = a.work
		}
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
	for _, row := range a.apart {
		for i, s := range row {
			a.acc[i] |= s
		}
	}
	a.acc = growTo(a.acc, stride)
	// Walk the others.
	a.exits = a.exits[:0]
	a.work = 0
	if _, ok := a.walkFrom(v, append(a.path[:0], a.start), walk, false); !ok {
		return nil, false
	}
	count := 0
	for _, w := range a.acc {
		count += bits.OnesCount32(w)
	}
	a.work += len(a.exits) + wasted
	return newNodeIndex(v, a.acc, nil, count, a.exits, nil, stride), true
}

// minApartShare: classifyThrough takes apart the tokens of a first byte
// that leaves its set where they are more than 1/minApartShare of the
// vocabulary (a space, which starts about 40% of Llama-3's tokens).
const minApartShare = 64

// mayTakeApart reports whether classifyThrough tries to take apart the
// tokens that start with b (see apartRun).
func (a *walkDFA) mayTakeApart(v *vocabIndex, w *wideSet, b byte) bool {
	return b < 0x80 && !w.ascii.Has(b) && w.limit < 0 && !w.walkLong && v.FirstByteCount(b)*minApartShare > v.Len()
}

// apartRun classifies by their bytes after the first the tokens that start
// with b, an ASCII byte that the walk's start takes into a state outside
// its set: between two words of "^\S+( \S+)?$" a space leads to the next
// word, whose characters are every byte but a space or a quote. It returns
// the positions of those to walk (with a byte the set of the state after b
// walks: see plan) and the row of those taken whole (only bytes of that
// set after b), where that set is one plan keeps; the others die in its
// closure, refused.
func (a *walkDFA) apartRun(v *vocabIndex, b byte) ([]int32, []uint32, bool) {
	t := a.next(a.start, b)
	if t < 0 {
		return nil, nil, false
	}
	if !a.canEnd[t] {
		if list, ok := a.secondBytes(v, b, t); ok {
			return list, nil, true
		}
	}
	sf := a.safe(t)
	w := wideSet{ascii: sf.ascii, chars: sf.chars, states: sf.closure, limit: -1}
	if a.refusesLeads(t) {
		// safe's characters are those the states after t take: here the
		// second byte of a token, which t refuses them as.
		w.chars = 0
	}
	if len(w.states) == 0 || !a.plan(v, &w) {
		return nil, nil, false
	}
	sets := &v.perTrie.sets
	list, ok := sets.containingAfter(v, b, w.walked)
	if !ok {
		return nil, nil, false
	}
	row, ok := sets.withoutAfter(v, b, w.dirty)
	if !ok {
		return nil, nil, false
	}
	return list, row, true
}

// secondBytes lists, for apartRun, the tokens starting with b to walk
// where the state t that b leads to takes few bytes and the rule may not
// end there: b alone, and those whose second byte t takes; every other
// dies at its second byte, refused (" gov" after ".", which any
// character matches, in an unanchored ".gov.uk"). It reports false where
// those are more than 1/minApartShare of the vocabulary.
func (a *walkDFA) secondBytes(v *vocabIndex, b byte, t int32) ([]int32, bool) {
	var takes byteset.Set
	for c := range 256 {
		if a.next(t, byte(c)) >= 0 {
			takes.Add(byte(c))
		}
	}
	list := a.apartList[:0]
	lo, hi := v.FirstByteStart(int(b)), v.FirstByteStart(int(b)+1)
	for i := lo; i < hi; {
		tok := v.Token(i)
		if len(tok) == 1 {
			list = append(list, int32(i))
			i++
			continue
		}
		end := v.End(v.Node(i, 2))
		if takes.Has(tok[1]) {
			for p := i; p < end; p++ {
				list = append(list, int32(p))
			}
			if len(list)*minApartShare > v.Len() {
				a.apartList = list
				return nil, false
			}
		}
		i = end
	}
	a.apartList = list
	return slices.Clip(list), true
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

// maxLayer bounds the states of one of layerSet's layers, and
// maxLayerStates the configurations it may add to the walk (those in the
// middle of a multi-byte character too): where the positions split into
// more, the trie walk does better. A layer costs a step per byte class of
// each of its states (stepASCII), not one per byte.
const (
	maxLayer       = 64
	maxLayerStates = 2048
)

// layerSet follows from state s the layers of states that the same bytes
// lead to: layer 0 is s, layer k+1 the states that the set's bytes and
// characters lead layer k's to. It is chainSet where a position has
// several successors alike: a string of exactly 12 characters with a hex
// digit somewhere (minLength, maxLength and an unanchored pattern) leads
// each character to the next position, with or without a digit seen, and
// its chain of single states ends at the first digit. The set is the bytes
// s takes, but those that lead to a state taking fewer than half of them
// (a string's backslash, into its escape), and every multi-byte character
// where each state of layer 0 takes them all; it holds for as many
// characters as its layers take all of it (to chainCap; any number where a
// layer leads back to itself; to where a layer would have more than
// maxLayer states or the walk more than maxLayerStates new configurations).
// Longer tokens are walked, up to where they all die (layersDie). It
// reports false where no byte is left, where layer 0 does not take the
// set, or where the walk met more configurations than it keeps.
func (a *walkDFA) layerSet(s int32) (wideSet, bool) {
	return a.layers(s, maxLayerStates, math.MaxInt, true)
}

// layers is layerSet with budgets: of new configurations, and of steps
// (a.layerSteps may grow to steps); past either it reports false. Without
// full, it neither lists the states the set keeps the walk in nor follows
// longer tokens to where they die (layersDie), for layerCovers.
func (a *walkDFA) layers(s int32, budget, steps int, full bool) (wideSet, bool) {
	a.layerStepLimit = steps
	// The bytes s takes, by class (asciiClasses: one successor a class).
	var take byteset.ASCII
	for b, cl := range a.classesIn(s, &allASCII) {
		a.layerSteps++
		if t := a.next(s, b); t >= 0 {
			take.Union(&cl)
		} else if t == stateFull {
			return wideSet{}, false
		}
	}
	ascii := take
	half := (take.Len() + 1) / 2
	for b, cl := range a.classesIn(s, &take) {
		if a.takesFewer(a.next(s, b), &take, half) {
			ascii.Subtract(&cl)
		}
	}
	if a.layerSteps > a.layerStepLimit {
		return wideSet{}, false
	}
	if ascii == (byteset.ASCII{}) {
		return wideSet{}, false
	}
	w := wideSet{ascii: ascii, chars: allChars, limit: -1, walkLong: true}
	a.layerBudget = a.numStates() + budget
	layer := append(a.layer[:0], s)
	if full {
		w.states = append(w.states, s)
	}
	for depth := 0; ; depth++ {
		if depth == chainCap {
			w.limit = depth
			break
		}
		// Layer depth+1, where layer depth takes every byte and character
		// of the set; else the set holds for depth characters.
		next := a.nextLayer[:0]
		good := true
		for _, x := range layer {
			var refused, over bool // over: past the walk's states or the layers' steps
			next, refused, over = a.stepASCII(x, &ascii, next)
			if over {
				return wideSet{}, false
			}
			good = !refused
			if good && w.chars != 0 {
				var ok bool
				if next, ok = a.utf8Ends(x, next); !ok {
					if depth > 0 {
						good = false
					} else {
						w.chars = 0 // layer 0 refuses some character: none is in the set
					}
				}
			}
			if !good || a.numStates() > a.layerBudget {
				good = false
				break
			}
			if len(next) > maxLayer {
				break
			}
		}
		a.nextLayer = next
		if !good || len(next) > maxLayer {
			if depth == 0 {
				return wideSet{}, false
			}
			w.limit = depth
			if full {
				w.longTo = a.layersDie(&w, layer, depth)
			}
			break
		}
		slices.Sort(next)
		if slices.Equal(next, layer) {
			w.walkLong = false // the same layer for ever: any number of characters
			break
		}
		if full {
			w.states = append(w.states, next...)
		}
		layer, a.nextLayer = append(a.layer[:0], next...), next
		a.layer = layer
	}
	slices.Sort(w.states)
	w.states = slices.Compact(w.states) // a state may be in several layers
	return w, true
}

// takesFewer reports whether state t takes fewer than n of the bytes of
// take (a string's backslash leads to its escape, which takes a few).
func (a *walkDFA) takesFewer(t int32, take *byteset.ASCII, n int) bool {
	kept := 0
	for b, part := range a.classesIn(t, take) {
		a.layerSteps++
		if a.next(t, b) >= 0 {
			kept += part.Len()
		}
	}
	return kept < n
}

// layersDie follows on from layer, reached by depth characters of w's set
// where it stops holding, the states that its bytes and characters lead
// to, and returns how many characters it takes until none is left: every
// token of w's bytes and characters longer than that dies. It adds the
// states to w's (a byte outside the set may be taken there: a string's
// closing quote after its last position). It returns 0 where that is not
// within chainCap characters, where a state of w's or of the layers may
// end the rule (a longer token might leave it), where a state refuses some character but not all
// of them, where a layer has more than maxLayer states, or where the walk
// met more configurations than it keeps.
func (a *walkDFA) layersDie(w *wideSet, layer []int32, depth int) int {
	for _, s := range w.states {
		if a.canEnd[s] {
			return 0 // a longer token may leave the rule on the way
		}
	}
	for ; depth < chainCap; depth++ {
		next := a.dieLayer[:0]
		for _, x := range layer {
			if a.canEnd[x] {
				return 0
			}
			var full bool
			if next, _, full = a.stepASCII(x, &w.ascii, next); full {
				return 0
			}
			if w.chars != 0 {
				var ok bool
				if next, ok = a.utf8Ends(x, next); !ok && !a.refusesLeads(x) {
					return 0
				}
			}
			if a.numStates() > a.layerBudget {
				return 0
			}
		}
		a.dieLayer = next
		if len(next) == 0 {
			return depth
		}
		if len(next) > maxLayer {
			return 0
		}
		w.states = append(w.states, next...)
		layer = append(a.layer[:0], next...)
		a.layer = layer
	}
	return 0
}

// layerCovers reports whether every token below a trie node, whose bytes
// below it are described by r, is taken whole from state s by the layers
// from s (see layerSet): r's bytes are the layers' and their multi-byte
// characters whole, and r's longest token has no more bytes below the
// node than the layers hold characters. It answers where coversSubtree's
// chain does not: inside a count that resets (keys that must not hold 32
// hex digits in a row), a position leads a hex digit on and any other
// character back to the start, and every token short enough is taken.
// Each state's layers are followed once per walk, within maxMemoLayerSteps
// for all of them.
func (a *walkDFA) layerCovers(s int32, r *toktrie.Rest) bool {
	if !a.loops[s].layered {
		a.layerOf(s)
	}
	li := &a.loops[s]
	switch {
	case !li.layered:
		return false
	case li.layerLimit == 0, li.layerLimit > 0 && int(r.Depth) > int(li.layerLimit):
		return false
	case !(*byteset.ASCII)(&r.ASCII).SubsetOf(&li.layerASCII):
		return false
	case r.NonASCII && (!r.ValidUTF8 || li.layerChars != allChars):
		return false
	}
	return true
}

// layerOf sets state s's layers in its loopInfo, once the walk has taken
// minMemoWork steps (a short walk follows none) and within
// maxMemoLayerSteps and maxMemoLayerStates in all.
func (a *walkDFA) layerOf(s int32) {
	left := maxMemoLayerStates - a.layerStates
	if a.work < minMemoWork || a.layerSteps >= maxMemoLayerSteps || left <= 0 {
		return // not now: none covers
	}
	before := a.numStates()
	w, ok := a.layers(s, left, maxMemoLayerSteps, false)
	a.layerStates += a.numStates() - before
	if !ok && (a.layerSteps > maxMemoLayerSteps || a.numStates() > a.layerBudget) {
		return // the walk's budget ran out, not the state's layers: a later walk may follow them
	}
	li := &a.loops[s] // after the layers, which may have grown a.loops
	li.layered, li.layerLimit = true, 0
	if ok {
		li.layerASCII, li.layerChars, li.layerLimit = w.ascii, w.chars, int16(w.limit)
	}
}

// maxMemoLayerSteps bounds the successors layerCovers asks for in one
// walk, and maxMemoLayerStates the new configurations they may reach
// (building one costs about what a hundred steps of the walk do). Layers
// are followed in walks that have taken minMemoWork steps: the long ones,
// which they may shorten by tens of thousands.
const (
	maxMemoLayerSteps  = 8192
	maxMemoLayerStates = 32
	minMemoWork        = 4096
)

// stepASCII appends to next, each once, the states that x leads the bytes
// of ascii to, asking next once per byte class of x, and reports whether x
// refuses some of them and whether one would be past the walk's states.
func (a *walkDFA) stepASCII(x int32, ascii *byteset.ASCII, next []int32) (_ []int32, refused, full bool) {
	for b := range a.classesIn(x, ascii) {
		if a.layerSteps++; a.layerSteps > a.layerStepLimit {
			return next, refused, true // out of steps: as good as full
		}
		switch t := a.next(x, b); {
		case t == stateFull:
			return next, refused, true
		case t < 0:
			refused = true
		case !containsState(next, t):
			next = append(next, t)
		}
	}
	return next, refused, false
}

// classesIn yields each of state x's classes of ASCII bytes (see
// asciiClasses) that meets set, as its bytes in set and the first of them:
// the bytes of a class have one successor, so one step decides them all.
func (a *walkDFA) classesIn(x int32, set *byteset.ASCII) iter.Seq2[byte, byteset.ASCII] {
	return func(yield func(byte, byteset.ASCII) bool) {
		lo, hi := a.asciiClasses(x)
		for k := lo; k < hi; k++ {
			part := a.asciiCls[k] // by index: a step may list another state's classes
			part.Intersect(set)
			if b, ok := part.First(); ok && !yield(b, part) {
				return
			}
		}
	}
}

// allASCII holds every ASCII byte.
var allASCII = byteset.ASCII{^uint64(0), ^uint64(0)}

// asciiClasses returns where in a.asciiCls state x's classes of ASCII
// bytes are (see byteClasses): the bytes of one have one successor. They
// are listed on first use, once per state of the walk.
func (a *walkDFA) asciiClasses(x int32) (lo, hi int) {
	for int(x) >= len(a.asciiOff) {
		a.asciiOff = append(a.asciiOff, [2]int32{})
	}
	if off := a.asciiOff[x]; off[1] > 0 {
		return int(off[0]), int(off[1])
	}
	lo = len(a.asciiCls)
	var at [256]int16 // a class's place in the list, plus one
	for b := range 128 {
		c := a.cls[int(x)<<8|b]
		if at[c] == 0 {
			a.asciiCls = append(a.asciiCls, byteset.ASCII{})
			at[c] = int16(len(a.asciiCls) - lo)
		}
		a.asciiCls[lo+int(at[c])-1].Add(byte(b))
	}
	a.asciiOff[x] = [2]int32{int32(lo), int32(len(a.asciiCls))}
	return lo, len(a.asciiCls)
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
