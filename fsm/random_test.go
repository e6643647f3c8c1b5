package fsm

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomRegexp returns a random pattern over a small alphabet that mixes
// ASCII, a two-byte letter that folds, and newlines.
func randomRegexp(rng *rand.Rand, depth int) string {
	atoms := []string{`a`, `b`, `c`, `é`, `.`, `(?s:.)`, `[ab]`, `[^a]`, `[a-cé]`, `[^\n]`, `\w`, `(?i:a)`, `(?i:é)`, `(?:)`, `ab`, `\n`, `[^\x00-\x{10FFFF}]`}
	if depth <= 0 || rng.IntN(4) == 0 {
		return atoms[rng.IntN(len(atoms))]
	}
	sub := func() string { return randomRegexp(rng, depth-1) }
	switch rng.IntN(9) {
	case 0, 1:
		return sub() + sub()
	case 2:
		return `(` + sub() + `|` + sub() + `)`
	case 3:
		return `(` + sub() + `)*`
	case 4:
		return `(` + sub() + `)+`
	case 5:
		return `(` + sub() + `)?`
	case 6:
		lo := rng.IntN(3)
		switch rng.IntN(3) {
		case 0:
			return `(` + sub() + `){` + string(rune('0'+lo)) + `}`
		case 1:
			return `(` + sub() + `){` + string(rune('0'+lo)) + `,}`
		}
		return `(` + sub() + `){` + string(rune('0'+lo)) + `,` + string(rune('0'+lo+rng.IntN(3))) + `}`
	case 7:
		return `(?:` + sub() + `)`
	}
	return sub() + `|` + sub()
}

// randomInput returns a random byte string over the same alphabet plus
// bytes no pattern should accept.
func randomInput(rng *rand.Rand) string {
	pieces := []string{"a", "b", "c", "A", "é", "É", "\n", "\xff", "\xc3", "_", "1"}
	var b strings.Builder
	for range rng.IntN(8) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// sample returns a random string d accepts, by a random walk that only
// takes transitions into live states, or false if the walk ran long.
func sample(rng *rand.Rand, d *DFA) (string, bool) {
	var out []byte
	s := d.Start
	for len(out) < 24 {
		if d.Final[s] && rng.IntN(3) == 0 {
			return string(out), true
		}
		var bytes []byte
		for b := range 256 {
			if d.Next(s, byte(b)) >= 0 {
				bytes = append(bytes, byte(b))
			}
		}
		if len(bytes) == 0 {
			return string(out), d.Final[s]
		}
		b := bytes[rng.IntN(len(bytes))]
		out = append(out, b)
		s = d.Next(s, b)
	}
	return "", false
}

// forcedByDefinition follows the definition of ForcedBytes step by step.
func forcedByDefinition(d *DFA, s int32) string {
	live := coReachable(d)
	var out []byte
	for s >= 0 && live[s] && !d.Final[s] && len(d.Calls[s]) == 0 {
		count, next, by := 0, int32(-1), byte(0)
		for b := range 256 {
			if t := d.Next(s, byte(b)); t >= 0 && live[t] {
				count, next, by = count+1, t, byte(b)
			}
		}
		if count != 1 {
			break
		}
		out = append(out, by)
		s = next
	}
	return string(out)
}

// TestRandomDifferential compares fsm with Go's regexp on random patterns and
// inputs, and checks minimality and ForcedBytes on each.
func TestRandomDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	patterns, cases := 1500, 0
	if testing.Short() {
		patterns = 300
	}
	for range patterns {
		pattern := randomRegexp(rng, 4)
		want := oracle(t, pattern)
		det, err := determinize(pattern, 5000)
		if errors.Is(err, ErrTooLarge) {
			continue
		}
		require.NoError(t, err, pattern)
		min := det.Minimize()
		checkMinimal(t, min)
		require.True(t, equivalent(det, det.Start, min, min.Start), pattern)
		for range 40 {
			s := randomInput(rng)
			require.Equal(t, want(s), min.Match([]byte(s)), "%q on %q", pattern, s)
			require.Equal(t, want(s), det.Match([]byte(s)), "%q on %q (unminimized)", pattern, s)
			cases++
		}
		if min.Start < 0 {
			continue
		}
		for range 10 {
			if s, ok := sample(rng, min); ok {
				require.True(t, want(s), "%q accepts %q, Go's regexp does not", pattern, s)
				cases++
			}
		}
		for s := range int32(min.NumStates()) {
			require.Equal(t, forcedByDefinition(min, s), string(min.ForcedBytes(s)), "%q state %d", pattern, s)
		}
	}
	t.Logf("%d patterns, %d cases", patterns, cases)
}

// hasInvalidLiteral reports a literal code point UTF-8 cannot encode: fsm
// never matches it, Go's regexp matches it as U+FFFD on some paths.
func hasInvalidLiteral(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral {
		for _, r := range re.Rune {
			if !utf8.ValidRune(r) {
				return true
			}
		}
	}
	for _, sub := range re.Sub {
		if hasInvalidLiteral(sub) {
			return true
		}
	}
	return false
}

func FuzzRegexp(f *testing.F) {
	for _, tt := range matchTests {
		for _, s := range append(tt.yes, tt.no...) {
			f.Add(tt.pattern, s)
		}
	}
	f.Add(`(a|b)*a(a|b){12}`, "ab")
	f.Add(`\bx`, "x")
	f.Add(`x{1000}`, "x")
	f.Fuzz(func(t *testing.T, pattern, input string) {
		if len(pattern) > 200 {
			return
		}
		re, err := syntax.Parse(pattern, syntax.Perl)
		if err != nil {
			return
		}
		n := NFA{MaxStates: 50000}
		start, end := n.NewState(), n.NewState()
		if err := n.Regexp(start, end, re); err != nil {
			if !errors.Is(err, ErrUnsupportedRegexp) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("%q: unexpected error %v", pattern, err)
			}
			return
		}
		det, err := Determinize(&n, start, []int{end}, 2000)
		if err != nil {
			assert.ErrorIs(t, err, ErrTooLarge)
			return
		}
		min := det.Minimize()
		got := min.Match([]byte(input))
		assert.Equal(t, det.Match([]byte(input)), got, "%q on %q: minimized and not", pattern, input)
		_ = min.ForcedBytes(min.Start)
		if strings.Contains(pattern, `\Q`) || hasInvalidLiteral(re) {
			return // the wrapped pattern would read differently, or Go reads U+FFFD
		}
		goRe, err := regexp.Compile(`^(?:` + pattern + `)$`)
		if err != nil {
			return
		}
		want := utf8.ValidString(input) && goRe.MatchString(input)
		assert.Equal(t, want, got, "%q on %q", pattern, input)
	})
}
