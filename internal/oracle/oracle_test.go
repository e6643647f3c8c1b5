package oracle_test

import (
	"errors"
	"regexp/syntax"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/oracle"
)

// re parses a Perl-syntax pattern and simplifies it, as front-ends do.
func re(pattern string) *grammar.Expr {
	r, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		panic(err)
	}
	return grammar.Re(r.Simplify())
}

// rules builds a grammar whose root is the first rule.
func rules(bodies ...*grammar.Expr) *grammar.Grammar {
	g := &grammar.Grammar{}
	for i, b := range bodies {
		g.Rules = append(g.Rules, grammar.Rule{Name: string(rune('A' + i)), Body: b})
	}
	return g
}

func rng(lo, hi rune) grammar.RuneRange { return grammar.RuneRange{Lo: lo, Hi: hi} }

func digits() *grammar.Expr { return grammar.Chars(false, rng('0', '9')) }

type recognizerCase struct {
	name      string
	g         *grammar.Grammar
	accept    []string // sentences; each of their prefixes must be viable
	reject    []string // not sentences
	viable    []string // viable prefixes (possibly sentences too)
	notViable []string // not prefixes of any sentence
}

func recognizerCases() []recognizerCase {
	const (
		A = iota
		B
		C
		D
	)
	return []recognizerCase{
		{
			name: "balanced parentheses",
			// A ::= "" | "(" A ")" A
			g:         rules(grammar.Or(grammar.Eps(), grammar.Cat(grammar.Lit("("), grammar.Call(A), grammar.Lit(")"), grammar.Call(A)))),
			accept:    []string{"", "()", "(())", "()()", "(()())(())", "((((()))))"},
			reject:    []string{"(", ")", ")(", "(()", "())", "((())"},
			viable:    []string{"(((", "(()"},
			notViable: []string{")", "())", "()))", "x", "(x"},
		},
		{
			name: "arithmetic with left recursion",
			// A ::= A [+-] B | B;  B ::= B [*/] C | C;  C ::= [0-9]+ | "(" A ")"
			g: rules(
				grammar.Or(grammar.Cat(grammar.Call(A), grammar.Chars(false, rng('+', '+'), rng('-', '-')), grammar.Call(B)), grammar.Call(B)),
				grammar.Or(grammar.Cat(grammar.Call(B), grammar.Chars(false, rng('*', '*'), rng('/', '/')), grammar.Call(C)), grammar.Call(C)),
				grammar.Or(grammar.Rep(digits(), 1, -1), grammar.Cat(grammar.Lit("("), grammar.Call(A), grammar.Lit(")"))),
			),
			accept:    []string{"1", "12+3", "1+2*3-4/5", "(1+2)*3", "((7))", "1-2-3-4-5-6-7-8-9", "2*(3+4)*(5-(6/7))"},
			reject:    []string{"", "+", "1+", "1++2", "(1", "1)", "()", "1 + 2"},
			viable:    []string{"(", "((1+", "1*(2"},
			notViable: []string{"+", "1+*", "()", "1)", "a"},
		},
		{
			name: "nullable rules",
			// A ::= B C D;  B ::= "" | "x";  C ::= B B;  D ::= C "y" | ""
			g: rules(
				grammar.Cat(grammar.Call(B), grammar.Call(C), grammar.Call(D)),
				grammar.Or(grammar.Eps(), grammar.Lit("x")),
				grammar.Cat(grammar.Call(B), grammar.Call(B)),
				grammar.Or(grammar.Cat(grammar.Call(C), grammar.Lit("y")), grammar.Eps()),
			),
			accept:    []string{"", "x", "xx", "xxx", "y", "xy", "xxxxxy", "xxxy"},
			reject:    []string{"xxxxxxx", "yy", "yx", "xxxxxxy"},
			notViable: []string{"yx", "xxxxxxx", "z"},
		},
		{
			name: "hidden left recursion through a nullable rule",
			// A ::= B A "a" | "b";  B ::= ""
			g:         rules(grammar.Or(grammar.Cat(grammar.Call(B), grammar.Call(A), grammar.Lit("a")), grammar.Lit("b")), grammar.Eps()),
			accept:    []string{"b", "ba", "baaaa"},
			reject:    []string{"", "a", "bab"},
			notViable: []string{"a", "bb"},
		},
		{
			name: "ambiguous cyclic nullable rule",
			// A ::= A A | "" | "a"
			g:         rules(grammar.Or(grammar.Cat(grammar.Call(A), grammar.Call(A)), grammar.Eps(), grammar.Lit("a"))),
			accept:    []string{"", "a", "aaaaaaaa"},
			notViable: []string{"b", "aab"},
		},
		{
			name: "unit cycle",
			// A ::= B | "x";  B ::= A | "y"
			g:         rules(grammar.Or(grammar.Call(B), grammar.Lit("x")), grammar.Or(grammar.Call(A), grammar.Lit("y"))),
			accept:    []string{"x", "y"},
			reject:    []string{"", "xy"},
			notViable: []string{"xy", "z"},
		},
		{
			name: "nested repeats {2,3}",
			// A ::= ("a" [bc]{2,3}){2,3}
			g:         rules(grammar.Rep(grammar.Cat(grammar.Lit("a"), grammar.Rep(grammar.Chars(false, rng('b', 'c')), 2, 3)), 2, 3)),
			accept:    []string{"abbabb", "abcabcc", "acccabbabc", "abbbacccabc"},
			reject:    []string{"", "abb", "abab", "abbbbabb", "abbabbabbabb"},
			viable:    []string{"abbab", "abbbacccab"},
			notViable: []string{"aa", "abbbb", "abbabbabba", "abbabbabbab"},
		},
		{
			name: "repeat bounds",
			// A ::= "x"{0,0} "a"{3} "b"{2,} ("c" | ""){1,2}
			g: rules(grammar.Cat(
				grammar.Rep(grammar.Lit("x"), 0, 0),
				grammar.Rep(grammar.Lit("a"), 3, 3),
				grammar.Rep(grammar.Lit("b"), 2, -1),
				grammar.Rep(grammar.Or(grammar.Lit("c"), grammar.Eps()), 1, 2),
			)),
			accept:    []string{"aaabb", "aaabbbbbb", "aaabbc", "aaabbcc"},
			reject:    []string{"aabb", "aaab", "aaabbccc", "xaaabb"},
			notViable: []string{"x", "aaaa", "aaabbccc", "aaabbcb"},
		},
		{
			name: "star of a nullable expression",
			// A ::= ("" | "ab")* "c"
			g:         rules(grammar.Cat(grammar.Rep(grammar.Or(grammar.Eps(), grammar.Lit("ab")), 0, -1), grammar.Lit("c"))),
			accept:    []string{"c", "abc", "ababababc"},
			reject:    []string{"", "ab", "abac"},
			notViable: []string{"aa", "abb", "cc"},
		},
		{
			name: "Japanese and emoji classes with partial characters",
			// A ::= [ぁ-ん]+ "|" [😀-🙏]{1,2}
			g: rules(grammar.Cat(
				grammar.Rep(grammar.Chars(false, rng('ぁ', 'ん')), 1, -1),
				grammar.Lit("|"),
				grammar.Rep(grammar.Chars(false, rng('😀', '🙏')), 1, 2),
			)),
			accept: []string{"あ|😀", "ひらがな|🙏😃"},
			reject: []string{"あ|", "|😀", "カ|😀", "あ|😀😀😀", "あ|\xF0\x9F\x98"},
			viable: []string{
				"\xE3", "\xE3\x81", "\xE3\x82", "\xE3\x82\x93", // ん = E3 82 93
				"あ|\xF0", "あ|\xF0\x9F", "あ|\xF0\x9F\x98", "あ|\xF0\x9F\x99", "あ|😀\xF0\x9F",
			},
			notViable: []string{
				"\xE3\x80",     // below ぁ (E3 81 81)
				"\xE3\x81\x80", // U+3040
				"\xE3\x82\x94", // U+3094, past ん
				"\xE4", "\xC3", "a",
				"あ|\xF0\x9F\x9A",     // past 🙏 (F0 9F 99 8F)
				"あ|\xF0\x9F\x99\x90", // U+1F650
				"あ|\xF0\x9F\x97",     // below 😀
				"あ|😀😀\xF0",
			},
		},
		{
			name: "negated class: invalid UTF-8 and surrogates never match",
			// A ::= [^"]*
			g:         rules(grammar.Rep(grammar.Chars(true, rng('"', '"')), 0, -1)),
			accept:    []string{"", "abc", "é日😀", "\x00\x7F", "\uFFFD", "\U0010FFFF"},
			reject:    []string{`"`, "\xFF", "\xC3", "\xE6\x97"},
			viable:    []string{"\xC3", "\xE6\x97", "\xF4\x8F\xBF"},
			notViable: []string{"\xFF", "\x80", "\xC0\x80", "\xC1", "\xE0\x80", "\xED\xA0", "\xED\xBF\xBF", "\xF0\x80", "\xF4\x90", "\xF5", "\xC3\xC3"},
		},
		{
			name:      "class with no ranges matches nothing",
			g:         rules(grammar.Or(grammar.Lit("ok"), grammar.Cat(grammar.Lit("no"), grammar.Chars(false)))),
			accept:    []string{"ok"},
			reject:    []string{"no"},
			notViable: []string{"n", "no"},
		},
		{
			name: "unproductive rules are removed",
			// A ::= "a" | "b" B;  B ::= "x" B
			g:         rules(grammar.Or(grammar.Lit("a"), grammar.Cat(grammar.Lit("b"), grammar.Call(B))), grammar.Cat(grammar.Lit("x"), grammar.Call(B))),
			accept:    []string{"a"},
			notViable: []string{"b", "bx", "bxxx"},
		},
		{
			name:      "unproductive root: nothing is viable",
			g:         rules(grammar.Cat(grammar.Lit("x"), grammar.Call(A))),
			notViable: []string{"", "x", "xxx"},
		},
		{
			name: "regex terminal inside rules",
			// A ::= B "@" /[a-z]+\.(com|org)/;  B ::= /[a-z0-9._]+/
			g:         rules(grammar.Cat(grammar.Call(B), grammar.Lit("@"), re(`[a-z]+\.(com|org)`)), re(`[a-z0-9._]+`)),
			accept:    []string{"a@b.com", "john.doe_42@example.org"},
			reject:    []string{"@b.com", "a@b.net", "a@.com", "a@b.comm"},
			viable:    []string{"a@b.co", "a@b.o"},
			notViable: []string{"@", "a@1", "a@b.n", "A"},
		},
		{
			name:   "regex edge anchors and case folding",
			g:      rules(grammar.Cat(re(`^(?i)straße\d{2}$`), grammar.Lit(";"), re(`(?m)^(?:x|^y)$`))),
			accept: []string{"straße12;x", "STRAẞE00;y", "sTrAßE99;x", "ſtraße12;y"},
			reject: []string{"strasse12;x", "straße1;x", "straße12;z"},
		},
	}
}

func TestRecognizer(t *testing.T) {
	for _, tc := range recognizerCases() {
		t.Run(tc.name, func(t *testing.T) {
			r, err := oracle.New(tc.g)
			require.NoError(t, err)
			for _, s := range tc.accept {
				ok, err := oracle.Accepts(tc.g, []byte(s))
				require.NoError(t, err)
				assert.True(t, ok, "accept %q", s)
				for i := range len(s) + 1 {
					assert.True(t, r.Clone().Feed([]byte(s[:i])), "prefix %q of %q should be viable", s[:i], s)
				}
			}
			for _, s := range tc.reject {
				ok, err := oracle.Accepts(tc.g, []byte(s))
				require.NoError(t, err)
				assert.False(t, ok, "reject %q", s)
			}
			for _, s := range tc.viable {
				ok, err := oracle.ViablePrefix(tc.g, []byte(s))
				require.NoError(t, err)
				assert.True(t, ok, "viable %q", s)
			}
			for _, s := range tc.notViable {
				ok, err := oracle.ViablePrefix(tc.g, []byte(s))
				require.NoError(t, err)
				assert.False(t, ok, "not viable %q", s)
				c := r.Clone()
				c.Feed([]byte(s))
				assert.False(t, c.Complete(), "dead %q cannot be complete", s)
				assert.False(t, c.Feed([]byte("a")), "dead %q stays dead", s)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	for _, tc := range []struct {
		name        string
		g           *grammar.Grammar
		unsupported bool
	}{
		{name: "no rules", g: &grammar.Grammar{}},
		{name: "root out of range", g: &grammar.Grammar{Rules: []grammar.Rule{{Name: "a", Body: grammar.Lit("x")}}, Root: 3}},
		{name: "dangling reference", g: rules(grammar.Call(7))},
		{name: "bad repeat bounds", g: rules(grammar.Rep(grammar.Lit("x"), 3, 2))},
		{name: "word boundary", g: rules(re(`\bx`)), unsupported: true},
		{name: "anchor inside the pattern", g: rules(re(`a^b`))},
		{name: "end anchor inside a repeat", g: rules(re(`(?:a$)*`))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := oracle.New(tc.g)
			require.Error(t, err)
			assert.Equal(t, tc.unsupported, errors.Is(err, grammar.ErrUnsupported), "%v", err)
			_, err = oracle.Accepts(tc.g, nil)
			assert.Error(t, err)
			_, err = oracle.ViablePrefix(tc.g, nil)
			assert.Error(t, err)
		})
	}
}

func TestCloneIsIndependent(t *testing.T) {
	// A ::= "ab" "c"* | "ax"
	g := rules(grammar.Or(grammar.Cat(grammar.Lit("ab"), grammar.Rep(grammar.Lit("c"), 0, -1)), grammar.Lit("ax")))
	r, err := oracle.New(g)
	require.NoError(t, err)
	require.True(t, r.Feed([]byte("a")))
	b := r.Clone()
	x := r.Clone()
	bb := b.Clone()
	require.True(t, b.Feed([]byte("bcc")))
	require.True(t, x.Feed([]byte("x")))
	require.False(t, bb.Feed([]byte("bx")))

	assert.True(t, r.Viable())
	assert.False(t, r.Complete(), "the original is still after %q", "a")
	assert.True(t, b.Complete())
	assert.True(t, x.Complete())
	assert.False(t, bb.Viable())

	// The original goes on, and the clones keep their own input.
	require.True(t, r.Feed([]byte("b")))
	assert.True(t, r.Complete())
	assert.True(t, b.Feed([]byte("c")))
	assert.True(t, b.Complete())
	assert.False(t, x.Feed([]byte("c")))
	assert.True(t, r.Feed([]byte("ccc")))

	d := bb.Clone()
	assert.False(t, d.Viable(), "a clone of a dead recognizer is dead")
	assert.False(t, d.Feed(nil))
}
