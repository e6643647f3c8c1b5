package toktrie

import (
	"bytes"
	"math/bits"

	"github.com/reinlm/rein/internal/byteset"
)

// longToken is the length past which tokens are also kept in a list of
// their own, so asking about a long prefix searches a short list.
const longToken = 16

// prefixTables answer prefix questions by look-up where they can: per first
// byte and first two bytes, how long the longest token is and where the
// tokens start in the sorted list.
type prefixTables struct {
	long      sorted     // the tokens longer than longToken, sorted
	byByte    [256]uint8 // longest token starting with the byte (capped at 255)
	byPair    []uint8    // [a<<8|b]: longest token starting with a, b (capped at 255)
	pairStart []int32    // [a<<8|b]: first position not less than a, b; one more entry: Len
}

func (t *Trie) buildPrefixTables() {
	t.long.off = []int32{0}
	t.byPair = make([]uint8, 1<<16)
	t.pairStart = make([]int32, 1<<16+1)
	for i := range t.Len() {
		b := t.Token(i)
		if len(b) > longToken {
			t.long.add(b)
		}
		n := uint8(min(len(b), 255))
		t.byByte[b[0]] = max(t.byByte[b[0]], n)
		if len(b) >= 2 {
			v := int(b[0])<<8 | int(b[1])
			t.byPair[v] = max(t.byPair[v], n)
		}
	}
	// One sweep: the tokens are sorted, so each pair's first token is at
	// or after the previous pair's.
	n, i := t.Len(), 0
	for v := range 1 << 16 {
		pair := []byte{byte(v >> 8), byte(v)}
		for i < n && bytes.Compare(t.Token(i), pair) < 0 {
			i++
		}
		t.pairStart[v] = int32(i)
	}
	t.pairStart[1<<16] = int32(n)
}

// Prefix returns the sorted positions of the tokens that start with p: they
// are lo up to hi (lo == hi when there are none).
func (t *Trie) Prefix(p []byte) (lo, hi int) {
	if len(p) == 0 {
		return 0, t.Len()
	}
	if len(p) >= 2 {
		v := int(p[0])<<8 | int(p[1])
		lo, hi = int(t.pairStart[v]), int(t.pairStart[v+1])
	} else {
		// The one-byte token p comes before every pair starting with p.
		lo, hi = 0, int(t.pairStart[int(p[0])<<8+256])
	}
	lo = t.all.lowerBound(p, -1, lo, hi)
	if lo == hi || !bytes.HasPrefix(t.Token(lo), p) {
		return lo, lo
	}
	// The token before lo does not start with p, so the node of depth
	// len(p) is first met at lo.
	return lo, t.End(t.Node(lo, len(p)))
}

// Extends reports whether some token starts with p and goes on with a byte
// of next, a set of bytes as 256 bits: byte b is bit b&63 of next[b>>6].
// A nil next is the empty set.
func (t *Trie) Extends(p []byte, next *[4]uint64) bool {
	if next == nil {
		return false
	}
	set := (*byteset.Set)(next)
	s, lo, hi := &t.all, 0, t.Len()
	switch {
	case len(p) == 0:
	case len(p) == 1:
		if t.byByte[p[0]] <= 1 {
			return false
		}
		lo, hi = int(t.pairStart[int(p[0])<<8]), int(t.pairStart[int(p[0])<<8+256])
	case t.byPair[int(p[0])<<8|int(p[1])] < 255 && int(t.byPair[int(p[0])<<8|int(p[1])]) <= len(p):
		// No token with this pair is longer than p (255 means 255 or more).
		return false
	case len(p) >= longToken:
		s, hi = &t.long, t.long.len()
	default:
		v := int(p[0])<<8 | int(p[1])
		lo, hi = int(t.pairStart[v]), int(t.pairStart[v+1])
	}
	if set.Len() <= 4 {
		for w, word := range set {
			for ; word != 0; word &= word - 1 {
				b := w<<6 + bits.TrailingZeros64(word)
				i := s.lowerBound(p, b, lo, hi)
				if i < hi && hasPrefixByte(s.at(i), p, byte(b)) {
					return true
				}
			}
		}
		return false
	}
	// Walk the tokens that start with p by the byte that follows it,
	// skipping each run of one byte with a search.
	for i := s.lowerBound(p, -1, lo, hi); i < hi; {
		tok := s.at(i)
		if !bytes.HasPrefix(tok, p) {
			break
		}
		if len(tok) == len(p) {
			i++
			continue
		}
		c := tok[len(p)]
		if set.Has(c) {
			return true
		}
		if c == 255 {
			break
		}
		i = s.lowerBound(p, int(c)+1, i, hi)
	}
	return false
}

// lowerBound returns the first entry in [lo, hi) not less than p followed
// by the byte b (b < 0: p alone).
func (s *sorted) lowerBound(p []byte, b int, lo, hi int) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if lessThan(s.at(m), p, b) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// lessThan reports whether t < p+[b] (p alone when b < 0).
func lessThan(t, p []byte, b int) bool {
	n := min(len(t), len(p))
	if c := bytes.Compare(t[:n], p[:n]); c != 0 {
		return c < 0
	}
	switch {
	case len(t) < len(p):
		return true // a proper prefix of p
	case b < 0:
		return false
	case len(t) == len(p):
		return true
	}
	return int(t[len(p)]) < b
}

func hasPrefixByte(t, p []byte, b byte) bool {
	return len(t) > len(p) && t[len(p)] == b && bytes.Equal(t[:len(p)], p)
}
