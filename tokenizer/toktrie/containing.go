package toktrie

import (
	"bytes"
	"iter"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/reinlm/rein/internal/byteset"
)

// tokenBytes summarizes one token's bytes: its ASCII bytes, whether it has
// others, whether it is whole, valid UTF-8, and its length in characters
// (in bytes where it is not valid UTF-8).
type tokenBytes struct {
	ascii    byteset.ASCII
	nonASCII bool
	valid    bool
	chars    uint16
}

// summaries holds a trie's tokenBytes by sorted position, built on first use,
// with indexes over them: the tokens with each byte, the tokens by length
// in characters, and the tokens by the byte after their first character.
type summaries struct {
	once   sync.Once
	s      atomic.Pointer[[]tokenBytes]
	counts [256]int32 // tokens with each byte
	inside [256]int32 // tokens with each byte after their first
	chars  [256]int32 // tokens of each length in characters (the last: that or more)

	// withByte[withStart[b]:withStart[b+1]] are the sorted positions of
	// the tokens with byte b, each once: a set of bytes that few tokens
	// have is looked up in them, not tested against every token.
	withByte  []int32
	withStart [257]int32
	invalid   []int32 // sorted positions of the tokens that are not whole, valid UTF-8

	// byChars[charStart[c]:charStart[c+1]] are the sorted positions of the
	// tokens of c characters (the last: c or more).
	byChars   []int32
	charStart [257]int32

	// afterFirst[afterStart[g]:afterStart[g+1]] are the sorted positions
	// of the tokens whose first character is whole, valid UTF-8 and
	// followed by byte g, for g < 256; of those that are that character
	// alone, for g = oneChar; of the others (their first bytes are not a
	// whole character), for g = brokenChar.
	afterFirst []int32
	afterStart [afterGroups + 1]int32
}

// Groups of summaries.afterFirst past the 256 bytes, and their number.
const (
	oneChar     = 256
	brokenChar  = 257
	afterGroups = 258
)

// sizeBytes is the memory the summaries hold once built.
func (s *summaries) sizeBytes() int {
	if p := s.s.Load(); p != nil {
		return int(unsafe.Sizeof(tokenBytes{}))*cap(*p) + 4*(cap(s.withByte)+cap(s.invalid)+cap(s.byChars)+cap(s.afterFirst))
	}
	return 0
}

// Summarize builds what Containing, WithByte, CountChars and their kin
// read, a pass over the vocabulary, which is otherwise built by the first
// of them to be called: a caller that must not pay it on a latency path
// calls Summarize ahead.
func (t *Trie) Summarize() { t.summaries() }

func (t *Trie) summaries() []tokenBytes {
	t.sums.once.Do(func() {
		s := make([]tokenBytes, len(t.ids))
		var seen, seenInside [256]int32 // the last token counted for each byte, +1
		invalid := 0
		for i := range s {
			tok := t.all.at(i)
			x := &s[i]
			for k, b := range tok {
				if seen[b] != int32(i+1) {
					seen[b] = int32(i + 1)
					t.sums.counts[b]++
				}
				if k > 0 && seenInside[b] != int32(i+1) {
					seenInside[b] = int32(i + 1)
					t.sums.inside[b]++
				}
				if b < utf8.RuneSelf {
					x.ascii.Add(b)
				} else {
					x.nonASCII = true
				}
			}
			x.valid = !x.nonASCII || utf8.Valid(tok)
			if !x.valid {
				invalid++
			}
			x.chars = uint16(min(len(tok), math.MaxUint16))
			if x.valid && x.nonASCII {
				x.chars = uint16(min(utf8.RuneCount(tok), math.MaxUint16))
			}
			t.sums.chars[charBucket(x.chars)]++
		}
		t.indexSummaries(s, invalid)
		t.sums.s.Store(&s)
	})
	return *t.sums.s.Load()
}

// charBucket is the index of chars in summaries.chars and charStart.
func charBucket(chars uint16) int { return min(int(chars), 255) }

// indexSummaries fills in the summaries' indexes, once every token's
// summary and the counts are known: a second pass over the vocabulary's
// bytes, and each index allocated at its exact size.
func (t *Trie) indexSummaries(s []tokenBytes, invalid int) {
	x := &t.sums
	for b := range 256 {
		x.withStart[b+1] = x.withStart[b] + x.counts[b]
		x.charStart[b+1] = x.charStart[b] + x.chars[b]
	}
	groups := make([]int16, len(s))
	var count [afterGroups]int32
	for i := range s {
		g := firstCharGroup(t.all.at(i))
		groups[i] = g
		count[g]++
	}
	for g := range afterGroups {
		x.afterStart[g+1] = x.afterStart[g] + count[g]
	}
	x.withByte = make([]int32, x.withStart[256])
	x.byChars = make([]int32, len(s))
	x.afterFirst = make([]int32, len(s))
	x.invalid = make([]int32, 0, invalid)
	next, nextChars, nextAfter := x.withStart, x.charStart, x.afterStart
	var seen [256]int32 // the last token listed for each byte, +1
	for i := range s {
		g := groups[i]
		x.afterFirst[nextAfter[g]] = int32(i)
		nextAfter[g]++
		for _, b := range t.all.at(i) {
			if seen[b] != int32(i+1) {
				seen[b] = int32(i + 1)
				x.withByte[next[b]] = int32(i)
				next[b]++
			}
		}
		c := charBucket(s[i].chars)
		x.byChars[nextChars[c]] = int32(i)
		nextChars[c]++
		if !s[i].valid {
			x.invalid = append(x.invalid, int32(i))
		}
	}
}

// firstCharGroup is the group of summaries.afterFirst tok belongs to.
func firstCharGroup(tok []byte) int16 {
	r, n := utf8.DecodeRune(tok)
	switch {
	case r == utf8.RuneError && n <= 1:
		return brokenChar
	case n == len(tok):
		return oneChar
	}
	return int16(tok[n])
}

// AfterFirstChar returns the sorted positions of the tokens whose first
// character is whole, valid UTF-8 and followed by byte b: where every
// character leads a walk to one state, the bytes that state takes pick out
// the tokens to walk on.
func (t *Trie) AfterFirstChar(b byte) []int32 { return t.afterFirstGroup(int(b)) }

// OneChar returns the sorted positions of the tokens that are one whole,
// valid UTF-8 character.
func (t *Trie) OneChar() []int32 { return t.afterFirstGroup(oneChar) }

// BrokenFirstChar returns the sorted positions of the tokens whose first
// bytes are not a whole, valid UTF-8 character: a byte of one, or bytes
// that are none.
func (t *Trie) BrokenFirstChar() []int32 { return t.afterFirstGroup(brokenChar) }

func (t *Trie) afterFirstGroup(g int) []int32 {
	t.summaries()
	x := &t.sums
	return x.afterFirst[x.afterStart[g]:x.afterStart[g+1]:x.afterStart[g+1]]
}

// listedCost is the number of positions that Containing and
// ClearContaining would read from the byte index for set: where it is below
// the vocabulary's size, they read the index instead of every token's
// summary.
func (t *Trie) listedCost(set *byteset.Set, wholeUTF8 bool) int {
	n := 0
	for b := range 256 {
		if set.Has(byte(b)) {
			n += int(t.sums.counts[b])
		}
	}
	if wholeUTF8 {
		n += len(t.sums.invalid)
	}
	return n
}

// eachListed calls f with the sorted position of every token Containing
// lists, from the byte index: a token may come more than once, and in no
// particular order.
func (t *Trie) eachListed(set *byteset.Set, wholeUTF8 bool, f func(p int32)) {
	for b := range 256 {
		if set.Has(byte(b)) {
			for _, p := range t.sums.withByte[t.sums.withStart[b]:t.sums.withStart[b+1]] {
				f(p)
			}
		}
	}
	if wholeUTF8 {
		for _, p := range t.sums.invalid {
			f(p)
		}
	}
}

// Containing returns, in increasing order, the sorted positions of the
// tokens that have a byte of set somewhere, and, when wholeUTF8 is true,
// also those whose bytes are not whole, valid UTF-8. A walk that knows
// every other token is taken whole from some point on (the inside of a
// string takes every token without a quote, a backslash or a control byte)
// accepts a subtree at once but for the positions this lists in it, which
// it walks one by one. The first call summarizes every token's bytes, for
// one look at each byte of the vocabulary; later ones look at a summary per
// token.
func (t *Trie) Containing(set *byteset.Set, wholeUTF8 bool) []int32 {
	sums := t.summaries()
	if t.listedCost(set, wholeUTF8) < len(sums) {
		// Few tokens have those bytes: mark them from the byte index in a
		// bitmap of positions, then read it in order.
		marks := make([]uint64, (len(sums)+63)/64)
		t.eachListed(set, wholeUTF8, func(p int32) { marks[p>>6] |= 1 << (p & 63) })
		n := 0
		for _, w := range marks {
			n += bits.OnesCount64(w)
		}
		if n == 0 {
			return nil
		}
		out := make([]int32, 0, n)
		for k, w := range marks {
			for ; w != 0; w &= w - 1 {
				out = append(out, int32(k*64+bits.TrailingZeros64(w)))
			}
		}
		return out
	}
	n := 0
	for i := range sums {
		if t.contains(sums, i, set, wholeUTF8) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	// Counted first: one allocation of the exact size, which matters where
	// most tokens are listed (the caller's heap may be large, and growing a
	// slice of 100,000 positions copies it again and again).
	out := make([]int32, 0, n)
	for i := range sums {
		if t.contains(sums, i, set, wholeUTF8) {
			out = append(out, int32(i))
		}
	}
	return out
}

// ClearContaining clears in row, a bitmask of token ids, the bits of the
// tokens that Containing would list: what is left of a row of every token
// is the tokens made of other bytes only, with no list built on the way.
func (t *Trie) ClearContaining(row []uint32, set *byteset.Set, wholeUTF8 bool) {
	sums := t.summaries()
	if t.listedCost(set, wholeUTF8) < len(sums) {
		t.eachListed(set, wholeUTF8, func(p int32) {
			id := t.ids[p]
			row[id>>5] &^= 1 << (uint32(id) & 31)
		})
		return
	}
	for i := range sums {
		if t.contains(sums, i, set, wholeUTF8) {
			id := t.ids[i]
			row[id>>5] &^= 1 << (uint32(id) & 31)
		}
	}
}

// ContainsAfterFirst reports whether the token at position i, whose first
// byte must be ASCII, is one Containing would list but for that byte: it
// has a byte of set after its first, or, when wholeUTF8 is true, is not
// whole, valid UTF-8. It reads the token's summary, and the token's bytes
// only where the summary cannot tell: its first byte is in set, or it has
// bytes from 128 up and set does too.
func (t *Trie) ContainsAfterFirst(i int, set *byteset.Set, wholeUTF8 bool) bool {
	sums := t.summaries()
	x := &sums[i]
	tok := t.all.at(i)
	first := tok[0]
	ascii := x.ascii
	ascii.Remove(first)
	if ascii[0]&set[0]|ascii[1]&set[1] != 0 ||
		x.nonASCII && (wholeUTF8 && !x.valid || set[2]|set[3] != 0 && t.hasHigh(i, set)) {
		return true
	}
	return set.Has(first) && bytes.IndexByte(tok[1:], first) >= 0
}

// contains reports whether the token at position i is one Containing lists.
func (t *Trie) contains(sums []tokenBytes, i int, set *byteset.Set, wholeUTF8 bool) bool {
	x := &sums[i]
	return x.ascii[0]&set[0]|x.ascii[1]&set[1] != 0 ||
		x.nonASCII && (wholeUTF8 && !x.valid || set[2]|set[3] != 0 && t.hasHigh(i, set))
}

// hasHigh reports whether the token at position i has a byte from 128 up
// that is in set.
func (t *Trie) hasHigh(i int, set *byteset.Set) bool {
	for _, b := range t.all.at(i) {
		if b >= utf8.RuneSelf && set.Has(b) {
			return true
		}
	}
	return false
}

// WithByte is the number of tokens that have byte b: no set of tokens with
// a byte of some set is smaller than its largest WithByte.
func (t *Trie) WithByte(b byte) int {
	t.summaries()
	return int(t.sums.counts[b])
}

// WithByteInside is the number of tokens that have byte b after their
// first byte.
func (t *Trie) WithByteInside(b byte) int {
	t.summaries()
	return int(t.sums.inside[b])
}

// CountChars is the number of tokens of more than lo and at most hi
// characters (counted as Chars counts them), for -1 <= lo < hi <= 254.
func (t *Trie) CountChars(lo, hi int) int {
	t.summaries()
	n := 0
	for _, c := range t.sums.chars[lo+1 : hi+1] {
		n += int(c)
	}
	return n
}

// Chars yields the sorted positions of the tokens of more than lo and at
// most hi characters, for -1 <= lo < hi, counted in bytes where a token is
// not whole, valid UTF-8. They come by length, shortest first, and in
// increasing order within a length (up to 254 characters; the longer come
// together). The cost is the number yielded, plus the tokens of 255
// characters or more when hi is over 254.
func (t *Trie) Chars(lo, hi int) iter.Seq[int] {
	return func(yield func(int) bool) {
		sums := t.summaries()
		x := &t.sums
		for c := min(max(lo+1, 0), 255); c <= min(hi, 255); c++ {
			for _, p := range x.byChars[x.charStart[c]:x.charStart[c+1]] {
				if c == 255 && (int(sums[p].chars) <= lo || int(sums[p].chars) > hi) {
					continue
				}
				if !yield(int(p)) {
					return
				}
			}
		}
	}
}

// SortedChars returns, in increasing order, the sorted positions that Chars
// yields: a sort of their number, for the few tokens longer than some count.
func (t *Trie) SortedChars(lo, hi int) []int32 {
	var out []int32
	for p := range t.Chars(lo, hi) {
		out = append(out, int32(p))
	}
	slices.Sort(out)
	return out
}
