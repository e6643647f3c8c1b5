package toktrie_test

import (
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/reinlm/rein/internal/byteset"
	"github.com/reinlm/rein/internal/vocabtest"
)

// TestContaining checks Containing, ContainsAfterFirst, WithByte, WithByteInside and
// AtMostChars/MoreChars/BetweenChars/CountChars against plain loops over every token's bytes, on
// GPT-2 and on Qwen3 (multi-byte characters, and tokens that split them).
func TestContaining(t *testing.T) {
	sets := map[string]func(b byte) bool{
		"quote and backslash": func(b byte) bool { return b == '"' || b == '\\' },
		"control and quote":   func(b byte) bool { return b < 0x20 || b == '"' },
		"not a digit":         func(b byte) bool { return b < '0' || b > '9' },
		"high":                func(b byte) bool { return b >= 0x80 },
		"E4 only":             func(b byte) bool { return b == 0xE4 },
		"nothing":             func(byte) bool { return false },
	}
	for _, name := range vocabtest.Available("gpt2", "qwen3") {
		t.Run(name, func(t *testing.T) {
			tr := vocabtest.Load(t, name).Trie()
			for sname, in := range sets {
				var set byteset.Set
				for b := range 256 {
					if in(byte(b)) {
						set.Add(byte(b))
					}
				}
				for _, whole := range []bool{false, true} {
					var want []int32
					for i := range tr.Len() {
						tok := tr.Token(i)
						if slices.ContainsFunc(tok, in) || whole && !utf8.Valid(tok) {
							want = append(want, int32(i))
						}
						if tok[0] < utf8.RuneSelf {
							after := slices.ContainsFunc(tok[1:], in) || whole && !utf8.Valid(tok[1:])
							if tr.ContainsAfterFirst(i, &set, whole) != after {
								t.Fatalf("ContainsAfterFirst(%q) in %s, whole UTF-8 %v: %v", tok, sname, whole, !after)
							}
						}
					}
					assert.Equal(t, want, tr.Containing(&set, whole), "%s, whole UTF-8 %v", sname, whole)
				}
			}
			for _, b := range []byte{'"', 'a', ' ', '\n', 0xE4, 0xFF} {
				with, inside := 0, 0
				for i := range tr.Len() {
					tok := tr.Token(i)
					if slices.Contains(tok, b) {
						with++
					}
					if slices.Contains(tok[1:], b) {
						inside++
					}
				}
				assert.Equal(t, with, tr.WithByte(b), "byte %#x", b)
				assert.Equal(t, inside, tr.WithByteInside(b), "byte %#x", b)
			}
			for _, n := range []int{0, 1, 3, 16} {
				var short, long []int
				for i := range tr.Len() {
					tok := tr.Token(i)
					chars := len(tok)
					if utf8.Valid(tok) {
						chars = utf8.RuneCount(tok)
					}
					if chars <= n {
						short = append(short, i)
					} else {
						long = append(long, i)
					}
				}
				assert.Equal(t, short, slices.Collect(tr.AtMostChars(n)), "at most %d", n)
				assert.Equal(t, long, slices.Collect(tr.MoreChars(n)), "more than %d", n)
			}
			for _, band := range [][2]int{{0, 1}, {3, 8}, {11, 12}, {16, 254}} {
				var in []int
				for i := range tr.Len() {
					tok := tr.Token(i)
					chars := len(tok)
					if utf8.Valid(tok) {
						chars = utf8.RuneCount(tok)
					}
					if chars > band[0] && chars <= band[1] {
						in = append(in, i)
					}
				}
				assert.Equal(t, in, slices.Collect(tr.BetweenChars(band[0], band[1])), "chars in %v", band)
				assert.Equal(t, len(in), tr.CountChars(band[0], band[1]), "chars in %v", band)
			}
		})
	}
}
