package tokenizer

import (
	"testing"

	"github.com/dlclark/regexp2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRustCaseFold(t *testing.T) {
	cases := []struct{ in, want string }{
		{`(?i:'s|'t|'re|'ve|'m|'ll|'d)`, `(?:'[sSſ]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])`},
		{`a(?i:'k)?b`, "a(?:'[kK\u212a])?b"},
		{`(?i:[a-z])`, `(?i:[a-z])`},       // not only letters: left to regexp2
		{`\(?i:'s)`, `\(?i:'s)`},           // an escaped parenthesis is no group
		{`(?i:'s`, `(?i:'s`},               // unbalanced: left alone
		{`(?i:)(?i:'d)`, `(?i:)(?:'[dD])`}, // empty group left alone
		{`x`, `x`},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, rustCaseFold(c.in), c.in)
	}
}

func splitWith(t *testing.T, pattern, text string) []string {
	re, err := regexp2.Compile(rustCaseFold(pattern), regexp2.None)
	require.NoError(t, err)
	return regexSplit(re, text)
}

func TestRegexSplit(t *testing.T) {
	cases := []struct {
		pattern, text string
		want          []string
	}{
		{Cl100kPattern, "x'ſy", []string{"x", "'ſ", "y"}}, // long s folds to s, as in Rust and Oniguruma
		{Cl100kPattern, "x'Sy", []string{"x", "'S", "y"}},
		{Cl100kPattern, "Hello  world\n\n  x", []string{"Hello", " ", " world", "\n\n", " ", " x"}},
		{Cl100kPattern, " \n \n ", []string{" \n \n", " "}},
		{Cl100kPattern, "12345", []string{"123", "45"}},
		{GPT2Pattern, "I'm  here!!", []string{"I", "'m", " ", " here", "!!"}},
		{O200kPattern, "HelloWorld's", []string{"Hello", "World's"}},
		{Cl100kPattern, "a\xff1", []string{"a", "\xff", "1"}}, // an invalid byte keeps its byte
		{`b`, "abcb", []string{"a", "b", "c", "b"}},           // unmatched stretches are words too
		{Cl100kPattern, "", nil},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, splitWith(t, c.pattern, c.text), "%q", c.text)
	}
}

func TestMetaspaceSplit(t *testing.T) {
	s := compiledPreStep{preStep: preStep{op: preMetaspace, replacement: '▁', prepend: prependFirst, splitWords: true}}
	assert.Equal(t, []string{"▁Hello", "▁world"}, s.split("Hello world", true))
	assert.Equal(t, []string{"Hello", "▁world"}, s.split("Hello world", false))
	assert.Equal(t, []string{"▁", "▁a"}, s.split("  a", true))
	s.splitWords = false
	s.prepend = prependAlways
	assert.Equal(t, []string{"▁a▁b"}, s.split("a b", false))
	p := compiledPreStep{preStep: preStep{op: prePrefixSpace}}
	assert.Equal(t, []string{" a"}, p.split("a", true))
	assert.Equal(t, []string{" a"}, p.split(" a", true))
}
