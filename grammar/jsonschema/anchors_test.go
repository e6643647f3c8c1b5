package jsonschema

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/ecma"
)

// TestResolveAnchors compares, on random strings, the whole-string regex
// resolveAnchors writes for a pattern with anchors inside with Go's own
// search for the pattern, which reads the anchors natively.
func TestResolveAnchors(t *testing.T) {
	// Most have anchors inside; a few only at the ends, which the rewrite
	// handles too.
	patterns := []string{
		`(^a|b)c`, `x(y|$)`, `(^Hpt_|^Int_|_Armour_)`, `(^[^5]*$)|7`, `a^b`, `^a|b$|(^c$)`,
		`(a|^)(b|$)`, `(^|,)x(,|$)`, `(ab|^)*c`, `(^a)+`, `(x$)?y`, `(^a){2}`, `(^|a){1,3}b`,
		`$^`, `(^)*a`, `((^a|b)c)*`, `^([^,]|$)`, `(^ab|ba$)+`, `a(b(^|c)|$)d?`, `(.$|^.)`,
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for _, p := range patterns {
		src, err := ecma.Translate(p)
		require.NoError(t, err, p)
		re, err := syntax.Parse(src, syntax.Perl)
		require.NoError(t, err, p)
		whole, err := resolveAnchors(re)
		require.NoError(t, err, p)
		require.False(t, innerAnchors(whole), "%s: %s keeps anchors inside", p, whole)
		want := regexp.MustCompile(src)
		got := regexp.MustCompile(whole.String())
		alphabet := []rune("abcxy,5 7HIAnpt_r")
		for range 3000 {
			n := rng.IntN(7)
			s := make([]rune, n)
			for i := range s {
				s[i] = alphabet[rng.IntN(len(alphabet))]
			}
			str := string(s)
			require.Equal(t, want.MatchString(str), got.MatchString(str), "%s on %q (rewritten %s)", p, str, whole)
		}
	}
}

// TestResolveAnchorsRandom does the same over random patterns of a, b,
// anchors, groups, alternations and repetitions, on every string of a and
// b up to length 5.
func TestResolveAnchorsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	var gen func(depth int) string
	gen = func(depth int) string {
		if depth == 0 {
			return []string{"a", "b", "^", "$", "."}[rng.IntN(5)]
		}
		switch rng.IntN(7) {
		case 0:
			return gen(depth-1) + gen(depth-1)
		case 1:
			return "(" + gen(depth-1) + "|" + gen(depth-1) + ")"
		case 2:
			return "(" + gen(depth-1) + ")*"
		case 3:
			return "(" + gen(depth-1) + ")+"
		case 4:
			return "(" + gen(depth-1) + ")?"
		case 5:
			return "(" + gen(depth-1) + "){" + []string{"0,2", "1,3", "2", "1,"}[rng.IntN(4)] + "}"
		}
		return gen(depth-1) + gen(depth-1) + gen(depth-1)
	}
	var strs []string
	for n := range 6 {
		for m := range 1 << n {
			b := make([]byte, n)
			for i := range b {
				b[i] = "ab"[m>>i&1]
			}
			strs = append(strs, string(b))
		}
	}
	patterns := 2000
	if testing.Short() {
		patterns = 200
	}
	for range patterns {
		src := gen(1 + rng.IntN(4))
		re, err := syntax.Parse(src, syntax.Perl)
		require.NoError(t, err, src)
		whole, err := resolveAnchors(re)
		if err != nil {
			continue // a size limit
		}
		want := regexp.MustCompile(src)
		got, err := regexp.Compile(whole.String())
		require.NoError(t, err, "%s rewritten as %s", src, whole)
		for _, s := range strs {
			require.Equal(t, want.MatchString(s), got.MatchString(s), "%s on %q (rewritten %s)", src, s, whole)
		}
	}
}

// TestResolveAnchorsNesting: the rewrite of deeply nested loops around an
// anchor shares its subtrees and walks each once, so it ends at once (its
// result, or its size limit) rather than in time exponential in the depth.
func TestResolveAnchorsNesting(t *testing.T) {
	for _, d := range []int{8, 40, 200} {
		src := strings.Repeat("(", d) + "a$|b" + strings.Repeat(")*x", d)
		re, err := syntax.Parse(src, syntax.Perl)
		require.NoError(t, err)
		whole, err := resolveAnchors(re)
		if err != nil {
			assert.ErrorIs(t, err, grammar.ErrLimit, "depth %d", d)
			continue
		}
		if d == 8 {
			want, got := regexp.MustCompile(src), regexp.MustCompile(whole.String())
			for _, s := range []string{"a", "bx", "ax", "bxx", "xbxax", "", "b"} {
				assert.Equal(t, want.MatchString(s), got.MatchString(s), "%q", s)
			}
		}
	}
}

// TestResolveAnchorsLimits: counted repetitions of anchors past the unroll
// bound and multiline anchors are refused.
func TestResolveAnchorsLimits(t *testing.T) {
	for _, src := range []string{`(^a){20}`, `(?m)x(^a)`} {
		re, err := syntax.Parse(src, syntax.Perl)
		require.NoError(t, err)
		_, err = resolveAnchors(re)
		assert.Error(t, err, src)
	}
}
