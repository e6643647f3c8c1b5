package toktrie_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/reinlm/rein/internal/byteset"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/tokenizer/toktrie"
)

// TestContaining checks Containing, ClearContaining, ContainsAfterFirst, WithByte,
// WithByteInside and Chars/SortedChars/CountChars against plain loops over every token's bytes, on
// GPT-2 and on Qwen3 (multi-byte characters, and tokens that split them). The sets include some
// that few tokens have (looked up in the byte index) and some that most have (every summary read).
func TestContaining(t *testing.T) {
	sets := map[string]func(b byte) bool{
		"quote and backslash": func(b byte) bool { return b == '"' || b == '\\' },
		"control and quote":   func(b byte) bool { return b < 0x20 || b == '"' },
		"not a digit":         func(b byte) bool { return b < '0' || b > '9' },
		"high":                func(b byte) bool { return b >= 0x80 },
		"E4 only":             func(b byte) bool { return b == 0xE4 },
		"nothing":             func(byte) bool { return false },
		"everything":          func(byte) bool { return true },
		"not hex":             func(b byte) bool { return !strings.ContainsRune("0123456789abcdefABCDEF", rune(b)) },
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
					row := make([]uint32, (tr.Size()+31)/32)
					for _, id := range tr.IDs() {
						row[id>>5] |= 1 << (id & 31)
					}
					tr.ClearContaining(row, &set, whole)
					for i, id := range tr.IDs() {
						cleared := row[id>>5]&(1<<(id&31)) == 0
						if _, listed := slices.BinarySearch(want, int32(i)); cleared != listed {
							t.Fatalf("ClearContaining(%q) in %s, whole UTF-8 %v: cleared %v", tr.Token(i), sname, whole, cleared)
						}
					}
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
			// Every token in one of AfterFirstChar's, OneChar's and
			// BrokenFirstChar's lists, by its first character.
			var after [256][]int32
			var one, broken []int32
			for i := range tr.Len() {
				tok := tr.Token(i)
				r, n := utf8.DecodeRune(tok)
				switch {
				case r == utf8.RuneError && n == 1:
					broken = append(broken, int32(i))
				case n == len(tok):
					one = append(one, int32(i))
				default:
					after[tok[n]] = append(after[tok[n]], int32(i))
				}
			}
			for b := range 256 {
				assert.Equal(t, after[b], nilIfEmpty(tr.AfterFirstChar(byte(b))), "after first char: %#x", b)
			}
			assert.Equal(t, one, tr.OneChar())
			assert.Equal(t, broken, tr.BrokenFirstChar())
			assert.NotEmpty(t, broken, "byte tokens")
			chars := func(i int) int {
				tok := tr.Token(i)
				if utf8.Valid(tok) {
					return utf8.RuneCount(tok)
				}
				return len(tok)
			}
			longest := 0
			for i := range tr.Len() {
				longest = max(longest, chars(i))
			}
			bands := [][2]int{{-1, 0}, {-1, 3}, {0, 1}, {3, 8}, {11, 12}, {16, 254}, {16, math.MaxInt},
				{-1, math.MaxInt}, {254, 255}, {255, math.MaxInt}, {longest - 1, longest}, {longest, math.MaxInt}}
			for _, band := range bands {
				var in []int32
				for i := range tr.Len() {
					if c := chars(i); c > band[0] && c <= band[1] {
						in = append(in, int32(i))
					}
				}
				assert.Equal(t, in, tr.SortedChars(band[0], band[1]), "chars in %v", band)
				var yielded []int32
				last := -1
				for p := range tr.Chars(band[0], band[1]) {
					c := chars(p)
					if c < last && last < 255 {
						t.Fatalf("chars in %v: a token of %d characters after one of %d", band, c, last)
					}
					last = c
					yielded = append(yielded, int32(p))
				}
				slices.Sort(yielded)
				assert.Equal(t, in, yielded, "chars in %v", band)
				if band[1] <= 254 {
					assert.Equal(t, len(in), tr.CountChars(band[0], band[1]), "chars in %v", band)
				}
			}
		})
	}
}

// TestCharsLong checks Chars and SortedChars past 254 characters, where
// tokens of different lengths share the index's last group; no real
// vocabulary has a token that long.
func TestCharsLong(t *testing.T) {
	lengths := []int{1, 254, 255, 256, 300, 300, 3}
	tokens := make([][]byte, len(lengths))
	for i, n := range lengths {
		tokens[i] = []byte(strings.Repeat(string(rune('a'+i)), n))
	}
	tr := toktrie.New(len(tokens), func(id int) []byte { return tokens[id] })
	tests := []struct {
		lo, hi int
		want   []int // lengths, in sorted-position order
	}{
		{-1, math.MaxInt, []int{1, 254, 255, 256, 300, 300, 3}},
		{253, 255, []int{254, 255}},
		{254, 255, []int{255}},
		{255, 256, []int{256}},
		{255, math.MaxInt, []int{256, 300, 300}},
		{256, 299, nil},
		{299, 300, []int{300, 300}},
		{300, math.MaxInt, nil},
		{2, 254, []int{254, 3}},
	}
	for _, tc := range tests {
		var got []int
		for _, p := range tr.SortedChars(tc.lo, tc.hi) {
			got = append(got, len(tr.Token(int(p))))
		}
		assert.Equal(t, tc.want, got, "chars in (%d, %d]", tc.lo, tc.hi)
		n := 0
		for range tr.Chars(tc.lo, tc.hi) {
			n++
		}
		assert.Equal(t, len(tc.want), n, "Chars(%d, %d)", tc.lo, tc.hi)
	}
}

// BenchmarkContaining is what one new set of tokens costs a first mask once
// the vocabulary's summaries are built: the tokens to walk inside a JSON
// string (a quote, a backslash, a control byte, or not whole UTF-8), the
// row of the tokens made of hex digits only, and the tokens longer than a
// count (a string of at most 24 characters).
func BenchmarkContaining(b *testing.B) {
	var inside, notHex byteset.Set
	for c := range 256 {
		if c < 0x20 || c == '"' || c == '\\' {
			inside.Add(byte(c))
		}
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(c)) {
			notHex.Add(byte(c))
		}
	}
	for _, name := range vocabtest.Available("llama3", "qwen3") {
		tr := vocabtest.Load(b, name).Trie()
		tr.Summarize()
		row := make([]uint32, (tr.Size()+31)/32)
		b.Run(name+"/string-inside", func(b *testing.B) {
			for b.Loop() {
				tr.Containing(&inside, true)
			}
		})
		b.Run(name+"/hex-only-row", func(b *testing.B) {
			for b.Loop() {
				for i := range row {
					row[i] = ^uint32(0)
				}
				tr.ClearContaining(row, &notHex, true)
			}
		})
		b.Run(name+"/longer-than-24", func(b *testing.B) {
			for b.Loop() {
				tr.SortedChars(24, math.MaxInt)
			}
		})
	}
}

func nilIfEmpty(s []int32) []int32 {
	if len(s) == 0 {
		return nil
	}
	return s
}
