package toktrie

import (
	"bytes"
	"iter"
	"math"
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

// summaries holds a trie's tokenBytes by sorted position, built on first use.
type summaries struct {
	once   sync.Once
	s      atomic.Pointer[[]tokenBytes]
	counts [256]int32 // tokens with each byte
	inside [256]int32 // tokens with each byte after their first
	chars  [256]int32 // tokens of each length in characters (the last: that or more)
}

// sizeBytes is the memory the summaries hold once built.
func (s *summaries) sizeBytes() int {
	if p := s.s.Load(); p != nil {
		return int(unsafe.Sizeof(tokenBytes{})) * cap(*p)
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
			x.chars = uint16(min(len(tok), math.MaxUint16))
			if x.valid && x.nonASCII {
				x.chars = uint16(min(utf8.RuneCount(tok), math.MaxUint16))
			}
			t.sums.chars[min(int(x.chars), len(t.sums.chars)-1)]++
		}
		t.sums.s.Store(&s)
	})
	return *t.sums.s.Load()
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
// characters (counted as AtMostChars counts them), for 0 <= lo < hi <= 254.
func (t *Trie) CountChars(lo, hi int) int {
	t.summaries()
	n := 0
	for _, c := range t.sums.chars[lo+1 : hi+1] {
		n += int(c)
	}
	return n
}

// BetweenChars yields, in increasing order, the sorted positions of the
// tokens of more than lo and at most hi characters.
func (t *Trie) BetweenChars(lo, hi int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i, x := range t.summaries() {
			if c := int(x.chars); c > lo && c <= hi && !yield(i) {
				return
			}
		}
	}
}

// AtMostChars yields, in increasing order, the sorted positions of the
// tokens of at most n characters (counted in bytes where a token is not
// whole, valid UTF-8); MoreChars yields the others.
func (t *Trie) AtMostChars(n int) iter.Seq[int] { return t.byChars(n, true) }

// MoreChars yields the sorted positions AtMostChars leaves out.
func (t *Trie) MoreChars(n int) iter.Seq[int] { return t.byChars(n, false) }

func (t *Trie) byChars(n int, atMost bool) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i, x := range t.summaries() {
			if (int(x.chars) <= n) == atMost && !yield(i) {
				return
			}
		}
	}
}
