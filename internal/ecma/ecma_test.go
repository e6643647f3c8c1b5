package ecma_test

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/ecma"
)

// TestTranslate checks ECMA-262 meanings in Go's syntax, by matching.
func TestTranslate(t *testing.T) {
	tests := []struct {
		pattern        string
		match, nomatch []string
	}{
		{`^a.c$`, []string{"abc", "a\u00e9c"}, []string{"a\nc", "a\u2028c"}},
		{`^\s$`, []string{" ", "\u00a0", "\ufeff"}, []string{"x"}},
		{`^\u0041\u{1F600}$`, []string{"A😀"}, []string{"A"}},
		{`^\uD83D\uDE00$`, []string{"😀"}, nil},
		{`^[^]$`, []string{"x", "\n"}, []string{""}},
		{`^a[]$`, nil, []string{"a", "a]"}},
		{`^\cJ\0$`, []string{"\n\x00"}, nil},
		{`^(?<y>\d{4})$`, []string{"2024"}, []string{"24"}},
		{`^[[]$`, []string{"["}, nil},
	}
	for _, tt := range tests {
		src, err := ecma.Translate(tt.pattern)
		require.NoError(t, err, tt.pattern)
		re := regexp.MustCompile(src)
		for _, s := range tt.match {
			assert.True(t, re.MatchString(s), "%s (%s) matches %q", tt.pattern, src, s)
		}
		for _, s := range tt.nomatch {
			assert.False(t, re.MatchString(s), "%s (%s) does not match %q", tt.pattern, src, s)
		}
	}
}

// TestClassEscapesOfSpace checks \s and \S inside a class, alone, beside
// other members and negated, on every code point: \S is ECMA-262's, the
// complement of \s, which Go's syntax has no member for.
func TestClassEscapesOfSpace(t *testing.T) {
	space := regexp.MustCompile(`^[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]$`)
	compile := func(pattern string) *regexp.Regexp {
		src, err := ecma.Translate(pattern)
		require.NoError(t, err, pattern)
		return regexp.MustCompile(src)
	}
	nonSpace, notNonSpace, spaceOrX := compile(`^[\S]$`), compile(`^[^\S]$`), compile(`^[\sx]$`)
	nonSpaceOrSpace, nonSpaceButA := compile(`^[\S\s]$`), compile(`^[^\Sa]$`)
	for r := rune(0); r <= 0x10FFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // not a character of a JSON string's UTF-8
		}
		s := string(r)
		isSpace := space.MatchString(s)
		require.Equal(t, !isSpace, nonSpace.MatchString(s), "[\\S] on U+%04X", r)
		require.Equal(t, isSpace, notNonSpace.MatchString(s), "[^\\S] on U+%04X", r)
		require.Equal(t, isSpace || r == 'x', spaceOrX.MatchString(s), "[\\sx] on U+%04X", r)
		require.True(t, nonSpaceOrSpace.MatchString(s), "[\\S\\s] on U+%04X", r)
		require.Equal(t, isSpace, nonSpaceButA.MatchString(s), "[^\\Sa] on U+%04X", r)
	}
}

// TestTranslateErrors: what Go's syntax cannot say wraps ErrUnsupported
// (lookahead ErrLookahead too); a malformed pattern does not.
func TestTranslateErrors(t *testing.T) {
	for _, tt := range []struct {
		pattern                string
		unsupported, lookahead bool
	}{
		{`a(?=b)`, true, true},
		{`a(?!b)`, true, true},
		{`(?<=a)b`, true, false},
		{`(a)\1`, true, false},
		{`\k<x>`, true, false},
		{`\01`, true, false},
		{`a\`, false, false},
		{`[a`, false, false},
		{`\uD800`, false, false},
	} {
		_, err := ecma.Translate(tt.pattern)
		require.Error(t, err, tt.pattern)
		assert.Equal(t, tt.unsupported, errors.Is(err, ecma.ErrUnsupported), "%s: %v", tt.pattern, err)
		assert.Equal(t, tt.lookahead, errors.Is(err, ecma.ErrLookahead), "%s: %v", tt.pattern, err)
	}
}

// FuzzTranslate: any pattern, a client's, is translated or refused without
// a panic, and a translation Go's parser accepts compiles into a matcher
// (what the front-ends do next).
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{`^a.c$`, `[\S\d]+`, `[^\s]`, `\u{1F600}`, `(?<y>\d{4})`, `a(?=b)`, `[^]`, `\cJ\0`, `\uD83D\uDE00`, `[\s\S]*`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		if len(pattern) > 256 {
			return
		}
		src, err := ecma.Translate(pattern)
		if err != nil {
			return
		}
		if re, err := syntax.Parse(src, syntax.Perl); err == nil {
			if _, err := syntax.Compile(re.Simplify()); err != nil {
				t.Fatalf("%q -> %q: %v", pattern, src, err)
			}
		}
	})
}
