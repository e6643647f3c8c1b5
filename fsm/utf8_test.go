package fsm

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runesDFA returns the minimized DFA for one code point from pairs, and the
// number of states of the NFA that Runes built.
func runesDFA(t testing.TB, pairs []rune) (*DFA, int) {
	t.Helper()
	var n NFA
	s, e := n.NewState(), n.NewState()
	n.Runes(s, e, pairs)
	d, err := Determinize(&n, s, []int{e}, 10000)
	require.NoError(t, err)
	return d.Minimize(), n.NumStates()
}

func tablePairs(tab *unicode.RangeTable) []rune {
	var pairs []rune
	add := func(lo, hi, stride rune) {
		if stride == 1 {
			pairs = append(pairs, lo, hi)
			return
		}
		for c := lo; c <= hi; c += stride {
			pairs = append(pairs, c, c)
		}
	}
	for _, r := range tab.R16 {
		add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	for _, r := range tab.R32 {
		add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	return pairs
}

// inRanges reports whether r lies in one of the normalized ranges rs.
func inRanges(rs []runeRange, r rune) bool {
	i, _ := slices.BinarySearchFunc(rs, r, func(x runeRange, r rune) int {
		switch {
		case x.hi < r:
			return -1
		case x.lo > r:
			return 1
		}
		return 0
	})
	return i < len(rs) && rs[i].lo <= r && r <= rs[i].hi
}

var runeClasses = []struct {
	name      string
	pairs     []rune
	maxStates int // bound on the states of the NFA (including both ends)
}{
	{`[^"\\]`, []rune{0, '"' - 1, '"' + 1, '\\' - 1, '\\' + 1, utf8.MaxRune}, 12},
	{`\p{L}`, tablePairs(unicode.L), 300},
	{`\p{Han}`, tablePairs(unicode.Han), 40},
	{`\pN`, tablePairs(unicode.N), 200},
	{`\p{Greek}`, tablePairs(unicode.Greek), 40},
	{`.`, []rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune}, 12},
	{`[\x80-\x{10FFFF}]`, []rune{0x80, utf8.MaxRune}, 12},
	{`surrogate edges`, []rune{0xD7FF, 0xE000}, 6},
	{`length edges`, []rune{0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF, 0x10FFFF}, 16},
	{`odd ranges`, []rune{0x41, 0x5A, 0x3A9, 0x3A9, 0x1234, 0x2345, 0x10400, 0x1044F, 0xFFFD, 0xFFFD}, 30},
	{`one 4-byte rune`, []rune{0x1F600, 0x1F600}, 5},
}

// TestRunesEveryCodePoint checks every code point of each class, and a sample
// of those outside it.
func TestRunesEveryCodePoint(t *testing.T) {
	var buf [utf8.UTFMax]byte
	for _, tc := range runeClasses {
		d, _ := runesDFA(t, tc.pairs)
		checkMinimal(t, d)
		rs := normalizeRunes(nil, tc.pairs)
		in, out := 0, 0
		for r := rune(0); r <= utf8.MaxRune; r++ {
			if r >= 0xD800 && r <= 0xDFFF {
				continue
			}
			want := inRanges(rs, r)
			if !want && r%61 != 0 && r > 0x800 {
				continue
			}
			w := utf8.EncodeRune(buf[:], r)
			if d.Match(buf[:w]) != want {
				t.Fatalf("%s: U+%04X: match %v, want %v", tc.name, r, !want, want)
			}
			if want {
				in++
			} else {
				out++
			}
		}
		t.Logf("%s: %d code points in, %d out checked", tc.name, in, out)
	}
}

// TestRunesInvalidUTF8 checks that no class, however wide, matches
// surrogates, overlong forms, values past U+10FFFF or broken sequences.
func TestRunesInvalidUTF8(t *testing.T) {
	invalid := [][]byte{
		{0x80}, {0xBF}, {0xC0, 0x80}, {0xC1, 0xBF}, {0xC2}, {0xC2, 0xC2}, {0xE0, 0x80, 0x80},
		{0xE0, 0x9F, 0xBF}, {0xE1, 0x80}, {0xF0, 0x80, 0x80, 0x80}, {0xF0, 0x8F, 0xBF, 0xBF},
		{0xF4, 0x90, 0x80, 0x80}, {0xF5, 0x80, 0x80, 0x80}, {0xF7, 0xBF, 0xBF, 0xBF},
		{0xF8, 0x88, 0x80, 0x80, 0x80}, {0xFE}, {0xFF}, {0xC3, 0xA9, 0xA9}, {},
	}
	for hi := byte(0xA0); hi <= 0xBF; hi++ {
		for lo := byte(0x80); lo <= 0xBF; lo++ {
			invalid = append(invalid, []byte{0xED, hi, lo}) // the surrogates
		}
	}
	classes := [][]rune{anyRune, {0xD000, 0xE000}, {0xD800, 0xDFFF}, {0x80, 0x10FFFF}, {0, 0x7FFFFFFF}, {-5, 0x110000}}
	for _, pairs := range classes {
		d, _ := runesDFA(t, pairs)
		for _, b := range invalid {
			assert.False(t, d.Match(b), "%v matches % x", pairs, b)
		}
	}
	d, _ := runesDFA(t, []rune{0xD800, 0xDFFF})
	assert.Equal(t, int32(-1), d.Start, "a class of surrogates only matches nothing")
}

// TestRunesSize checks that classes compile to the minimal automaton: Runes
// builds the minimal acyclic automaton of the class directly, and it stays
// small.
func TestRunesSize(t *testing.T) {
	for _, tc := range runeClasses {
		d, nfaStates := runesDFA(t, tc.pairs)
		assert.LessOrEqual(t, nfaStates, tc.maxStates, tc.name)
		assert.Equal(t, nfaStates, d.NumStates(), "%s: NFA is not minimal", tc.name)
	}
}

func TestRunesNormalizes(t *testing.T) {
	tests := []struct {
		pairs []rune
		yes   []string
		no    []string
	}{
		{[]rune{'x', 'z', 'a', 'c', 'b', 'y'}, []string{"a", "m", "z"}, []string{"`", "{"}},
		{[]rune{'b', 'a'}, nil, []string{"a", "b"}},
		{[]rune{'a', 'a', 'c'}, []string{"a"}, []string{"c"}},
		{[]rune{-10, 'a'}, []string{"\x00", "a"}, []string{"b"}},
		{[]rune{0x10FFFF, 0x7FFFFFFF}, []string{"\U0010FFFF"}, []string{"\U0010FFFE"}},
		{[]rune{}, nil, []string{"", "a"}},
		{nil, nil, []string{"", "a"}},
	}
	for _, tt := range tests {
		d, _ := runesDFA(t, tt.pairs)
		for _, s := range tt.yes {
			assert.True(t, d.Match([]byte(s)), "%v %q", tt.pairs, s)
		}
		for _, s := range tt.no {
			assert.False(t, d.Match([]byte(s)), "%v %q", tt.pairs, s)
		}
	}
}

// TestUTF8Seqs checks the split of random ranges into byte-range sequences:
// in order, one length each, covering exactly the encodable code points.
func TestUTF8Seqs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	bounds := []rune{0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDFFF, 0xE000, 0xFFFF, 0x10000, 0x3FFFF, 0x40000, 0x10FFFF}
	pick := func() rune {
		if rng.IntN(2) == 0 {
			return bounds[rng.IntN(len(bounds))] + rune(rng.IntN(3)) - 1
		}
		return rune(rng.IntN(utf8.MaxRune + 1))
	}
	for range 2000 {
		lo, hi := min(max(pick(), 0), utf8.MaxRune), min(max(pick(), 0), utf8.MaxRune)
		if lo > hi {
			lo, hi = hi, lo
		}
		seqs := appendUTF8Seqs(nil, lo, hi)
		total := 0
		var prev []byte
		for _, s := range seqs {
			size := 1
			var first, last []byte
			for i := range s.n {
				require.LessOrEqual(t, s.r[i].lo, s.r[i].hi)
				size *= int(s.r[i].hi-s.r[i].lo) + 1
				first = append(first, s.r[i].lo)
				last = append(last, s.r[i].hi)
			}
			total += size
			for _, b := range [][]byte{first, last} {
				r, w := utf8.DecodeRune(b)
				require.Equal(t, s.n, w, "% x is one code point", b)
				require.True(t, r >= lo && r <= hi && r != utf8.RuneError || r == 0xFFFD, "U+%04X in [%X,%X]", r, lo, hi)
			}
			require.Negative(t, slices.Compare(prev, first), "sequences in order")
			prev = last
		}
		want := int(hi - lo + 1)
		if lo <= 0xDFFF && hi >= 0xD800 {
			want -= int(min(hi, 0xDFFF) - max(lo, 0xD800) + 1)
		}
		require.Equal(t, want, total, "[%X,%X] %v", lo, hi, seqs)
	}
}
