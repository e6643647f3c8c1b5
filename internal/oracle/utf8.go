package oracle

import (
	"unicode/utf8"

	"github.com/reinlm/rein/grammar"
)

// utf8Sequences returns byte-range sequences whose union is exactly the set of
// UTF-8 encodings of the code points in rs, surrogates excluded. Within one
// encoding length, byte order is code-point order, so a code-point range
// [lo, hi] is the set of byte strings between enc(lo) and enc(hi); that set
// splits into a few sequences of ranges, each continuation range being either
// pinned by lo or hi or the full 80-BF.
func utf8Sequences(rs []grammar.RuneRange) [][]byteRange {
	var out [][]byteRange
	for _, r := range rs {
		lo, hi := max(r.Lo, 0), min(r.Hi, utf8.MaxRune)
		for _, part := range [][2]rune{{lo, min(hi, 0xD7FF)}, {max(lo, 0xE000), hi}} {
			lo, hi := part[0], part[1]
			// One encoding length at a time: up to 0x7F, 0x7FF, 0xFFFF, 0x10FFFF.
			for _, last := range []rune{0x7F, 0x7FF, 0xFFFF, utf8.MaxRune} {
				if lo > hi {
					break
				}
				if lo <= last {
					end := min(hi, last)
					between(utf8.AppendRune(nil, lo), utf8.AppendRune(nil, end), nil, &out)
					lo = last + 1
				}
			}
		}
	}
	return out
}

// between appends to out the sequences, each starting with prefix, that match
// the byte strings s with a <= s <= b (lexicographically), where a and b have
// the same length and every byte after the first is a continuation byte.
func between(a, b []byte, prefix []byteRange, out *[][]byteRange) {
	with := func(r ...byteRange) []byteRange {
		return append(append([]byteRange(nil), prefix...), r...)
	}
	if len(a) == 1 {
		*out = append(*out, with(byteRange{a[0], b[0]}))
		return
	}
	if a[0] == b[0] {
		between(a[1:], b[1:], with(byteRange{a[0], a[0]}), out)
		return
	}
	first, last := a[0], b[0]
	if !allBytes(a[1:], 0x80) {
		between(a[1:], repeatByte(0xBF, len(a)-1), with(byteRange{a[0], a[0]}), out)
		first++
	}
	if !allBytes(b[1:], 0xBF) {
		between(repeatByte(0x80, len(b)-1), b[1:], with(byteRange{b[0], b[0]}), out)
		last--
	}
	if first <= last {
		seq := with(byteRange{first, last})
		for range len(a) - 1 {
			seq = append(seq, byteRange{0x80, 0xBF})
		}
		*out = append(*out, seq)
	}
}

func allBytes(s []byte, c byte) bool {
	for _, x := range s {
		if x != c {
			return false
		}
	}
	return true
}

func repeatByte(c byte, n int) []byte {
	s := make([]byte, n)
	for i := range s {
		s[i] = c
	}
	return s
}
