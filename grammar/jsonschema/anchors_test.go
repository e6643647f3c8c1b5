package jsonschema

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
