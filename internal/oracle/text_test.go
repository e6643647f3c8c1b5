package oracle_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/oracle"
)

func containsAny(s string, excludes []string) bool {
	for _, x := range excludes {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// viablePrefix reports whether the text s then the bytes part, the start of
// one character, can be continued into text then tail. When part is a whole
// character this is viableWithTail; else it can be finished as some
// character that occurs in no exclude and not in tail (at least 64 share
// part's lead bytes, more than the excludes and tail hold), which keeps s
// viable when s holds no exclude, or as one of the characters the
// excludes and tail do hold.
func viablePrefix(s, part string, excludes []string, tail string) bool {
	if utf8.FullRuneInString(part) {
		return viableWithTail(s+part, excludes, tail)
	}
	if !containsAny(s, excludes) {
		return true
	}
	for _, r := range strings.Join(excludes, "") + tail {
		if strings.HasPrefix(string(r), part) && viableWithTail(s+string(r), excludes, tail) {
			return true
		}
	}
	return false
}

// textAlphabet holds one-, two-, three- and four-byte characters and the
// pieces the excludes of TestTextBruteForce are made of.
var textAlphabet = []string{"a", "<", "t", ">", "é", "日", "😀"}

// TestTextBruteForce compares Text(excludes...) and Text followed by a
// literal with strings.Contains on every string of up to 5 characters over
// textAlphabet, and every byte prefix of them: a prefix is viable exactly
// when its whole characters hold no exclude (the character it cuts can
// always be finished, by itself or a neighbour, without making one).
func TestTextBruteForce(t *testing.T) {
	cases := []struct {
		name     string
		excludes []string
		tail     string // a literal after the text: accepted iff the text before it holds no exclude
	}{
		{"no excludes", nil, ""},
		{"trigger", []string{"<t>"}, ""},
		{"trigger then itself", []string{"<t>"}, "<t>"},
		{"self-overlapping", []string{"aa"}, "a"},
		{"periodic", []string{"<<t"}, ""},
		{"multi-byte", []string{"é日", "😀"}, ""},
		{"one is a suffix of another", []string{"t>", "<t>"}, ">"},
		{"one is a prefix of another", []string{"<t", "<ta"}, ""},
		{"two that overlap", []string{"a<", "<a"}, "<"},
		{"single characters", []string{"日", ">"}, "日"},
		{"tail inside the exclude", []string{"t>a"}, ">"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := grammar.Text(c.excludes...)
			g := rules(text)
			if c.tail != "" {
				g = rules(grammar.Cat(text, grammar.Lit(c.tail)))
			}
			accepted := func(s string) bool {
				body, ok := strings.CutSuffix(s, c.tail)
				return ok && !containsAny(body, c.excludes)
			}
			r, err := oracle.New(g)
			require.NoError(t, err)
			var walk func(r *oracle.Recognizer, s string, depth int)
			checked := 0
			walk = func(r *oracle.Recognizer, s string, depth int) {
				checked++
				require.Equal(t, accepted(s), r.Complete(), "Complete after %q", s)
				if depth == 5 {
					return
				}
				for _, ch := range textAlphabet {
					next := r.Clone()
					for i := range len(ch) {
						want := viablePrefix(s, ch[:i+1], c.excludes, c.tail)
						require.Equal(t, want, next.Feed([]byte{ch[i]}), "Feed %q after %q", ch[:i+1], s)
					}
					if next.Viable() {
						walk(next, s+ch, depth+1)
					}
				}
			}
			walk(r, "", 0)
			t.Logf("%d strings checked", checked)
		})
	}
}

// viableWithTail reports whether s (whole characters) can be continued into
// text then tail, by brute force: s is text then part of tail, or text that
// may still grow (text is closed under removing a final character, so some
// continuation works when s itself holds no exclude).
func viableWithTail(s string, excludes []string, tail string) bool {
	if !containsAny(s, excludes) {
		return true
	}
	for k := 1; k <= len(tail) && k <= len(s); k++ {
		if strings.HasPrefix(tail, s[len(s)-k:]) && !containsAny(s[:len(s)-k], excludes) {
			return true
		}
	}
	return false
}

func TestTextUTF8(t *testing.T) {
	g := rules(grammar.Text("ab"))
	for _, c := range []struct {
		in     string
		viable bool
		whole  bool
	}{
		{"", true, true},
		{"hello, 世界 😀\n\x00", true, true},
		{"xa", true, true},
		{"xab", false, false},
		{"\xE4\xB8", true, false},          // half of 世
		{"\xFF", false, false},             // never in UTF-8
		{"\xC0\x80", false, false},         // overlong NUL
		{"\xED\xA0\x80", false, false},     // a surrogate
		{"\xF4\x90\x80\x80", false, false}, // past U+10FFFF
	} {
		r, err := oracle.New(g)
		require.NoError(t, err)
		assert.Equal(t, c.viable, r.Feed([]byte(c.in)), "viable %q", c.in)
		assert.Equal(t, c.whole, r.Complete(), "complete %q", c.in)
		assert.Equal(t, utf8.ValidString(c.in) && !strings.Contains(c.in, "ab"), r.Complete(), "complete %q", c.in)
	}
}

// TestTextRandomExcludes checks Text on random sets of excludes over a small
// alphabet, where they overlap, nest and repeat in every way, against
// strings.Contains on random strings: every whole prefix of a string is
// accepted exactly when it holds no exclude.
func TestTextRandomExcludes(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 9))
	alphabet := []string{"a", "b", "é", "😀"}
	word := func(maxLen int) string {
		var b strings.Builder
		for range 1 + rnd.IntN(maxLen) {
			b.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		return b.String()
	}
	for trial := range 300 {
		excludes := make([]string, 1+rnd.IntN(3))
		for i := range excludes {
			excludes[i] = word(4)
		}
		r, err := oracle.New(rules(grammar.Text(excludes...)))
		require.NoError(t, err)
		for range 20 {
			s := word(12)
			f := r.Clone()
			prefix := ""
			for _, ch := range s {
				prefix += string(ch)
				f.Feed([]byte(string(ch)))
				if !assert.Equal(t, !containsAny(prefix, excludes), f.Complete(), "trial %d: Text(%q) on %q", trial, excludes, prefix) {
					break
				}
			}
		}
	}
}
