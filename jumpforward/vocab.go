package jumpforward

import (
	"bytes"
	"slices"

	"github.com/reinlm/rein/internal/byteset"
	"github.com/reinlm/rein/internal/pervocab"
	"github.com/reinlm/rein/tokenizer"
)

// longToken is the length past which tokens are also kept in a list of
// their own, so asking about a long prefix searches a short list.
const longToken = 16

// prefixIndex answers "does some token start with these bytes and go on
// with one of those": the vocabulary's ordinary tokens sorted by bytes, and
// the long ones again apart. Per first two bytes it keeps where their tokens
// start in the sorted list and how long the longest is, so most questions
// are answered by a look-up and the rest by a search among a few tokens. It
// is built once per Vocab and shared.
type prefixIndex struct {
	all, long sortedTokens
	maxLen    int
	byByte    [256]uint8 // longest token starting with the byte
	byPair    []uint8    // [a<<8|b]: longest token starting with a, b
	pairStart []int32    // [a<<8|b]: first token of all not less than a, b; one more entry: the end
}

// sortedTokens is a list of byte strings in increasing order: entry i is
// data[off[i]:off[i+1]].
type sortedTokens struct {
	data []byte
	off  []int32
}

func (s *sortedTokens) len() int { return len(s.off) - 1 }

func (s *sortedTokens) at(i int) []byte { return s.data[s.off[i]:s.off[i+1]] }

// prefixIndexes holds the index of every vocabulary in use, dropped once
// nothing holds its Vocab.
var prefixIndexes pervocab.Cache[prefixIndex]

func indexFor(voc *tokenizer.Vocab) *prefixIndex { return prefixIndexes.Get(voc, buildPrefixIndex) }

func buildPrefixIndex(voc *tokenizer.Vocab) *prefixIndex {
	var toks [][]byte
	for id := 0; id < voc.Size(); id++ {
		if b := voc.Bytes(id); len(b) > 0 && !voc.IsSpecial(id) {
			toks = append(toks, b)
		}
	}
	slices.SortFunc(toks, bytes.Compare)
	toks = slices.CompactFunc(toks, bytes.Equal)
	x := &prefixIndex{}
	add := func(s *sortedTokens, b []byte) {
		if s.off == nil {
			s.off = []int32{0}
		}
		s.data = append(s.data, b...)
		s.off = append(s.off, int32(len(s.data)))
	}
	x.byPair = make([]uint8, 1<<16)
	x.pairStart = make([]int32, 1<<16+1)
	for _, b := range toks {
		add(&x.all, b)
		if len(b) > longToken {
			add(&x.long, b)
		}
		n := uint8(min(len(b), 255))
		x.maxLen = max(x.maxLen, len(b))
		x.byByte[b[0]] = max(x.byByte[b[0]], n)
		if len(b) >= 2 {
			v := int(b[0])<<8 | int(b[1])
			x.byPair[v] = max(x.byPair[v], n)
		}
	}
	if x.long.off == nil {
		x.long.off = []int32{0}
	}
	// One sweep: the tokens are sorted, so each pair's first token is at
	// or after the previous pair's.
	n, i := x.all.len(), 0
	for v := range 1 << 16 {
		pair := []byte{byte(v >> 8), byte(v)}
		for i < n && bytes.Compare(x.all.at(i), pair) < 0 {
			i++
		}
		x.pairStart[v] = int32(i)
	}
	x.pairStart[1<<16] = int32(n)
	return x
}

// lowerBound returns the first entry in [lo, hi) not less than p followed
// by the byte b (b < 0: p alone).
func (s *sortedTokens) lowerBound(p []byte, b int, lo, hi int) int {
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

// extends reports whether some token starts with p and goes on with a byte
// of next.
func (x *prefixIndex) extends(p []byte, next *byteset.Set) bool {
	s, lo, hi := &x.all, 0, x.all.len()
	switch {
	case len(p) == 0:
	case len(p) == 1:
		if x.byByte[p[0]] <= 1 {
			return false
		}
		lo, hi = int(x.pairStart[int(p[0])<<8]), int(x.pairStart[int(p[0])<<8+256])
	case int(x.byPair[int(p[0])<<8|int(p[1])]) <= len(p):
		return false
	case len(p) >= longToken:
		s, hi = &x.long, x.long.len()
	default:
		v := int(p[0])<<8 | int(p[1])
		lo, hi = int(x.pairStart[v]), int(x.pairStart[v+1])
	}
	if next.Len() <= 4 {
		for b := 0; b < 256; b++ {
			if !next.Has(byte(b)) {
				continue
			}
			i := s.lowerBound(p, b, lo, hi)
			if i < hi && hasPrefixByte(s.at(i), p, byte(b)) {
				return true
			}
		}
		return false
	}
	// Walk the tokens that start with p by the byte that follows it,
	// skipping each run of one byte with a search.
	for i := s.lowerBound(p, -1, lo, hi); i < hi; {
		t := s.at(i)
		if !bytes.HasPrefix(t, p) {
			break
		}
		if len(t) == len(p) {
			i++
			continue
		}
		c := t[len(p)]
		if next.Has(c) {
			return true
		}
		if c == 255 {
			break
		}
		i = s.lowerBound(p, int(c)+1, i, hi)
	}
	return false
}

func hasPrefixByte(t, p []byte, b byte) bool {
	return len(t) > len(p) && t[len(p)] == b && bytes.Equal(t[:len(p)], p)
}
