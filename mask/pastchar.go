package mask

import (
	"slices"
	"unicode/utf8"
)

// Classifying past a node's first character.
//
// A pattern's unescaped dot ("^uk.gov.ons.edc.eq$", meant as a literal)
// takes any character and then one letter. The trie walk refuses nearly
// every token at the byte after its first character, but it gets there
// through every first character the vocabulary has: 69,000 steps in Qwen3,
// whose tokens start with tens of thousands of characters. Where every
// character a node takes leads the walk to one state, through states where
// the rule cannot end, a token's fate past its first character depends on
// that state and the rest of the token alone: the tokens to walk are those
// whose byte after the first character the state takes (toktrie's
// AfterFirstChar lists them by that byte), the tokens of that one
// character alone are accepted, and every other token is refused, with no
// way out of the rule on the way.

// Classes of a first byte, for classifyPastChar.
const (
	firstDead  = iota // the node refuses it
	firstToOne        // every whole character it starts leads to the one state
	firstWalk         // its tokens are walked as they are: it leads elsewhere (an escape's backslash), its characters do not all lead alike, or it starts none
)

// classifyPastChar classifies from the walk's start where most whole
// characters the start takes lead to one state (oneState), reporting false
// where none does, where that state may end the rule, where more than
// 1/maxWideWalk of the vocabulary would be walked, or where the walk met
// more configurations than it keeps.
func (a *walkDFA) classifyPastChar(v *vocabIndex, stride int) (*nodeIndex, bool) {
	a.work = 0
	if a.start < 0 {
		return nil, false
	}
	clear(a.charMemo) // its states are this walk's, which begin may have renumbered
	one, ok := a.oneState(v)
	if !ok {
		return nil, false
	}
	var takes [256]bool
	for b := range 256 {
		switch t := a.classNext(one, b); {
		case t == stateFull:
			return nil, false
		case t >= 0:
			takes[b] = true
		}
	}
	// The tokens to walk, in sorted order: those whose first character
	// leads to the one state and whose next byte it takes, those of the
	// bytes walked as they are, and those whose first bytes are not a
	// whole character (byte tokens), unless the start refuses their first
	// byte.
	tr := v.Trie
	limit := v.Len() / maxWideWalk
	walk := a.walkList[:0]
	for b := range 256 {
		if !takes[b] {
			continue
		}
		for _, p := range tr.AfterFirstChar(byte(b)) {
			if a.firstClass[tr.Token(int(p))[0]] == firstToOne {
				walk = append(walk, p)
			}
		}
		if len(walk) > limit {
			a.walkList = walk
			return nil, false
		}
	}
	for b := range 256 {
		if a.firstClass[b] == firstWalk {
			for p := tr.FirstByteStart(b); p < tr.FirstByteStart(b+1); p++ {
				walk = append(walk, int32(p))
			}
		}
	}
	for _, p := range tr.BrokenFirstChar() {
		if a.firstClass[tr.Token(int(p))[0]] == firstToOne {
			walk = append(walk, p)
		}
	}
	a.walkList = walk
	if len(walk) > limit {
		return nil, false
	}
	slices.Sort(walk)
	// Walking them costs a step per byte, less the bytes a token shares
	// with the one before it: where that is over the same share of the
	// vocabulary, the trie walk, which takes whole subtrees at once, is
	// left to do it.
	steps := 0
	for i, p := range walk {
		steps += len(tr.Token(int(p)))
		if i > 0 && walk[i-1]+1 == p {
			steps -= tr.LCP(int(p))
		}
	}
	if steps > limit {
		return nil, false
	}

	a.acc = growClear(a.acc, stride)
	a.exits = a.exits[:0]
	ids := tr.IDs()
	count := 0
	for _, p := range tr.OneChar() {
		if a.firstClass[tr.Token(int(p))[0]] == firstToOne {
			// Its walk ends in the one state, alive, where the rule goes
			// on: accepted.
			id := ids[p]
			a.acc[id>>5] |= 1 << (uint32(id) & 31)
			count++
		}
	}
	walked, ok := a.walkFrom(v, append(a.path[:0], a.start), walk, false)
	if !ok {
		return nil, false
	}
	count += walked
	a.work += len(a.exits)
	return newNodeIndex(v, a.acc, nil, count, a.exits, nil, stride), true
}

// oneState fills in a.firstClass and returns the state most whole
// characters the start takes lead to, through states where the rule cannot
// end. It reports false where there is none, or where the tokens of the
// first bytes whose characters do not all lead there, or all die, are
// more than 1/maxWideWalk of the vocabulary: those are walked as they are
// (firstWalk).
func (a *walkDFA) oneState(v *vocabIndex) (int32, bool) {
	// The one state is where the most tokens' first ASCII byte leads.
	var to [128]int32
	for b := range 128 {
		t := a.classNext(a.start, b)
		if t == stateFull {
			return 0, false
		}
		to[b] = t
	}
	// The states the ASCII bytes lead to, each with the tokens that start
	// with those bytes; more than a few, and there is no one state.
	type target struct {
		t int32
		w int
	}
	var targets [8]target
	n := 0
	for b, t := range to {
		if t < 0 {
			continue
		}
		i := 0
		for i < n && targets[i].t != t {
			i++
		}
		if i == len(targets) {
			return 0, false
		}
		if i == n {
			targets[i] = target{t: t}
			n++
		}
		targets[i].w += v.FirstByteCount(byte(b)) + 1
	}
	one, best := stateDead, 0
	for _, x := range targets[:n] {
		if x.w > best {
			one, best = x.t, x.w
		}
	}
	if one < 0 || a.canEnd[one] {
		return 0, false
	}
	walked := 0
	for b := range 128 {
		switch {
		case to[b] < 0:
			a.firstClass[b] = firstDead
		case to[b] == one:
			a.firstClass[b] = firstToOne
		default:
			a.firstClass[b] = firstWalk
			walked += v.FirstByteCount(byte(b))
		}
	}
	for b := 128; b < 256; b++ {
		t := a.classNext(a.start, b)
		if t == stateFull {
			return 0, false
		}
		a.firstClass[b] = firstDead
		if t < 0 {
			continue
		}
		end := mixedEnds // not the first byte of a character: byte tokens
		if lo, hi, more := utf8Second(byte(b)); more >= 0 {
			end = a.charEnds(t, lo, hi, more)
		}
		switch end {
		case stateFull:
			return 0, false
		case stateDead:
		case one:
			a.firstClass[b] = firstToOne
		default:
			// Some of its characters lead elsewhere or die, or the rule may
			// end inside one (a line separator, which a dot refuses): its
			// tokens are walked as they are.
			a.firstClass[b] = firstWalk
			walked += v.FirstByteCount(byte(b))
		}
	}
	return one, walked*maxWideWalk <= v.Len()
}

// classNext is the successor of s on byte b, a step of a.work unless byte
// b-1 is of b's class at s (the same successor, asked for just before: the
// callers ask for the bytes in order).
func (a *walkDFA) classNext(s int32, b int) int32 {
	if b == 0 || a.cls[int(s)<<8|b] != a.cls[int(s)<<8|(b-1)] {
		a.work++
		a.tick()
	}
	return a.next(s, byte(b))
}

// mixedEnds is charEnds' answer where a byte's characters do not all lead
// to one state.
const mixedEnds int32 = -4

// charEnds follows the rest of every whole character from state s, the
// state after its first byte: a byte from lo to hi, then more bytes from
// 0x80 to 0xBF. It returns the one state they all lead to, stateDead where
// every one dies, stateFull where the walk met more configurations than it
// keeps, and mixedEnds where they lead to several states or to none for
// some, or where the rule may end inside one.
func (a *walkDFA) charEnds(s int32, lo, hi byte, more int) int32 {
	if a.canEnd[s] {
		return mixedEnds
	}
	end := stateUnknown
	for c := int(lo); c <= int(hi); c++ {
		if c > int(lo) && a.cls[int(s)<<8|c] == a.cls[int(s)<<8|(c-1)] {
			continue // the same successor as the byte before
		}
		a.work++
		a.tick()
		t := a.next(s, byte(c))
		if t >= 0 && more > 0 {
			t = a.charEndsMemo(t, more)
		}
		switch {
		case t == stateFull || t == mixedEnds:
			return t
		case end == stateUnknown:
			end = t
		case end != t:
			return mixedEnds
		}
	}
	return end
}

// charEndsMemo is charEnds for the last more bytes of a character, from
// 0x80 to 0xBF, remembered per state and count: the states inside
// characters are few, and most first bytes share them.
func (a *walkDFA) charEndsMemo(s int32, more int) int32 {
	key := [2]int32{s, int32(more)}
	if t, ok := a.charMemo[key]; ok {
		return t
	}
	t := a.charEnds(s, 0x80, 0xBF, more-1)
	if a.charMemo == nil {
		a.charMemo = map[[2]int32]int32{}
	}
	a.charMemo[key] = t
	return t
}

// utf8Second returns the range of the second byte of the characters that
// start with b, and how many bytes follow that one; more is -1 where b
// starts no character.
func utf8Second(b byte) (lo, hi byte, more int) {
	switch {
	case b < utf8.RuneSelf:
		return 0, 0, -1
	case 0xC2 <= b && b <= 0xDF:
		return 0x80, 0xBF, 0
	case b == 0xE0:
		return 0xA0, 0xBF, 1
	case b == 0xED:
		return 0x80, 0x9F, 1
	case 0xE1 <= b && b <= 0xEF:
		return 0x80, 0xBF, 1
	case b == 0xF0:
		return 0x90, 0xBF, 2
	case 0xF1 <= b && b <= 0xF3:
		return 0x80, 0xBF, 2
	case b == 0xF4:
		return 0x80, 0x8F, 2
	}
	return 0, 0, -1
}
