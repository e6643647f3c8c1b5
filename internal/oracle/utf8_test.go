package oracle

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
)

// matchesSequences reports whether s is spelt by one of seqs.
func matchesSequences(seqs [][]byteRange, s []byte) bool {
next:
	for _, seq := range seqs {
		if len(seq) != len(s) {
			continue
		}
		for i, r := range seq {
			if s[i] < r.lo || s[i] > r.hi {
				continue next
			}
		}
		return true
	}
	return false
}

func inRanges(rs []grammar.RuneRange, c rune) bool {
	for _, r := range rs {
		if r.Lo <= c && c <= r.Hi {
			return true
		}
	}
	return false
}

// encodeAny encodes c in the UTF-8 bit layout, surrogates included (which
// utf8.AppendRune would replace by U+FFFD).
func encodeAny(c rune) []byte {
	switch {
	case c < 0x80:
		return []byte{byte(c)}
	case c < 0x800:
		return []byte{0xC0 | byte(c>>6), 0x80 | byte(c)&0x3F}
	case c < 0x10000:
		return []byte{0xE0 | byte(c>>12), 0x80 | byte(c>>6)&0x3F, 0x80 | byte(c)&0x3F}
	}
	return []byte{0xF0 | byte(c>>18), 0x80 | byte(c>>12)&0x3F, 0x80 | byte(c>>6)&0x3F, 0x80 | byte(c)&0x3F}
}

// forEachString calls f with every byte string a sequence spells.
func forEachString(seq []byteRange, f func([]byte)) {
	buf := make([]byte, len(seq))
	var walk func(i int)
	walk = func(i int) {
		if i == len(seq) {
			f(buf)
			return
		}
		for c := int(seq[i].lo); c <= int(seq[i].hi); c++ {
			buf[i] = byte(c)
			walk(i + 1)
		}
	}
	walk(0)
}

func TestUTF8SequencesExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	classes := map[string][]grammar.RuneRange{
		"everything":        {{Lo: 0, Hi: utf8.MaxRune}},
		"nothing":           nil,
		"surrogates only":   {{Lo: 0xD800, Hi: 0xDFFF}},
		"around surrogates": {{Lo: 0xD7FE, Hi: 0xE001}},
		"length edges":      {{Lo: 0x7F, Hi: 0x80}, {Lo: 0x7FF, Hi: 0x800}, {Lo: 0xFFFF, Hi: 0x10000}, {Lo: utf8.MaxRune, Hi: utf8.MaxRune}},
		"japanese":          {{Lo: 0x3041, Hi: 0x3093}, {Lo: 0x4E00, Hi: 0x9FFF}},
		"emoji":             {{Lo: 0x1F600, Hi: 0x1F64F}},
		"negated quote":     grammar.NegateRanges([]grammar.RuneRange{{Lo: 0, Hi: 0x1F}, {Lo: '"', Hi: '"'}, {Lo: '\\', Hi: '\\'}}),
	}
	for i := range 4 {
		var rs []grammar.RuneRange
		for range 1 + rng.IntN(6) {
			lo := rune(rng.Int32N(utf8.MaxRune + 1))
			if rng.IntN(2) == 0 {
				lo = rune(rng.Int32N(0x20000))
			}
			rs = append(rs, grammar.RuneRange{Lo: lo, Hi: lo + rune(rng.Int32N(0x3000))})
		}
		classes[fmt.Sprintf("random %d", i)] = grammar.NormalizeRanges(rs)
	}
	for name, rs := range classes {
		t.Run(name, func(t *testing.T) {
			seqs := utf8Sequences(rs)
			// Every code point's encoding is spelt exactly when it is in the
			// class and not a surrogate.
			for c := rune(0); c <= utf8.MaxRune; c++ {
				want := inRanges(rs, c) && !(c >= 0xD800 && c <= 0xDFFF)
				if got := matchesSequences(seqs, encodeAny(c)); got != want {
					require.Failf(t, "wrong", "U+%04X: got %v, want %v", c, got, want)
				}
			}
			// Every string spelt is one valid, complete encoding of a member.
			for _, seq := range seqs {
				forEachString(seq, func(s []byte) {
					c, size := utf8.DecodeRune(s)
					if (c == utf8.RuneError && size < 3) || size != len(s) || !inRanges(rs, c) {
						require.Failf(t, "wrong", "% X spelt but not a member's encoding", s)
					}
				})
			}
		})
	}
}

func TestUTF8SequencesShape(t *testing.T) {
	for _, tc := range []struct {
		lo, hi rune
		want   string
	}{
		{'a', 'z', "[61-7A]"},
		{0, 0x7F, "[00-7F]"},
		{0x80, 0x7FF, "[C2-DF][80-BF]"},
		{0x800, 0xFFFF, "[E0-E0][A0-BF][80-BF] [E1-EC][80-BF][80-BF] [ED-ED][80-9F][80-BF] [EE-EF][80-BF][80-BF]"},
		{0x10000, utf8.MaxRune, "[F0-F0][90-BF][80-BF][80-BF] [F1-F3][80-BF][80-BF][80-BF] [F4-F4][80-8F][80-BF][80-BF]"},
		{0x3041, 0x3093, "[E3-E3][81-81][81-BF] [E3-E3][82-82][80-93]"},
		{0x1F600, 0x1F64F, "[F0-F0][9F-9F][98-98][80-BF] [F0-F0][9F-9F][99-99][80-8F]"},
	} {
		var got []string
		for _, seq := range utf8Sequences([]grammar.RuneRange{{Lo: tc.lo, Hi: tc.hi}}) {
			s := ""
			for _, r := range seq {
				s += fmt.Sprintf("[%02X-%02X]", r.lo, r.hi)
			}
			got = append(got, s)
		}
		assert.ElementsMatch(t, strings.Fields(tc.want), got, "U+%04X-U+%04X", tc.lo, tc.hi)
	}
}
