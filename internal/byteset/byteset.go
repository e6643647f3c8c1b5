// Package byteset is the 256-bit set of bytes that the pushdown automaton,
// the token index and jump-forward share: which bytes may come next, which
// first bytes some token has. One type, so the bit arithmetic lives in one
// place.
package byteset

import "math/bits"

// Set is a set of bytes, one bit per byte value. The zero value is empty.
type Set [4]uint64

// Has reports whether b is in the set.
func (s *Set) Has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }

// Add puts b in the set.
func (s *Set) Add(b byte) { s[b>>6] |= 1 << (b & 63) }

// Remove takes b out of the set.
func (s *Set) Remove(b byte) { s[b>>6] &^= 1 << (b & 63) }

// Union adds every byte of o to the set.
func (s *Set) Union(o *Set) {
	s[0] |= o[0]
	s[1] |= o[1]
	s[2] |= o[2]
	s[3] |= o[3]
}

// Len is the number of bytes in the set.
func (s *Set) Len() int {
	return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) + bits.OnesCount64(s[2]) + bits.OnesCount64(s[3])
}

// First is the smallest byte in the set; ok is false when the set is empty.
func (s *Set) First() (b byte, ok bool) {
	for i, w := range s {
		if w != 0 {
			return byte(64*i + bits.TrailingZeros64(w)), true
		}
	}
	return 0, false
}

// ASCII is a set of ASCII bytes (0 to 127), the compact form of Set for
// tables that keep one set per trie node or automaton state. The zero value
// is empty.
type ASCII [2]uint64

// Has reports whether b is in the set; bytes from 128 up never are.
func (s *ASCII) Has(b byte) bool { return b < 0x80 && s[b>>6&1]&(1<<(b&63)) != 0 }

// Add puts b, which must be below 128, in the set.
func (s *ASCII) Add(b byte) { s[b>>6&1] |= 1 << (b & 63) }

// Remove takes b, which must be below 128, out of the set.
func (s *ASCII) Remove(b byte) { s[b>>6&1] &^= 1 << (b & 63) }

// Len returns the number of bytes in the set.
func (s *ASCII) Len() int { return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) }

// Union adds every byte of o to the set.
func (s *ASCII) Union(o *ASCII) {
	s[0] |= o[0]
	s[1] |= o[1]
}

// Subtract takes every byte of o out of the set.
func (s *ASCII) Subtract(o *ASCII) {
	s[0] &^= o[0]
	s[1] &^= o[1]
}

// SubsetOf reports whether every byte of the set is in o.
func (s *ASCII) SubsetOf(o *ASCII) bool { return s[0]&^o[0]|s[1]&^o[1] == 0 }

// Intersect keeps only the bytes of the set that are in o.
func (s *ASCII) Intersect(o *ASCII) {
	s[0] &= o[0]
	s[1] &= o[1]
}

// First is the smallest byte in the set; ok is false when the set is empty.
func (s *ASCII) First() (b byte, ok bool) {
	switch {
	case s[0] != 0:
		return byte(bits.TrailingZeros64(s[0])), true
	case s[1] != 0:
		return byte(64 + bits.TrailingZeros64(s[1])), true
	}
	return 0, false
}
