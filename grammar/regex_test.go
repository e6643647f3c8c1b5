package grammar_test

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/fuzzcheck"
	"github.com/reinlm/rein/internal/oracle"
	"github.com/reinlm/rein/pda"
)

// regexTests are patterns and the Regex expression RegexExpr makes of them:
// simplified, without captures, and without the anchors a full match implies.
var regexTests = []struct{ pattern, want string }{
	{`a`, `/a/`},
	{`abc`, `/abc/`},
	{``, `/(?:)/`},
	{`a|b`, `/[ab]/`},
	{`a|b|c`, `/[a-c]/`},
	{`ab|cd`, `/ab|cd/`},
	{`a*`, `/a*/`},
	{`a+`, `/a+/`},
	{`a?`, `/a?/`},
	{`a*?`, `/a*?/`},
	{`a+?`, `/a+?/`},
	{`a??`, `/a??/`},
	{`a{2}`, `/aa/`},
	{`a{2,}`, `/aa+/`},
	{`a{2,4}`, `/aa(?:aa?)?/`},
	{`a{0,1}`, `/a?/`},
	{`a{0}`, `/(?:)/`},
	{`a{1}`, `/a/`},
	{`a{2,4}?`, `/aa(?:aa??)??/`},
	{`(ab)*`, `/(?:ab)*/`},
	{`(?:ab)+`, `/(?:ab)+/`},
	{`(a)(b)`, `/ab/`},
	{`(?P<x>a)`, `/a/`},
	{`(?<x>a)`, `/a/`},
	{`((a))`, `/a/`},
	{`[abc]`, `/[a-c]/`},
	{`[a-z]`, `/[a-z]/`},
	{`[^a-z]`, `/[^a-z]/`},
	{`[a-zA-Z0-9_]`, `/[0-9A-Z_a-z]/`},
	{`.`, `/(?-s:.)/`},
	{`.*`, `/(?-s:.*)/`},
	{`(?s).`, `/(?s:.)/`},
	{`(?s:.)*`, `/(?s:.*)/`},
	{`\d`, `/[0-9]/`},
	{`\D`, `/[^0-9]/`},
	{`\w`, `/[0-9A-Z_a-z]/`},
	{`\W`, `/[^0-9A-Z_a-z]/`},
	{`\s`, `/[\t\n\f\r ]/`},
	{`\S`, `/[^\t\n\f\r ]/`},
	{`\d+`, `/[0-9]+/`},
	{`[\d\s]`, `/[\t\n\f\r 0-9]/`},
	{`[[:alpha:]]`, `/[A-Za-z]/`},
	{`[[:^digit:]]`, `/[^0-9]/`},
	{`\x41`, `/A/`},
	{`\x{1F600}`, `/😀/`},
	{`\x{41}+`, `/A+/`},
	{`\p{Zl}{2}`, `/\x{2028}\x{2028}/`},
	{`\x{41}{2}`, `/AA/`},
	{`\t\n\r\f\v\a`, `/\t\n\r\f\v\a/`},
	{`\.`, `/\./`},
	{`\*`, `/\*/`},
	{`\\`, `/\\/`},
	{`\(`, `/\(/`},
	{`\Q.*\E`, `/\.\*/`},
	{`\Q(?=\E`, `/\(\?=/`},
	{`\0`, `/\x00/`},
	{`\012`, `/\n/`},
	{`\12`, `/\n/`},
	{`(?i)abc`, `/(?i:ABC)/`},
	{`(?i:a)b`, `/(?i:A)b/`},
	{`a(?i)b`, `/a(?i:B)/`},
	{`(?U)a*`, `/a*?/`},
	{`(?m)a`, `/a/`},
	{`é`, `/é/`},
	{`日本`, `/日本/`},
	{`[日本]`, `/[日本]/`},
	{`🔵+`, `/🔵+/`},
	{`[^\x00-\x7F]`, `/[\x80-\x{10ffff}]/`},
	{`x{,3}`, `/x\{,3\}/`},
	{`x{a}`, `/x\{a\}/`},
	{`a{`, `/a\{/`},
	{`{`, `/\{/`},
	{`}`, `/\}/`},
	{`]`, `/\]/`},
	{`a]`, `/a\]/`},
	{`^abc$`, `/abc/`},
	{`^abc`, `/abc/`},
	{`abc$`, `/abc/`},
	{`\Aabc\z`, `/abc/`},
	{`^`, `/(?:)/`},
	{`$`, `/(?:)/`},
	{`^$`, `/(?:)/`},
	{`(?m)^abc$`, `/abc/`},
	{`^(a|b)$`, `/[ab]/`},
	{`(^a|^b)`, `/a|b/`},
	{`(a$|b$)`, `/a|b/`},
	{`^a|b$`, `/a|b/`},
	{`(^a)?b`, `/a?b/`},
	{`^^a$$`, `/a/`},
	{`(?:^)a`, `/a/`},
	{`[0-9]{3}-[0-9]{4}`, `/[0-9][0-9][0-9]-[0-9][0-9][0-9][0-9]/`},
	{`[a-z]+@[a-z]+\.[a-z]{2,}`, `/[a-z]+@[a-z]+\.[a-z][a-z]+/`},
	{`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`, `/(?i:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:E[\+\-]?[0-9]+)?)/`},
	{`"([^"\\]|\\.)*"`, `/(?-s:"(?:[^"\\]|\\.)*")/`},
	{`(true|false)`, `/true|false/`},
	{`null`, `/null/`},
	{`a{3}`, `/aaa/`},
	{`(a{2}){2}`, `/aaaa/`},
	{`(a|^b)c`, `/(?:a|b)c/`},
	{`(^a){1}`, `/a/`},
	{`(?:a|^b)c|d`, `/(?:a|b)c|d/`},
	{`((^a))`, `/a/`},
	{`(?s:^.$)`, `/(?s:.)/`},
	{`[\]]`, `/\]/`},
	{`[]a]`, `/[\]a]/`},
	{`[^]a]`, `/[^\]a]/`},
	{`[a-]`, `/[\-a]/`},
	{`[-a]`, `/[\-a]/`},
	{`[\-]`, `/-/`},
	{`[\[]`, `/\[/`},
	{`[[]`, `/\[/`},
	{`[$^]`, `/[\$\^]/`},
	{`[(?=]`, `/[\(=\?]/`},
	{`a\$`, `/a\$/`},
	{`\^a`, `/\^a/`},
}

func TestRegexExpr(t *testing.T) {
	for _, tc := range regexTests {
		e, err := grammar.RegexExpr(tc.pattern, grammar.Limits{})
		if !assert.NoError(t, err, "%q", tc.pattern) {
			continue
		}
		assert.Equal(t, grammar.OpRegex, e.Op, "%q", tc.pattern)
		assert.Equal(t, tc.want, e.String(), "%q", tc.pattern)
		assertNoCapturesOrAssertions(t, tc.pattern, e.Regexp)
	}
}

// assertNoCapturesOrAssertions checks what the IR promises of a Regex
// expression: no capture groups and no empty-width assertions.
func assertNoCapturesOrAssertions(t *testing.T, pattern string, re *syntax.Regexp) {
	t.Helper()
	switch re.Op {
	case syntax.OpCapture, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		t.Errorf("%q: %v left in %v", pattern, re.Op, re)
	}
	for _, s := range re.Sub {
		assertNoCapturesOrAssertions(t, pattern, s)
	}
}

// regexErrorTests are patterns RegexExpr rejects and the whole message.
var regexErrorTests = []struct{ pattern, want string }{
	{`(?=a)`, `regex:1:1: lookahead is not supported`},
	{`a(?!b)`, `regex:1:2: lookahead is not supported`},
	{`(?<=a)b`, `regex:1:1: lookbehind is not supported`},
	{`(?<!a)b`, `regex:1:1: lookbehind is not supported`},
	{`x(?>a)`, `regex:1:2: atomic groups are not supported`},
	{`(?|a|b)`, `regex:1:1: branch reset groups are not supported`},
	{`(?#comment)`, `regex:1:1: comments (?#...) are not supported`},
	{`(?P=n)`, `regex:1:1: backreferences are not supported`},
	{`(?P>n)`, `regex:1:1: subroutine calls are not supported`},
	{`(?&n)`, `regex:1:1: subroutine calls are not supported`},
	{`(?R)`, `regex:1:1: recursion is not supported`},
	{`(?1)`, `regex:1:1: recursion and subroutine calls are not supported`},
	{`(?+1)`, `regex:1:1: recursion and subroutine calls are not supported`},
	{`(?-1)`, `regex:1:1: recursion and subroutine calls are not supported`},
	{`(?(1)a|b)`, `regex:1:1: conditionals are not supported`},
	{`(?'n'a)`, `regex:1:1: named groups written (?'name'...) are not supported; use (?P<name>...)`},
	{`(*UTF8)a`, `regex:1:1: backtracking verbs (*VERB) are not supported`},
	{`(*SKIP)`, `regex:1:1: backtracking verbs (*VERB) are not supported`},
	{`(a)\1`, `regex:1:4: backreferences are not supported`},
	{`\2`, `regex:1:1: backreferences are not supported`},
	{`\8`, `regex:1:1: backreferences are not supported`},
	{`\9`, `regex:1:1: backreferences are not supported`},
	{`a\18`, `regex:1:2: backreferences are not supported`},
	{`\k<n>`, `regex:1:1: backreferences are not supported`},
	{`\k'n'`, `regex:1:1: backreferences are not supported`},
	{`\k{n}`, `regex:1:1: backreferences are not supported`},
	{`\g1`, `regex:1:1: backreferences are not supported`},
	{`\g{1}`, `regex:1:1: backreferences are not supported`},
	{`\g<n>`, `regex:1:1: backreferences are not supported`},
	{`\K`, `regex:1:1: \K (match reset) is not supported`},
	{`\G`, `regex:1:1: \G (end of previous match) is not supported`},
	{`\Z`, `regex:1:1: \Z is not supported; use \z`},
	{`\R`, `regex:1:1: \R (newline sequence) is not supported`},
	{`\X`, `regex:1:1: \X (grapheme cluster) is not supported`},
	{`\h`, `regex:1:1: \h (horizontal space) is not supported`},
	{`\H`, `regex:1:1: \H (non-horizontal space) is not supported`},
	{`\V`, `regex:1:1: \V (non-vertical space) is not supported`},
	{`\N`, `regex:1:1: \N is not supported`},
	{`\e`, `regex:1:1: \e (escape character) is not supported; use \x1B`},
	{`\cA`, `regex:1:1: \c (control character) is not supported`},
	{`\o{12}`, `regex:1:1: \o{...} (octal) is not supported`},
	{`\u0041`, `regex:1:1: \uXXXX escapes are not supported; use \x{XXXX}`},
	{`a*+`, `regex:1:2: possessive quantifiers are not supported`},
	{`a++`, `regex:1:2: possessive quantifiers are not supported`},
	{`a?+`, `regex:1:2: possessive quantifiers are not supported`},
	{`a{2}+`, `regex:1:2: possessive quantifiers are not supported`},
	{`a{2,}+`, `regex:1:2: possessive quantifiers are not supported`},
	{`a{2,3}+`, `regex:1:2: possessive quantifiers are not supported`},
	{`[ab]*+`, `regex:1:5: possessive quantifiers are not supported`},
	{`(a)++`, `regex:1:4: possessive quantifiers are not supported`},
	{`(a`, "regex:1:1: missing closing ): `(a`"},
	{`a)`, "regex:1:2: unexpected ): `a)`"},
	{`((a)`, "regex:1:1: missing closing ): `((a)`"},
	{`(a))`, "regex:1:4: unexpected ): `(a))`"},
	{`x(y(z)`, "regex:1:2: missing closing ): `x(y(z)`"},
	{`[a`, "regex:1:1: missing closing ]: `[a`"},
	{`a[b`, "regex:1:2: missing closing ]: `[b`"},
	{`[^`, "regex:1:1: missing closing ]: `[^`"},
	{`[]`, "regex:1:1: missing closing ]: `[]`"},
	{`[z-a]`, "regex:1:2: invalid character class range: `z-a`"},
	{`\p{Foo}`, "regex:1:1: invalid character class range: `\\p{Foo}`"},
	{`[[:foo:]]`, "regex:1:2: invalid character class range: `[:foo:]`"},
	{`a**`, "regex:1:2: invalid nested repetition operator: `**`"},
	{`a*{2}`, "regex:1:2: invalid nested repetition operator: `*{2}`"},
	{`x{2}{3}`, "regex:1:2: invalid nested repetition operator: `{2}{3}`"},
	{`*`, "regex:1:1: missing argument to repetition operator: `*`"},
	{`+a`, "regex:1:1: missing argument to repetition operator: `+`"},
	{`?`, "regex:1:1: missing argument to repetition operator: `?`"},
	{`a|*`, "regex:1:3: missing argument to repetition operator: `*`"},
	{`(*)`, "regex:1:2: missing argument to repetition operator: `*`"},
	{`(?i`, "regex:1:1: invalid or unsupported Perl syntax: `(?i`"},
	{`(?x)a`, "regex:1:1: invalid or unsupported Perl syntax: `(?x`"},
	{`(?z)`, "regex:1:1: invalid or unsupported Perl syntax: `(?z`"},
	{`\C`, "regex:1:1: invalid escape sequence: `\\C`"},
	{`\`, `regex:1:1: trailing backslash at end of expression`},
	{`a\`, `regex:1:2: trailing backslash at end of expression`},
	{"\xff", "regex:1:1: invalid UTF-8: `\xff`"},
	{"a\xc3", "regex:1:2: invalid UTF-8: `\xc3`"},
	{`a{1001}`, "regex:1:2: invalid repeat count: `{1001}` (RE2 limits counts, and nested counts multiplied, to 1000)"},
	{`a{0,1001}`, "regex:1:2: invalid repeat count: `{0,1001}` (RE2 limits counts, and nested counts multiplied, to 1000)"},
	{`a{5,2}`, "regex:1:2: invalid repeat count: `{5,2}`"},
	{`a{1000,999}`, "regex:1:2: invalid repeat count: `{1000,999}`"},
	{`((((a{100}){100}){100}){100})`, "regex:1:6: invalid repeat count: `{100}` (RE2 limits counts, and nested counts multiplied, to 1000)"},
	{`[\b]`, "regex:1:2: invalid escape sequence: `\\b`"},
	{`\b`, `regex:1:1: word boundary assertions (\b, \B) are not supported`},
	{`a$b`, `regex:1:2: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`$a`, `regex:1:1: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`a^`, `regex:1:2: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`a^b`, `regex:1:2: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`(^a){2}`, `regex:1:2: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`(a$){1,2}`, `regex:1:3: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`(^a)*`, `regex:1:2: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`(a$)+`, `regex:1:3: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`\bword\b`, `regex:1:1: word boundary assertions (\b, \B) are not supported`},
	{`a\Bb`, `regex:1:2: word boundary assertions (\b, \B) are not supported`},
	{`(?m)a$b`, `regex:1:6: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`a\Ab`, `regex:1:2: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`a\zb`, `regex:1:2: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`a?^b`, `regex:1:3: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`a*$b`, `regex:1:3: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`(a|b^)c`, `regex:1:5: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
	{`(?:a$|b)c`, `regex:1:5: anchors (^, $, \A, \z) are only supported at the start and end of the pattern`},
}

func TestRegexExprErrors(t *testing.T) {
	for _, tc := range regexErrorTests {
		e, err := grammar.RegexExpr(tc.pattern, grammar.Limits{})
		if !assert.Error(t, err, "%q", tc.pattern) {
			continue
		}
		assert.Nil(t, e)
		assert.Equal(t, tc.want, err.Error(), "%q", tc.pattern)
		checkRegexError(t, tc.pattern, err)

		g, err2 := grammar.FromRegex(tc.pattern, grammar.Limits{})
		assert.Nil(t, g)
		assert.Equal(t, err.Error(), err2.Error(), "FromRegex fails as RegexExpr does")
	}
}

// checkRegexError checks the shape of every regex error: an *Error from the
// "regex" source whose position, when known, lies in the pattern.
func checkRegexError(t *testing.T, pattern string, err error) {
	t.Helper()
	var e *grammar.Error
	require.ErrorAs(t, err, &e, "%q", pattern)
	assert.Equal(t, "regex", e.Source)
	assert.NotEmpty(t, e.Msg)
	if e.Pos.IsValid() {
		assert.True(t, e.Pos.Offset >= 0 && e.Pos.Offset < len(pattern), "%q: offset %d", pattern, e.Pos.Offset)
		before := pattern[:min(e.Pos.Offset, len(pattern))]
		assert.Equal(t, strings.Count(before, "\n")+1, e.Pos.Line)
	}
}

func TestParseRegexErrorKinds(t *testing.T) {
	unsupported := []string{`(?=a)`, `(?!a)`, `(?<=a)`, `(?<!a)`, `(a)\1`, `\k<x>`, `(?P=x)`, `(?>a)`, `a++`, `a{2}+`, `(?R)`, `\K`, `\u0041`}
	for _, p := range unsupported {
		_, err := grammar.ParseRegex(p, grammar.Limits{})
		assert.ErrorIs(t, err, grammar.ErrUnsupported, "%q", p)
		assert.NotErrorIs(t, err, grammar.ErrLimit, "%q", p)
	}
	for _, p := range []string{`\bx`, `a^b`, `a$b`, `(^a)*`} {
		_, err := grammar.ParseRegex(p, grammar.Limits{})
		assert.NoError(t, err, "%q: ParseRegex keeps assertions", p)
		_, err = grammar.RegexExpr(p, grammar.Limits{})
		assert.ErrorIs(t, err, grammar.ErrUnsupported, "%q", p)
	}
	for _, p := range []string{`a{1001}`, `a{2,1001}`, `((a{100}){100}){100}`, strings.Repeat("(", 1100) + strings.Repeat(")", 1100)} {
		_, err := grammar.ParseRegex(p, grammar.Limits{})
		assert.ErrorIs(t, err, grammar.ErrLimit, "%q", p)
		var se *syntax.Error
		assert.ErrorAs(t, err, &se, "%q: the regexp/syntax error is kept", p)
	}
	_, err := grammar.ParseRegex(strings.Repeat("a", grammar.DefaultLimits().RegexBytes+1), grammar.Limits{})
	assert.ErrorIs(t, err, grammar.ErrLimit)
	_, err = grammar.FromRegex("abcdef", grammar.Limits{RegexBytes: 5})
	assert.ErrorIs(t, err, grammar.ErrLimit)
	assert.ErrorContains(t, err, "Limits.RegexBytes")

	for _, p := range []string{`a{5,2}`, `(a`, `[a`, `a**`, `\C`, `(?x)a`} {
		_, err := grammar.ParseRegex(p, grammar.Limits{})
		assert.NotErrorIs(t, err, grammar.ErrUnsupported, "%q", p)
		assert.NotErrorIs(t, err, grammar.ErrLimit, "%q", p)
		var se *syntax.Error
		assert.ErrorAs(t, err, &se, "%q", p)
	}
}

// TestParseRegexAgreesWithGo checks that ParseRegex accepts exactly what
// regexp/syntax accepts: the PCRE checks only name errors RE2 would report.
func TestParseRegexAgreesWithGo(t *testing.T) {
	var patterns []string
	for _, tc := range regexTests {
		patterns = append(patterns, tc.pattern)
	}
	for _, tc := range regexErrorTests {
		patterns = append(patterns, tc.pattern)
	}
	patterns = append(patterns, `\pL`, `\PL`, `\p{Greek}`, `\p{^Greek}`, `a{1000}`)
	for _, p := range patterns {
		_, goErr := syntax.Parse(p, syntax.Perl)
		re, err := grammar.ParseRegex(p, grammar.Limits{})
		if goErr != nil {
			assert.Error(t, err, "%q", p)
			continue
		}
		if assert.NoError(t, err, "%q", p) {
			assert.NotNil(t, re)
		}
	}
}

func TestFromRegex(t *testing.T) {
	g, err := grammar.FromRegex(`(?P<year>[0-9]{4})-(0[1-9]|1[0-2])`, grammar.Limits{})
	require.NoError(t, err)
	require.NoError(t, g.Validate())
	require.Len(t, g.Rules, 1)
	assert.Equal(t, "root", g.Rules[0].Name)
	assert.Equal(t, 0, g.Root)
	assert.Equal(t, grammar.OpRegex, g.Rules[0].Body.Op)
	assert.Equal(t, "root ::= /[0-9][0-9][0-9][0-9]-(?:0[1-9]|1[0-2])/\n", g.String())

	for _, p := range []string{`\pL+`, `\p{Greek}`, `[^\p{Han}]`, `a{1000}`} {
		g, err := grammar.FromRegex(p, grammar.Limits{})
		if assert.NoError(t, err, "%q", p) {
			assert.NoError(t, g.Validate())
		}
	}
}

// TestFromRegexAccepts checks, with the Earley oracle, that the grammar of a
// pattern accepts exactly the strings Go's regexp matches in full, anchors
// and all.
func TestFromRegexAccepts(t *testing.T) {
	tests := []struct {
		pattern string
		inputs  []string
	}{
		{`abc`, []string{"abc", "", "ab", "abcd", "xabc"}},
		{`^abc$`, []string{"abc", "", "ab", "abcd"}},
		{`^a|b$`, []string{"a", "b", "ab", ""}},
		{`(a|^b)c`, []string{"ac", "bc", "c", "abc"}},
		{`(?:a|^b)c|d`, []string{"ac", "bc", "d", "dc", "bcd"}},
		{`(^a)?b`, []string{"ab", "b", "a", "aab"}},
		{`(?m)^a+$`, []string{"a", "aaa", "", "a\na"}},
		{`\Aa*\z`, []string{"", "a", "aa", "ab"}},
		{`[0-9]{2,3}`, []string{"1", "12", "123", "1234", "ab"}},
		{`(?i)hello`, []string{"hello", "HeLLo", "hell", "helloo"}},
		{`.+`, []string{"", "a", "é", "a\nb", "日本"}},
		{`(?s).+`, []string{"a\nb", "\n"}},
		{`[^a]`, []string{"a", "b", "é", "\U0001F600", "ab"}},
		{`\d+(\.\d+)?`, []string{"1", "1.5", "1.", ".5", "12.34"}},
		{`(?U)a+`, []string{"a", "aa", ""}},
		{`a{2,4}?`, []string{"a", "aa", "aaa", "aaaa", "aaaaa"}},
		{`\x{1F600}|é`, []string{"\U0001F600", "é", "e"}},
		{``, []string{"", "a"}},
	}
	for _, tc := range tests {
		g, err := grammar.FromRegex(tc.pattern, grammar.Limits{})
		require.NoError(t, err, "%q", tc.pattern)
		full := regexp.MustCompile(`^(?:` + tc.pattern + `)$`)
		for _, s := range tc.inputs {
			got, err := oracle.Accepts(g, []byte(s))
			require.NoError(t, err)
			assert.Equal(t, full.MatchString(s), got, "pattern %q, input %q", tc.pattern, s)
		}
	}
}

func FuzzParseRegex(f *testing.F) {
	for _, tc := range regexTests {
		f.Add(tc.pattern)
	}
	for _, tc := range regexErrorTests {
		f.Add(tc.pattern)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		re, err := grammar.ParseRegex(pattern, grammar.Limits{})
		_, goErr := syntax.Parse(pattern, syntax.Perl)
		if err != nil {
			require.Nil(t, re)
			checkRegexError(t, pattern, err)
			if len(pattern) <= grammar.DefaultLimits().RegexBytes {
				require.Error(t, goErr, "%q: ParseRegex rejects what regexp/syntax accepts: %v", pattern, err)
			}
			return
		}
		require.NoError(t, goErr)
		g, err := grammar.FromRegex(pattern, grammar.Limits{})
		if err != nil {
			require.Nil(t, g)
			checkRegexError(t, pattern, err)
			require.True(t, errors.Is(err, grammar.ErrUnsupported), "%q: %v", pattern, err)
			return
		}
		require.NoError(t, g.Validate())
		assertNoCapturesOrAssertions(t, pattern, g.Rules[0].Body.Regexp)
		p := fuzzcheck.Compiles(t, pattern, g)
		if p == nil || len(pattern) > 200 || strings.Contains(pattern, `\Q`) {
			return
		}
		// The automaton agrees with Go's regexp on a few inputs drawn from
		// the pattern itself.
		goRe, err := regexp.Compile(`^(?:` + pattern + `)$`)
		if err != nil {
			return
		}
		for _, in := range []string{"", pattern, pattern[:len(pattern)/2], "a", "aa", "0"} {
			if !utf8.ValidString(in) {
				continue
			}
			st := pda.NewState(p)
			got := st.AdvanceBytes([]byte(in)) && st.CanEnd()
			assert.Equal(t, goRe.MatchString(in), got, "%q on %q", pattern, in)
		}
	})
}
