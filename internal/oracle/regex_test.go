package oracle_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/oracle"
)

// randomPattern returns a small random regular expression over a few
// letters, classes and repeats.
func randomPattern(rng *rand.Rand, depth int) string {
	atoms := []string{"a", "b", "é", "😀", "ab", ".", "(?s:.)", "[ab]", "[^a]", "[a-é]", "[^\\x00-\\x7f]", "(?i:a)", "(?i:é)", "(?i:ab)", "\\n", "(?:)"}
	if depth == 0 || rng.IntN(3) == 0 {
		return atoms[rng.IntN(len(atoms))]
	}
	x := randomPattern(rng, depth-1)
	switch rng.IntN(8) {
	case 0, 1:
		return x + randomPattern(rng, depth-1)
	case 2:
		return "(?:" + x + "|" + randomPattern(rng, depth-1) + ")"
	case 3:
		return "(?:" + x + ")" + []string{"*", "+", "?", "*?", "+?"}[rng.IntN(5)]
	case 4:
		m := rng.IntN(3)
		switch rng.IntN(3) {
		case 0:
			return fmt.Sprintf("(?:%s){%d}", x, m)
		case 1:
			return fmt.Sprintf("(?:%s){%d,}", x, m)
		}
		return fmt.Sprintf("(?:%s){%d,%d}", x, m, m+rng.IntN(3))
	case 5:
		return "(" + x + ")"
	}
	return "(?:" + x + ")"
}

// TestRegexAgainstGo checks Accepts against Go's regexp on every string of up
// to four letters from a small alphabet, for random patterns, walking the
// strings as a trie of clones.
func TestRegexAgainstGo(t *testing.T) {
	alphabet := []string{"a", "b", "A", "é", "É", "\n", "😀"}
	const maxLen = 4
	rng := rand.New(rand.NewPCG(7, 11))
	patterns := []string{`^a$`, `(?m)^a$`, `^(?:a|b)*$`, `x*?`, `(?i)é+`, `[^\n]`, `.*😀.*`, `a{2,}b{0,1}`, `(a|ab)(c|bcd)?`}
	for range 150 {
		p, q := randomPattern(rng, 3), randomPattern(rng, 2)
		// Anchors are allowed at the edges of a pattern only.
		switch rng.IntN(8) {
		case 0:
			p = "^" + p
		case 1:
			p = p + "$"
		case 2:
			p = "(?:^" + p + "|" + q + "$)"
		case 3:
			p = "(?:^" + p + "|" + q + ")?"
		}
		patterns = append(patterns, p)
	}
	checked, matched := 0, 0
	for _, p := range patterns {
		g := rules(re(p))
		want := regexp.MustCompile("^(?:" + p + ")$")
		r, err := oracle.New(g)
		require.NoError(t, err, p)
		var walk func(r *oracle.Recognizer, s string, n int)
		walk = func(r *oracle.Recognizer, s string, n int) {
			checked++
			ok := want.MatchString(s)
			if ok {
				matched++
			}
			if r.Complete() != ok {
				require.Failf(t, "mismatch", "/%s/ on %q: oracle %v, regexp %v", p, s, r.Complete(), ok)
			}
			if !r.Viable() && ok {
				require.Failf(t, "mismatch", "/%s/: %q matches but a prefix was not viable", p, s)
			}
			if n == maxLen {
				return
			}
			for _, l := range alphabet {
				c := r.Clone()
				c.Feed([]byte(l))
				walk(c, s+l, n+1)
			}
		}
		walk(r, "", 0)
	}
	t.Logf("%d patterns, %d strings, %d matches", len(patterns), checked, matched)
	require.Greater(t, matched, checked/50, "the random patterns should match a fair share")
}

func TestRegexByteLevel(t *testing.T) {
	// A regex terminal judges split characters and invalid UTF-8 byte by byte.
	for _, tc := range []struct {
		pattern   string
		viable    []string
		notViable []string
	}{
		{`.`, []string{"\xE6", "\xE6\x97", "\xF0\x9F\x98"}, []string{"\n", "\xFF", "\xED\xA0", "\xE6\x97\xA5\x80"}},
		{`(?s).+`, []string{"\n\xC3"}, []string{"\xC3\x28"}},
		{`(?i)é`, []string{"\xC3", "\xC3\x89", "\xC3\xA9"}, []string{"\xC3\x88", "e"}},
		{`[日本]`, []string{"\xE6\x97", "\xE6\x9C"}, []string{"\xE6\x98", "\xE6\x97\xA6"}},
	} {
		g := rules(re(tc.pattern))
		for _, s := range tc.viable {
			ok, err := oracle.ViablePrefix(g, []byte(s))
			require.NoError(t, err)
			require.True(t, ok, "/%s/ %q", tc.pattern, s)
		}
		for _, s := range tc.notViable {
			ok, err := oracle.ViablePrefix(g, []byte(s))
			require.NoError(t, err)
			require.False(t, ok, "/%s/ %q", tc.pattern, s)
		}
	}
}
