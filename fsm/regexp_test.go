package fsm

import (
	"regexp/syntax"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// matchTests lists patterns with inputs they fully match (yes) and do not
// (no). Each answer is checked against Go's regexp as well as against fsm.
var matchTests = []struct {
	pattern string
	yes, no []string
}{
	// Literals and escapes.
	{``, []string{""}, []string{"a", " "}},
	{`a`, []string{"a"}, []string{"", "b", "aa", "A"}},
	{`abc`, []string{"abc"}, []string{"", "ab", "abcd", "xabc", "ABC", "abd"}},
	{`\.`, []string{"."}, []string{"a", "\\."}},
	{`a\*b`, []string{"a*b"}, []string{"ab", "aab", "a\\*b"}},
	{`\\`, []string{"\\"}, []string{"", "\\\\"}},
	{`\t\n\r\f\v`, []string{"\t\n\r\f\v"}, []string{"tnrfv"}},
	{`\x41\x{263a}`, []string{"A☺"}, []string{"A", "☺"}},
	{`\Q.*+\E`, []string{".*+"}, []string{"", "a", "..."}},
	{`é`, []string{"é"}, []string{"e", "É", "\xc3", "\xa9", "é\xa9"}},
	{`中文`, []string{"中文"}, []string{"中", "文", "中文中"}},
	{`😀`, []string{"😀"}, []string{"\xf0\x9f\x98", "😁"}},
	{`\xff`, []string{"ÿ"}, []string{"\xff"}},
	{`\x{FFFD}`, []string{"\uFFFD"}, []string{"\xff", "\xc3"}},
	{`\x{D800}`, nil, []string{"", "\xed\xa0\x80"}}, // Go's regexp also matches "\uFFFD"

	// Character classes.
	{`[abc]`, []string{"a", "b", "c"}, []string{"", "d", "ab", "A"}},
	{`[a-z]+`, []string{"a", "hello", "zz"}, []string{"", "Hello", "a1", "é"}},
	{`[^a-z]`, []string{"A", "1", "é", "中", "😀", "\n"}, []string{"a", "z", "", "AB", "\xff"}},
	{`[a-cx-z]*`, []string{"", "abxz", "cz"}, []string{"d", "w", "abcdx"}},
	{`[-a]`, []string{"-", "a"}, []string{"b"}},
	{`[a\-z]`, []string{"a", "-", "z"}, []string{"b", "y"}},
	{`[\]]`, []string{"]"}, []string{"[", "\\"}},
	{`[^\n]`, []string{"a", "\r", "é"}, []string{"\n", ""}},
	{`[^"\\]`, []string{"a", "'", "/", "é", "😀", "\x00"}, []string{"\"", "\\", "", "\xff", "\xed\xa0\x80"}},
	{`[[:alpha:]]+`, []string{"abcXYZ"}, []string{"a1", "é"}},
	{`[[:^digit:]]`, []string{"a", "é"}, []string{"5", ""}},
	{`[[:space:]]`, []string{" ", "\t", "\v"}, []string{"a"}},
	{`[[:punct:]]+`, []string{"!?", "{}"}, []string{"a"}},
	{`[[:xdigit:]]{2}`, []string{"0f", "A9"}, []string{"g0", "0"}},
	{`\d+`, []string{"0", "0123456789"}, []string{"", "a", "١"}},
	{`\D`, []string{"a", "١", "é"}, []string{"1"}},
	{`\w+`, []string{"a_1", "Z"}, []string{"é", "a-b"}},
	{`\W`, []string{"-", "é", " "}, []string{"a", "_", "5"}},
	{`\s`, []string{" ", "\t", "\n", "\f", "\r"}, []string{"\v", "a", "\u00a0"}},
	{`\S+`, []string{"abc", "é"}, []string{"a b", "\t"}},
	{`[\d\s]+`, []string{"1 2\t3"}, []string{"1a"}},
	{`[^\d\s]`, []string{"a", "é"}, []string{"1", " "}},
	{`[\x00-\x1f]`, []string{"\x00", "\x1f"}, []string{" ", "\x7f"}},
	{`[^\x00-\x7F]`, []string{"é", "中", "😀", "\u0080", "\U0010FFFF"}, []string{"a", "\x7f", "\xff", "\x80"}},
	{`[\x{7FF}-\x{800}]`, []string{"\u07ff", "\u0800"}, []string{"\u07fe", "\u0801"}},
	{`[\x{FFFF}-\x{10000}]`, []string{"\uffff", "\U00010000"}, []string{"\ufffe", "\U00010001"}},
	{`[\x{D7FF}-\x{E000}]`, []string{"\ud7ff", "\ue000"}, []string{"\ud7fe", "\ue001", "\xed\xa0\x80", "\xed\xbf\xbf"}},
	{`[\x{10000}-\x{10FFFF}]`, []string{"😀", "\U00010000", "\U0010FFFF"}, []string{"\uffff", "\xf4\x90\x80\x80", "\xf0\x8f\xbf\xbf"}},
	{`[\x{80}-\x{10FFFF}]+`, []string{"é中😀"}, []string{"a", "é\xff"}},
	{`[^\x00-\x{10FFFF}]`, nil, []string{"", "a", "é"}},
	{`a[^\x00-\x{10FFFF}]|b`, []string{"b"}, []string{"a", "ab", ""}},

	// Unicode classes.
	{`\p{L}`, []string{"a", "Z", "é", "中", "ß", "ǅ", "\U00020000"}, []string{"1", " ", "", "ab", "😀", "\xff"}},
	{`\pL+`, []string{"héllo", "Ωμέγα", "日本語"}, []string{"hé llo", "a1"}},
	{`\PL`, []string{"1", "€", "😀", " "}, []string{"a", "é", "中"}},
	{`\p{Lu}\p{Ll}+`, []string{"Hello", "Élan"}, []string{"hello", "HELLO"}},
	{`\p{Greek}+`, []string{"αβγ", "Ω"}, []string{"abc", "αb"}},
	{`\p{Han}{2}`, []string{"中文", "漢字"}, []string{"中", "中a", "中文字"}},
	{`\pN+`, []string{"123", "١٢٣", "Ⅻ", "½"}, []string{"a", "1a"}},
	{`[\p{Lu}\d]+`, []string{"AB12", "É9"}, []string{"ab", "a1"}},
	{`[^\p{L}]+`, []string{"123 !", "😀"}, []string{"a", "1a"}},
	{`\p{Cyrillic}\P{Cyrillic}`, []string{"жa", "Ж1"}, []string{"жж", "aж"}},

	// Any character.
	{`.`, []string{"a", " ", "é", "中", "😀", "\r"}, []string{"", "\n", "ab", "\xff", "\xc3", "\xed\xa0\x80", "\xc0\x80", "\xe0\x80\x80", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80"}},
	{`(?s).`, []string{"a", "\n", "é", "😀"}, []string{"", "\xff", "\xed\xbf\xbf"}},
	{`.*`, []string{"", "abc", "é中😀"}, []string{"a\nb", "a\xffb"}},
	{`(?s).*`, []string{"", "a\nb", "\n\n"}, []string{"\xff", "\x80"}},
	{`a.c`, []string{"abc", "aéc", "a😀c"}, []string{"ac", "abbc", "a\nc"}},
	{`.{3}`, []string{"abc", "é中😀"}, []string{"ab", "abcd"}},

	// Repetition.
	{`a*`, []string{"", "a", "aaaa"}, []string{"b", "ab"}},
	{`a+`, []string{"a", "aaa"}, []string{"", "b"}},
	{`a?`, []string{"", "a"}, []string{"aa"}},
	{`a{2}`, []string{"aa"}, []string{"a", "aaa"}},
	{`a{2,}`, []string{"aa", "aaaaa"}, []string{"", "a"}},
	{`a{2,4}`, []string{"aa", "aaa", "aaaa"}, []string{"a", "aaaaa"}},
	{`a{0}`, []string{""}, []string{"a"}},
	{`a{0,1}b`, []string{"b", "ab"}, []string{"aab"}},
	{`a{0,}`, []string{"", "aaa"}, []string{"b"}},
	{`a{1,}`, []string{"a", "aa"}, []string{""}},
	{`(ab){2,3}`, []string{"abab", "ababab"}, []string{"ab", "abababab", "aba"}},
	{`(a|bc){1,2}d`, []string{"ad", "bcd", "abcd", "bcad"}, []string{"d", "aaad", "bd"}},
	{`a*?`, []string{"", "aa"}, []string{"b"}},
	{`a+?b`, []string{"ab", "aab"}, []string{"b"}},
	{`a??b`, []string{"b", "ab"}, []string{"aab"}},
	{`a{2,3}?`, []string{"aa", "aaa"}, []string{"a"}},
	{`(a*)*`, []string{"", "aaa"}, []string{"b"}},
	{`(a*)+`, []string{"", "aa"}, []string{"ab"}},
	{`(a?){3}`, []string{"", "a", "aaa"}, []string{"aaaa"}},
	{`(|a)+`, []string{"", "a", "aa"}, []string{"b"}},
	{`(a*b*)*c`, []string{"c", "abababc", "bbac"}, []string{"ab", "cc"}},
	{`((ab)*|c)+d`, []string{"d", "abcd", "cabd", "ababd"}, []string{"ad", "abc"}},
	{`x{0,}y`, []string{"y", "xxy"}, []string{"x"}},
	{`[ab]{3}c?`, []string{"aba", "bbbc"}, []string{"ab", "abac c"}},
	{`(?:é|ö){2}`, []string{"éö", "öö"}, []string{"é", "éöé"}},
	{`\p{L}{2,3}`, []string{"ab", "é中", "aéb"}, []string{"a", "abcd"}},

	// Alternation and groups.
	{`a|b|c`, []string{"a", "b", "c"}, []string{"", "ab", "d"}},
	{`ab|ac`, []string{"ab", "ac"}, []string{"a", "bc"}},
	{`abc|`, []string{"", "abc"}, []string{"ab"}},
	{`|a`, []string{"", "a"}, []string{"aa"}},
	{`(a|ab)(c|bcd)`, []string{"ac", "abcd", "abc"}, []string{"ab", "abd"}},
	{`cat|category`, []string{"cat", "category"}, []string{"categ", "cats"}},
	{`(?:ab)+`, []string{"ab", "abab"}, []string{"a", "aba"}},
	{`(?P<name>x)y`, []string{"xy"}, []string{"x", "y"}},
	{`((a)(b))`, []string{"ab"}, []string{"a"}},
	{`()`, []string{""}, []string{"a"}},
	{`(?:)|a`, []string{"", "a"}, []string{"b"}},
	{`(a|b)*abb`, []string{"abb", "aabb", "babb", "abababb"}, []string{"ab", "abba", "abbb", ""}},
	{`(foo|foobar)baz`, []string{"foobaz", "foobarbaz"}, []string{"foobar", "baz"}},

	// Case folding.
	{`(?i)hello`, []string{"hello", "HeLLo", "HELLO"}, []string{"hell", "helo"}},
	{`(?i)k`, []string{"k", "K", "\u212a"}, []string{"x", "kk"}},
	{`(?i)s`, []string{"s", "S", "ſ"}, []string{"ß"}},
	{`(?i)[a-c]+`, []string{"AbC", "cab"}, []string{"d", "aD"}},
	{`(?i)σ`, []string{"σ", "Σ", "ς"}, []string{"s"}},
	{`(?i)straße`, []string{"STRAßE", "straẞe"}, []string{"strasse", "STRASSE"}},
	{`(?i)é`, []string{"é", "É"}, []string{"e"}},
	{`a(?i)b`, []string{"ab", "aB"}, []string{"Ab", "AB"}},
	{`(?i:a)b`, []string{"ab", "Ab"}, []string{"aB"}},
	{`(?i)1`, []string{"1"}, []string{"!"}},

	// Anchors at the ends are no-ops.
	{`^abc$`, []string{"abc"}, []string{"", "ab"}},
	{`\Aabc\z`, []string{"abc"}, []string{"abcd"}},
	{`(?m)^abc$`, []string{"abc"}, []string{"abc\n"}},
	{`^$`, []string{""}, []string{"a", "\n"}},
	{`^`, []string{""}, []string{"a"}},
	{`$`, []string{""}, []string{"a"}},
	{`^(a|b)+$`, []string{"a", "abba"}, []string{"", "c"}},
	{`^a|b$`, []string{"a", "b"}, []string{"ab"}},
	{`(^a|^b)c`, []string{"ac", "bc"}, []string{"c", "abc"}},
	{`(^|a)b`, []string{"b", "ab"}, []string{"aab"}},
	{`a(b|$)`, []string{"a", "ab"}, []string{"abb"}},
	{`^^a$$`, []string{"a"}, []string{"aa"}},
	{`(?:^)(?:a)`, []string{"a"}, []string{""}},
	{`(^a)?b`, []string{"b", "ab"}, []string{"a"}},

	// Realistic terminals.
	{`"([^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"`,
		[]string{`""`, `"abc"`, `"a\"b"`, `"\u00e9"`, `"\\\/\b\f\n\r\t"`, `"é中😀"`},
		[]string{`"`, `"\x"`, `"\u12"`, `"a"b"`, "\"\x01\"", "\"\xff\"", `abc`, `"\uZZZZ"`}},
	{`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`,
		[]string{"0", "-0", "12", "-12.5e+3", "1E9", "0.001"},
		[]string{"01", "1.", "+1", "-", ".5", "1e", ""}},
	{`[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}`,
		[]string{"john.doe@example.com", "a+b@x.io"},
		[]string{"john@", "@x.com", "a@b.c", "a b@c.de"}},
	{`\d{4}-\d{2}-\d{2}`, []string{"2024-01-31"}, []string{"2024-1-31", "24-01-31", "2024-01-311"}},
	{`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`,
		[]string{"123e4567-e89b-12d3-a456-426614174000"},
		[]string{"123e4567-e89b-12d3-a456-42661417400", "123E4567-e89b-12d3-a456-426614174000"}},
	{`((25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(25[0-5]|2[0-4]\d|1?\d?\d)`,
		[]string{"192.168.0.1", "255.255.255.255", "0.0.0.0"},
		[]string{"256.1.1.1", "1.2.3", "1.2.3.4.5"}},
	{`(true|false|null)`, []string{"true", "false", "null"}, []string{"tru", "nul", "True"}},
	{`[ \t\n\r]*`, []string{"", " \n\t"}, []string{"x"}},
	{`https?://[^\s/$.?#].[^\s]*`, []string{"http://a.b", "https://example.com/x?y=1"}, []string{"ftp://a.b", "http:// a"}},
}

func TestRegexpMatch(t *testing.T) {
	cases := 0
	for _, tt := range matchTests {
		want := oracle(t, tt.pattern)
		d := mustMinimal(t, tt.pattern)
		checkWellFormed(t, d)
		for _, s := range tt.yes {
			require.True(t, want(s), "table error: Go's regexp says %q does not match %q", tt.pattern, s)
			assert.True(t, d.Match([]byte(s)), "%q should match %q", tt.pattern, s)
			cases++
		}
		for _, s := range tt.no {
			require.False(t, want(s), "table error: Go's regexp says %q matches %q", tt.pattern, s)
			assert.False(t, d.Match([]byte(s)), "%q should not match %q", tt.pattern, s)
			cases++
		}
	}
	t.Logf("%d patterns, %d cases", len(matchTests), cases)
}

// TestRegexpUnminimized checks that Determinize alone already accepts the
// right strings.
func TestRegexpUnminimized(t *testing.T) {
	for _, tt := range matchTests {
		d, err := determinize(tt.pattern, 100000)
		require.NoError(t, err)
		checkWellFormed(t, d)
		for _, s := range tt.yes {
			assert.True(t, d.Match([]byte(s)), "%q should match %q", tt.pattern, s)
		}
		for _, s := range tt.no {
			assert.False(t, d.Match([]byte(s)), "%q should not match %q", tt.pattern, s)
		}
	}
}

// TestRegexpSimplified builds from simplified trees, which is what callers
// usually hand over.
func TestRegexpSimplified(t *testing.T) {
	for _, tt := range matchTests {
		re, err := syntax.Parse(tt.pattern, syntax.Perl)
		require.NoError(t, err)
		var n NFA
		s, e := n.NewState(), n.NewState()
		require.NoError(t, n.Regexp(s, e, re.Simplify()), tt.pattern)
		d, err := Determinize(&n, s, []int{e}, 100000)
		require.NoError(t, err)
		m := mustMinimal(t, tt.pattern)
		assert.True(t, equivalent(d, d.Start, m, m.Start), tt.pattern)
	}
}

func TestRegexpErrors(t *testing.T) {
	tests := []struct {
		pattern string
		msg     string // part of the error text
	}{
		{`\bfoo`, `word boundary`},
		{`foo\B`, `non-word boundary`},
		{`a\bb`, `word boundary`},
		{`a^b`, `not at the start`},
		{`a$b`, `not at the end`},
		{`(?m)a$\nb`, `not at the end`},
		{`(?m)a\n^b`, `not at the start`},
		{`(^a)*`, `not at the start`},
		{`(a$)+`, `not at the end`},
		{`a*^b`, `not at the start`},
		{`x(^|a)b`, `not at the start`},
		{`(^a){2}`, `not at the start`},
		{`^*`, `not at the start`},
		{`a|\Ab|c\bd`, `word boundary`},
	}
	for _, tt := range tests {
		re, err := syntax.Parse(tt.pattern, syntax.Perl)
		require.NoError(t, err, tt.pattern)
		var n NFA
		s, e := n.NewState(), n.NewState()
		err = n.Regexp(s, e, re)
		require.Error(t, err, tt.pattern)
		assert.ErrorIs(t, err, ErrUnsupportedRegexp, tt.pattern)
		assert.Contains(t, err.Error(), tt.msg, tt.pattern)
	}
}

// TestRegexpFragment checks that a fragment between two inner states of a
// larger NFA matches its regexp there, and that fragments sharing end states
// do not leak into each other.
func TestRegexpFragment(t *testing.T) {
	var n NFA
	start, mid, end := n.NewState(), n.NewState(), n.NewState()
	for _, p := range []string{`a*`, `b+`} {
		re, err := syntax.Parse(p, syntax.Perl)
		require.NoError(t, err)
		require.NoError(t, n.Regexp(start, mid, re))
	}
	re, err := syntax.Parse(`(c|d*)`, syntax.Perl)
	require.NoError(t, err)
	require.NoError(t, n.Regexp(mid, end, re))
	d, err := Determinize(&n, start, []int{end}, 100)
	require.NoError(t, err)
	want := oracle(t, `(a*|b+)(c|d*)`)
	for _, s := range []string{"", "a", "aab", "bbc", "ac", "add", "abd", "ba", "bcd", "dd", "c", "cc"} {
		assert.Equal(t, want(s), d.Match([]byte(s)), "%q", s)
	}
}

func TestRegexpTooLarge(t *testing.T) {
	re, err := syntax.Parse(`(\pL{10}){10}`, syntax.Perl)
	require.NoError(t, err)
	n := NFA{MaxStates: 10000}
	s, e := n.NewState(), n.NewState()
	err = n.Regexp(s, e, re)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "more than 10000 NFA states")
	assert.Less(t, n.NumStates(), 10000+1000)

	n = NFA{MaxStates: 100000}
	s, e = n.NewState(), n.NewState()
	require.NoError(t, n.Regexp(s, e, re))
}
