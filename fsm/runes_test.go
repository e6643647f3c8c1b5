package fsm

import (
	"context"
	"errors"
	"regexp"
	"regexp/syntax"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/ctxtest"
)

// runeAlphabet is the oracle's alphabet: ASCII letters, a newline, and
// two- and three-byte characters.
var runeAlphabet = []rune{'a', 'b', '\n', 'é', '世'}

// allStrings returns every string of up to n characters of alphabet.
func allStrings(alphabet []rune, n int) []string {
	out := []string{""}
	level := []string{""}
	for range n {
		var next []string
		for _, s := range level {
			for _, r := range alphabet {
				next = append(next, s+string(r))
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

// fullMatch returns Go's regexp for the full matches of pattern.
func fullMatch(t testing.TB, pattern string) *regexp.Regexp {
	t.Helper()
	return regexp.MustCompile(`^(?:` + pattern + `)$`)
}

func mustRuneRegexp(t testing.TB, pattern string) *RuneDFA {
	t.Helper()
	re, err := syntax.Parse(pattern, syntax.Perl)
	require.NoError(t, err, pattern)
	d, err := RuneRegexp(context.Background(), re, 0)
	require.NoError(t, err, pattern)
	return d
}

// roundTrip returns the regexp ToRegexp writes for d, compiled by Go.
func roundTrip(t testing.TB, d *RuneDFA) *regexp.Regexp {
	t.Helper()
	re, err := d.ToRegexp(context.Background(), RegexpLimits{})
	require.NoError(t, err)
	if re.Op == syntax.OpNoMatch {
		return regexp.MustCompile(`[^\x00-\x{10FFFF}]`)
	}
	return fullMatch(t, re.String())
}

var runePatterns = []string{
	``,
	`a`,
	`a*`,
	`(ab|b)*é`,
	`[^a]+`,
	`.`,
	`(?s).`,
	`(?i)A世`,
	`a{2,3}`,
	`[a-é]b?`,
	`世|ab*`,
	`(a|b)*a(a|b)`,
	`x`,
	`[^\x00-\x{10FFFF}]`,
	`(?:a|é|\n)*b`,
	`^a|b$`,
	`(a*b*)*`,
	`[^\n]*世[^\n]*`,
}

// TestRuneRegexpOracle compares every construction with Go's regexp on all
// strings of up to four characters.
func TestRuneRegexpOracle(t *testing.T) {
	strs := allStrings(runeAlphabet, 4)
	dfas := make([]*RuneDFA, len(runePatterns))
	oracles := make([]*regexp.Regexp, len(runePatterns))
	for i, p := range runePatterns {
		dfas[i], oracles[i] = mustRuneRegexp(t, p), fullMatch(t, p)
	}
	for i, p := range runePatterns {
		d, o := dfas[i], oracles[i]
		comp := d.Complement(ScalarValues())
		back := roundTrip(t, d)
		compBack := roundTrip(t, comp)
		for _, s := range strs {
			want := o.MatchString(s)
			require.Equal(t, want, d.Match(s), "%q on %q", p, s)
			require.Equal(t, !want, comp.Match(s), "complement of %q on %q", p, s)
			require.Equal(t, want, back.MatchString(s), "ToRegexp of %q on %q", p, s)
			require.Equal(t, !want, compBack.MatchString(s), "ToRegexp of the complement of %q on %q", p, s)
		}
	}
	for i, p := range runePatterns {
		for j, q := range runePatterns[i:] {
			j += i
			x, err := dfas[i].Intersect(context.Background(), dfas[j], 0)
			require.NoError(t, err)
			back := roundTrip(t, x)
			some := false
			for _, s := range strs {
				want := oracles[i].MatchString(s) && oracles[j].MatchString(s)
				some = some || want
				require.Equal(t, want, x.Match(s), "%q ∩ %q on %q", p, q, s)
				require.Equal(t, want, back.MatchString(s), "ToRegexp of %q ∩ %q on %q", p, q, s)
			}
			if some {
				assert.False(t, x.IsEmpty(), "%q ∩ %q", p, q)
			}
		}
	}
}

// TestRuneMinimize checks that the automata are minimal: intersecting one
// with itself or complementing it twice gives back as many states, and
// equivalent patterns give automata of the same size.
func TestRuneMinimize(t *testing.T) {
	for _, p := range runePatterns {
		d := mustRuneRegexp(t, p)
		self, err := d.Intersect(context.Background(), d, 0)
		require.NoError(t, err)
		assert.Equal(t, d.NumStates(), self.NumStates(), "%q ∩ itself", p)
		twice := d.Complement(ScalarValues()).Complement(ScalarValues())
		assert.Equal(t, d.NumStates(), twice.NumStates(), "%q complemented twice", p)
		assert.Equal(t, d.NumStates(), d.Minimize().NumStates(), "%q minimized again", p)
	}
	for _, c := range []struct {
		a, b   string
		states int
	}{
		{`a*`, `(a|aa)*`, 1},
		{`(a|b)*`, `(a*b*)*`, 1},
		{`ab|ac`, `a[bc]`, 3},
		{`[^a]`, `[\x00-\x60b-\x{10FFFF}]`, 2},
	} {
		a, b := mustRuneRegexp(t, c.a), mustRuneRegexp(t, c.b)
		assert.Equal(t, c.states, a.NumStates(), c.a)
		assert.Equal(t, c.states, b.NumStates(), c.b)
	}
}

func TestRuneDFANext(t *testing.T) {
	d := mustRuneRegexp(t, `[a-c]x|é`)
	for _, c := range []struct {
		r    rune
		live bool
	}{
		{'a', true}, {'b', true}, {'c', true}, {'d', false}, {'é', true},
		{'x', false}, {-1, false}, {utf8.MaxRune + 1, false}, {0xD800, false},
	} {
		assert.Equal(t, c.live, d.Next(d.Start, c.r) >= 0, "%U", c.r)
	}
	assert.Equal(t, int32(-1), d.Next(-1, 'a'))
	assert.Equal(t, []RuneEdge{{'a', 'c', 1}, {'é', 'é', 2}}, d.AppendEdges(nil, d.Start))
}

func TestRuneSurrogates(t *testing.T) {
	all := mustRuneRegexp(t, `(?s).*`)
	assert.Equal(t, int32(-1), all.Next(all.Start, 0xDABC), "a surrogate is no code point")
	comp := all.Complement(ScalarValues())
	assert.True(t, comp.IsEmpty())
	full := emptyRuneDFA().Complement([]rune{0, utf8.MaxRune})
	assert.True(t, full.Match("\xed\xa0\x80"), "complement relative to every code point: U+FFFD read for each byte")
	assert.Equal(t, int32(0), full.Next(0, 0xDABC))
}

func TestRuneLength(t *testing.T) {
	strs := allStrings(runeAlphabet, 4)
	for _, c := range []struct{ min, max int }{{0, 0}, {1, 2}, {2, -1}, {0, -1}, {3, 3}, {3, 1}} {
		d, err := RuneLength(ScalarValues(), c.min, c.max, 0)
		require.NoError(t, err)
		for _, s := range strs {
			n := utf8.RuneCountInString(s)
			want := n >= c.min && (c.max < 0 || n <= c.max)
			require.Equal(t, want, d.Match(s), "{%d,%d} on %q", c.min, c.max, s)
		}
	}
	ascii, err := RuneLength([]rune{0, 0x7F}, 1, 1, 0)
	require.NoError(t, err)
	assert.True(t, ascii.Match("a"))
	assert.False(t, ascii.Match("é"))
	_, err = RuneLength(ScalarValues(), 0, 100, 100)
	assert.ErrorIs(t, err, ErrTooLarge)
}

func TestRuneLiterals(t *testing.T) {
	words := []string{"", "a", "ab", "abé", "b世", "ab"}
	d, err := RuneLiterals(words, 0)
	require.NoError(t, err)
	set := map[string]bool{}
	for _, w := range words {
		set[w] = true
	}
	for _, s := range allStrings(runeAlphabet, 4) {
		require.Equal(t, set[s], d.Match(s), "%q", s)
	}
	none, err := RuneLiterals(nil, 0)
	require.NoError(t, err)
	assert.True(t, none.IsEmpty())
	_, err = RuneLiterals([]string{"abcdefgh"}, 4)
	assert.ErrorIs(t, err, ErrTooLarge)
}

func TestNewRuneDFA(t *testing.T) {
	d, err := NewRuneDFA([]bool{false, true}, [][]RuneEdge{{{'b', 'c', 1}, {'a', 'a', 0}}, nil})
	require.NoError(t, err)
	for s, want := range map[string]bool{"b": true, "aac": true, "": false, "ab": true, "bb": false, "d": false} {
		assert.Equal(t, want, d.Match(s), "%q", s)
	}
	for _, c := range []struct {
		final []bool
		edges [][]RuneEdge
	}{
		{[]bool{true}, nil},
		{[]bool{true}, [][]RuneEdge{{{'a', 'a', 1}}}},
		{[]bool{true, true}, [][]RuneEdge{{{'a', 'c', 1}, {'b', 'b', 0}}, nil}},
	} {
		_, err := NewRuneDFA(c.final, c.edges)
		assert.Error(t, err, "%v", c.edges)
	}
	empty, err := NewRuneDFA(nil, nil)
	require.NoError(t, err)
	assert.True(t, empty.IsEmpty())
}

func TestRuneLimits(t *testing.T) {
	re, err := syntax.Parse(`(a|b)*a(a|b){12}`, syntax.Perl)
	require.NoError(t, err)
	_, err = RuneRegexp(context.Background(), re, 1000)
	assert.ErrorIs(t, err, ErrTooLarge, "DFA states")
	re, err = syntax.Parse(`(a{30}){30}`, syntax.Perl)
	require.NoError(t, err)
	_, err = RuneRegexp(context.Background(), re, 100)
	assert.ErrorIs(t, err, ErrTooLarge, "NFA states")
	re, err = syntax.Parse(`a\bb`, syntax.Perl)
	require.NoError(t, err)
	_, err = RuneRegexp(context.Background(), re, 0)
	assert.ErrorIs(t, err, ErrUnsupportedRegexp)

	a, b := mustRuneRegexp(t, `(a|b)*a(a|b){5}`), mustRuneRegexp(t, `(a|b)*b(a|b){5}`)
	_, err = a.Intersect(context.Background(), b, 100)
	assert.ErrorIs(t, err, ErrTooLarge, "product states")

	_, err = a.ToRegexp(context.Background(), RegexpLimits{MaxNodes: 50})
	assert.ErrorIs(t, err, ErrTooLarge, "nodes per edge")
	_, err = a.ToRegexp(context.Background(), RegexpLimits{MaxWork: 200})
	assert.ErrorIs(t, err, ErrTooLarge, "work")
	_, err = a.ToRegexp(context.Background(), RegexpLimits{MaxStates: 10})
	assert.ErrorIs(t, err, ErrTooLarge, "states")
	leafy, err := mustRuneRegexp(t, `[ab]c`).ToRegexp(context.Background(), RegexpLimits{MaxNodes: 5, LeafSize: func([]rune) int { return 3 }})
	assert.ErrorIs(t, err, ErrTooLarge, "leaf sizes count")
	assert.Nil(t, leafy)
}

func TestRuneContext(t *testing.T) {
	re, err := syntax.Parse(`(a|b)*a(a|b){10}`, syntax.Perl)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = RuneRegexp(ctx, re, 0)
	assert.ErrorIs(t, err, context.Canceled)
	d, err := RuneRegexp(context.Background(), re, 0)
	require.NoError(t, err)
	_, err = d.Intersect(ctx, d, 0)
	assert.ErrorIs(t, err, context.Canceled)
	_, err = d.MinimizeContext(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	_, err = d.ToRegexp(ctx, RegexpLimits{})
	assert.ErrorIs(t, err, context.Canceled)

	// A context that ends during the work stops it.
	for _, limit := range []int64{2, 3} {
		_, err = RuneRegexp(ctxtest.NewCountdown(limit), re, 0)
		assert.True(t, err == nil || errors.Is(err, context.Canceled), "%v", err)
	}
}

func TestToRegexpShape(t *testing.T) {
	for _, c := range []struct{ pattern, want string }{
		{`a`, `a`},
		{`[ab]`, `[ab]`},
		{`a*`, `a*`},
		{`[^\x00-\x{10FFFF}]`, `[^\x00-\x{10FFFF}]`},
		{``, `(?:)`},
	} {
		re, err := mustRuneRegexp(t, c.pattern).ToRegexp(context.Background(), RegexpLimits{})
		require.NoError(t, err)
		assert.Equal(t, c.want, re.String(), c.pattern)
	}
}

// FuzzRuneToRegexp checks that ToRegexp's expression matches exactly what the
// automaton of a pattern accepts, and the automaton what Go's regexp does, on
// short strings.
func FuzzRuneToRegexp(f *testing.F) {
	for _, p := range runePatterns {
		f.Add(p)
	}
	strs := allStrings([]rune{'a', 'b', 'é'}, 3)
	f.Fuzz(func(t *testing.T, pattern string) {
		re, err := syntax.Parse(pattern, syntax.Perl)
		if err != nil {
			return
		}
		// Go's regexp reads the parsed pattern: wrapped as written, a \Q
		// would quote the wrapper's closing parenthesis.
		parsed := re.String()
		d, err := RuneRegexp(context.Background(), re, 200)
		if err != nil {
			if !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrUnsupportedRegexp) {
				t.Fatalf("%q: %v", pattern, err)
			}
			return
		}
		out, err := d.ToRegexp(context.Background(), RegexpLimits{MaxNodes: 2000, MaxWork: 20000})
		if errors.Is(err, ErrTooLarge) {
			return
		}
		require.NoError(t, err)
		o := regexp.MustCompile(`^(?:` + parsed + `)$`)
		back := regexp.MustCompile(`[^\x00-\x{10FFFF}]`)
		if out.Op != syntax.OpNoMatch {
			back = regexp.MustCompile(`^(?:` + out.String() + `)$`)
		}
		for _, s := range strs {
			require.Equal(t, o.MatchString(s), d.Match(s), "%q on %q", pattern, s)
			require.Equal(t, d.Match(s), back.MatchString(s), "%q: %s on %q", pattern, out, s)
		}
	})
}

// TestRuneConcat checks the concatenation of two automata against the
// concatenation of their regexes, on every string of up to 5 characters
// over a small alphabet.
func TestRuneConcat(t *testing.T) {
	for _, tc := range [][2]string{
		{`a*`, `b`}, {`a|bc`, `c*a`}, {``, `ab`}, {`(ab)*`, `(ba)*`}, {`[^a]`, `a?`}, {`é+`, `a|é`},
	} {
		a, err := RuneRegexp(context.Background(), mustParse(t, tc[0], syntax.Perl), 0)
		require.NoError(t, err)
		b, err := RuneRegexp(context.Background(), mustParse(t, tc[1], syntax.Perl), 0)
		require.NoError(t, err)
		got, err := RuneConcat(context.Background(), a, b, 0)
		require.NoError(t, err)
		want := regexp.MustCompile(`^(?:` + tc[0] + `)(?:` + tc[1] + `)$`)
		var walk func(s string)
		walk = func(s string) {
			require.Equal(t, want.MatchString(s), got.Match(s), "%q · %q on %q", tc[0], tc[1], s)
			if utf8.RuneCountInString(s) < 5 {
				for _, r := range "abcé" {
					walk(s + string(r))
				}
			}
		}
		walk("")
	}
	empty, err := RuneRegexp(context.Background(), mustParse(t, `[^\x00-\x{10FFFF}]`, syntax.Perl), 0)
	require.NoError(t, err)
	a, err := RuneRegexp(context.Background(), mustParse(t, `a`, syntax.Perl), 0)
	require.NoError(t, err)
	d, err := RuneConcat(context.Background(), a, empty, 0)
	require.NoError(t, err)
	require.True(t, d.IsEmpty())
}

func mustParse(t *testing.T, src string, flags syntax.Flags) *syntax.Regexp {
	t.Helper()
	re, err := syntax.Parse(src, flags)
	require.NoError(t, err)
	return re
}
