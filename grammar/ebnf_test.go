package grammar_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/fuzzcheck"
	"github.com/reinlm/rein/internal/oracle"
)

// ebnfLanguageTests are EBNF grammars with strings they accept and strings
// they refuse, checked with the Earley oracle.
var ebnfLanguageTests = []struct {
	name, src      string
	accept, reject []string
}{
	{"arithmetic", `
root ::= expr ("=" expr)*
expr ::= term ([-+*/] term)*
term ::= num | "(" expr ")"
num  ::= [0-9]+
`, []string{"1+2", "(3*4)-5=7", "2=2=2"}, []string{"", "1+", "(1", "1==2"}},
	{"multi-line body and comments", `root ::= "a" |   # first
         "b" |
         "c"  # last
`, []string{"a", "b", "c"}, []string{"", "ab", "d"}},
	{"names with dots and underscores", `root ::= my_rule.v2 -x
my_rule.v2 ::= "a"
-x ::= "b"`, []string{"ab"}, []string{"a", "b"}},
	{"empty group and empty literal", `root ::= ( ) "x" "" ("y" | "")`, []string{"x", "xy"}, []string{"", "y"}},
	{"escapes", `root ::= "\e\0\/\'\?\x41\x1F600\u00e9\U0001F600\b\f\a\v"`,
		[]string{"\x1b\x00/'?A\U0001F600\u00e9\U0001F600\b\f\a\v"}, []string{"\x1b"}},
	{"class escapes", `root ::= [\^\$\.\*\+\?\(\)\[\]\{\}\|\/\-\\]+`,
		[]string{`^$.*+?()[]{}|/-\`}, []string{"a", ""}},
	{"class dash at the ends", `root ::= [-a] [b-] [--/]`, []string{"-b-", "ab/", "a-."}, []string{"bb-", "a-0"}},
	{"any code point", `root ::= [^] [^]`, []string{"\n\x00", "日本"}, []string{"a", "abc"}},
	{"negated class", `root ::= [^"\\\x00-\x1f]*`, []string{"", "abc é"}, []string{`"`, "\\", "\n"}},
	{"repetition ranges", `root ::= "a"{2} "b"{1,2} "c"{0,} "d"{2, -1} "e"{0}`,
		[]string{"aabdd", "aabbcccddd"}, []string{"abdd", "aabbbdd", "aabd", "aabdde"}},
	{"stacked repetition in groups", `root ::= ("a"+)?`, []string{"", "a", "aaa"}, []string{"b"}},
	{"left recursion", `root ::= root "a" | "a"`, []string{"a", "aaa"}, []string{"", "b"}},
	{"forward references", `root ::= later
later ::= "z"`, []string{"z"}, []string{""}},
	{"lookahead is dropped", `root ::= digits "a" | digits "b"
digits ::= [0-9]+ (= [ab])`, []string{"1a", "22b"}, []string{"1", "a", "1c"}},
	{"lookahead with rule names and choices", `root ::= item (", " item)*
item ::= [a-z]+ (= ", " | end)
end ::= ""`, []string{"a", "ab, c"}, []string{"a,b", ""}},
	{"rule options", `root ::= value
value[temperature=0.7] ::= [a-z]+
other[capture, temperature=0] ::= "x"
named[capture="v", temperature=1.5e0] ::= "y"`, []string{"abc", "x"}, []string{"", "A", "a1"}},
	{"regex", `root ::= Regex("[0-9]{2}-[a-z]+")`, []string{"12-ab"}, []string{"1-a", "12-", "12-A"}},
	{"regex dot excludes line terminators", `root ::= Regex("a.b")`, []string{"a-b", "aéb"}, []string{"a\nb", "a\rb", "a\u2028b"}},
	{"regex spaces are ECMAScript's", `root ::= Regex("a\\sb\\Sc")`, []string{"a b-c", "a\u00a0bxc", "a\u3000b.c"}, []string{"a b c", "ab-c"}},
	{"regex unicode escapes", `root ::= Regex("\\u00e9\\u{1F600}+")`, []string{"é😀", "é😀😀"}, []string{"é", "e😀"}},
	{"regex anchors", `root ::= Regex("^ab?$")`, []string{"a", "ab"}, []string{"", "abb"}},
	{"regex any code point", `root ::= Regex("[^]x")`, []string{"\nx", "ax"}, []string{"x"}},
	{"regex \\S inside a class", `root ::= Regex("[\\S\\d]+x")`, []string{"ab1x", "é-x"}, []string{"a bx", "x", "a\u00a0x"}},
	{"tag dispatch", `root ::= TagDispatch(
    ("<tool_call>", tool_call_body),
    ("<code>", code_body),
    loop_after_dispatch=true,
    excludes=()
)
tool_call_body ::= "{" [^}]* "}"
code_body ::= "` + "```" + `" [^` + "`" + `]* "` + "```" + `"
`, []string{
		`I will call a tool. <tool_call>{"name": "get_weather"}</tool_call> Done.`,
		"no tool call at all",
		"<code>```print(1)```<tool_call>{}",
		"",
		"ends with a partial tag <tool_ca",
	}, []string{
		"<tool_call>not a body",
		"<tool_call>{",
		"<code>x",
	}},
	{"tag dispatch once", `root ::= TagDispatch(("<t>", body), loop_after_dispatch=false)
body ::= "x"`, []string{"abc", "abc<t>x", ""}, []string{"<t>x more", "<t>x<t>x", "<t>"}},
	{"tag dispatch excludes", `root ::= body "</answer>"
body ::= TagDispatch(
    ("<tool_call>", call),
    excludes=("</answer>",)
)
call ::= "{" [^}]* "}"`, []string{"text</answer>", "a<tool_call>{x}b</answer>"}, []string{"a</answer>b</answer>", "text"}},
	{"tag dispatch without tags", `root ::= TagDispatch(excludes=("x",))`, []string{"", "abc"}, []string{"axb"}},
}

func TestParseEBNFLanguage(t *testing.T) {
	for _, tc := range ebnfLanguageTests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := grammar.ParseEBNF(tc.src, grammar.EBNFOptions{})
			require.NoError(t, err)
			require.NoError(t, g.Validate())
			assert.Equal(t, "root", g.Rules[g.Root].Name)
			for _, s := range tc.accept {
				ok, err := oracle.Accepts(g, []byte(s))
				require.NoError(t, err)
				assert.True(t, ok, "should accept %q", s)
			}
			for _, s := range tc.reject {
				ok, err := oracle.Accepts(g, []byte(s))
				require.NoError(t, err)
				assert.False(t, ok, "should reject %q", s)
			}
		})
	}
}

// TestParseEBNFSameAsGBNF checks that grammars both dialects read mean the
// same in both.
func TestParseEBNFSameAsGBNF(t *testing.T) {
	for _, src := range []string{
		`root ::= "a" [b-d]* ("e" | f){2,3}` + "\nf ::= [^x]+",
		`root ::= "\x41\u00e9\n" [\-\]a]?`,
		"root ::= x\nx ::= \"(\" x? \")\"",
	} {
		e, err := grammar.ParseEBNF(src, grammar.EBNFOptions{})
		require.NoError(t, err, src)
		g, err := grammar.ParseGBNF(src, "", grammar.Limits{})
		require.NoError(t, err, src)
		assert.Equal(t, g.String(), e.String(), src)
	}
}

// TestParseEBNFTokens checks the token builtins by the IR they build.
func TestParseEBNFTokens(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`root ::= Token(128010) [a-z]+`, `root ::= (<[128010]> [a-z]{1,})`},
		{`root ::= Token(3, 1, 2, 2, +7)`, `root ::= <[1-3,7]>`},
		{`root ::= ExcludeToken(5, 6) "x"`, `root ::= (<[^5-6]> "x")`},
		{"root ::= TokenTagDispatch((128010, body), loop_after_dispatch=true, excludes=(128020,))\nbody ::= \"{\" [^}]* \"}\"",
			"root ::= (<[^128010,128020]> | (<[128010]> body)){0,}\nbody ::= (\"{\" [\\x00-|~-\\uD7FF\\uE000-\\U0010FFFF]{0,} \"}\")"},
		{"root ::= TokenTagDispatch((7, a), (9, a), loop_after_dispatch=false)\na ::= \"x\"",
			"root ::= (<[^7,9]>{0,} ((<[7]> a) | (<[9]> a)){0,1})\na ::= \"x\""},
		{`root ::= TokenTagDispatch()`, `root ::= <[*]>{0,}`},
	} {
		g, err := grammar.ParseEBNF(tc.src, grammar.EBNFOptions{})
		require.NoError(t, err, tc.src)
		assert.Equal(t, tc.want+"\n", g.String(), tc.src)
	}
}

// ebnfErrorTests are malformed or refused sources with the place and a
// piece of the message of their first error, and the sentinel it wraps.
var ebnfErrorTests = []struct {
	src, pos, msg string
	is            error
}{
	{`root ::= "a`, "1:10", "unterminated string literal", nil},
	{"root ::= \"a\nb\"", "1:12", "line break inside the string literal", nil},
	{`root ::= [a`, "1:10", "unterminated character class", nil},
	{`root ::= [\d]`, "1:11", `class escape \d is not supported`, nil},
	{`root ::= [z-a]`, "1:11", "invalid character range", nil},
	{`root ::= []`, "1:10", "empty character class", nil},
	{`root ::= "\q"`, "1:11", `unknown escape \q`, nil},
	{`root ::= "\u12"`, "1:11", `needs 4 hex digits`, nil},
	{`root ::= "\x110000"`, "1:11", "beyond U+10FFFF", nil},
	{`root ::= "\x"`, "1:11", "needs hex digits", nil},
	{`root ::= | "a"`, "1:10", "expected a string", nil},
	{`root ::= "a" |`, "1:15", "expected a string", nil},
	{`root ::= ("a" | )`, "1:17", "expected a string", nil},
	{`root ::= ("a"`, "1:10", "unclosed '('", nil},
	{`root ::= "a")`, "1:13", "unexpected ')'", nil},
	{`root ::= "a"++`, "1:14", "right after another", nil},
	{`root ::= *`, "1:10", "nothing to repeat", nil},
	{`root ::= "a"{3,2}`, "1:13", "maximum below its minimum", nil},
	{`root ::= "a"{,2}`, "1:14", "expected a number", nil},
	{`root ::= "a"{99999}`, "1:14", "Limits.GBNFRepeat", grammar.ErrLimit},
	{`root ::= undefined`, "1:10", `undefined rule "undefined"`, nil},
	{"root ::= \"a\"\nroot ::= \"b\"", "2:1", "already defined", nil},
	{`root ::= "a" b ::= "c"`, "1:14", "must begin its line", nil},
	{`::= "a"`, "1:1", "expected rule name", nil},
	{`1x ::= "a"`, "1:1", "expected rule name", nil},
	{`root ::= "a" (= "b") (= "c")`, "1:22", "one lookahead assertion", nil},
	{`root ::= ("a" (= "b"))`, "1:15", "only after a rule's body", nil},
	{`root ::= "a" (= undefined)`, "1:17", `undefined rule "undefined"`, nil},
	{`root ::= "a" (= "b"`, "1:20", "expected ')' to close the lookahead", nil},
	{`root[max_tokens=10] ::= "a"`, "1:6", "max_tokens is not supported", grammar.ErrUnsupported},
	{`root[temperature=-1] ::= "a"`, "1:18", "finite non-negative", nil},
	{`root[color=1] ::= "a"`, "1:6", `unknown rule option "color"`, nil},
	{`root[capture, capture] ::= "a"`, "1:15", "given twice", nil},
	{`root ::= Regex`, "1:15", "expected '(' after Regex", nil},
	{`root ::= Regex()`, "1:10", "Regex takes one string", nil},
	{`root ::= Regex(1)`, "1:10", "Regex takes one string", nil},
	{`root ::= Regex("a", flags=true)`, "1:21", `Regex has no argument "flags"`, nil},
	{`root ::= Regex("a", json_string=true)`, "1:21", "json_string=true is not supported", grammar.ErrUnsupported},
	{`root ::= Regex("(?=a)a")`, "1:16", "lookahead", grammar.ErrUnsupported},
	{`root ::= Regex("a\\1")`, "1:16", "backreference", grammar.ErrUnsupported},
	{`root ::= Regex("a[")`, "1:16", "Regex:", nil},
	{`root ::= Token()`, "1:10", "at least one token id", nil},
	{`root ::= Token("a")`, "1:16", "takes token ids", nil},
	{`root ::= Token(-1)`, "1:16", "negative number", nil},
	{`root ::= Token(99999999999)`, "1:16", "is above", grammar.ErrLimit},
	{`root ::= Token(1, x=2)`, "1:10", "no named arguments", nil},
	{`root ::= Token(1 2)`, "1:18", "expected ',' or ')'", nil},
	{`root ::= Token(1,)`, "1:18", "expected a string, a number", nil},
	{`root ::= ExcludeToken(true)`, "1:23", "takes token ids", nil},
	{`root ::= TagDispatch("a")`, "1:22", "is a pair", nil},
	{`root ::= TagDispatch(("", r))` + "\nr ::= \"x\"", "1:23", "must not be empty", nil},
	{`root ::= TagDispatch(("a", "b"))`, "1:28", "names a rule", nil},
	{`root ::= TagDispatch((1, r))` + "\nr ::= \"x\"", "1:23", "is a string", nil},
	{`root ::= TagDispatch(("a", nope))`, "1:28", `undefined rule "nope"`, nil},
	{`root ::= TagDispatch(("<a>", r), loop_after_dispatch=1)` + "\nr ::= \"x\"", "1:54", "must be true or false", nil},
	{`root ::= TagDispatch(("<a>", r), excludes="x")` + "\nr ::= \"x\"", "1:43", "must be a tuple", nil},
	{`root ::= TagDispatch(("<a>", r), excludes=(1,))` + "\nr ::= \"x\"", "1:44", "holds a string", nil},
	{`root ::= TagDispatch(("<a>", r), excludes=("<",))` + "\nr ::= \"x\"", "1:44", `exclude string "<" starts tag "<a>"`, nil},
	{`root ::= TagDispatch(("<a>", r), excludes=("",))` + "\nr ::= \"x\"", "1:44", "must not be empty", nil},
	{`root ::= TagDispatch(("<ab>", r), ("b", r))` + "\nr ::= \"x\"", "1:23", `tag "<ab>" holds tag "b"`, nil},
	{`root ::= TagDispatch(("a", r), ("a", r))` + "\nr ::= \"x\"", "1:33", `tag "a" holds tag "a"`, nil},
	{`root ::= TagDispatch(("<a>", r), stop_eos=false, stop_str=("x",))` + "\nr ::= \"x\"", "1:10", "stop_eos=false or stop_str", grammar.ErrUnsupported},
	{`root ::= TagDispatch(("<a>", r), more=true)` + "\nr ::= \"x\"", "1:34", `no argument "more"`, nil},
	{`root ::= TagDispatch(("<a>", r), excludes=(), excludes=())` + "\nr ::= \"x\"", "1:47", "given twice", nil},
	{`root ::= TokenTagDispatch((1, r), excludes=(1,))` + "\nr ::= \"x\"", "1:45", "both a trigger and excluded", nil},
	{`root ::= TokenTagDispatch(("a", r))` + "\nr ::= \"x\"", "1:28", "is an integer", nil},
	{`root ::= Token((((1))))`, "1:16", "takes token ids", nil},
	{"Regex ::= \"a\"\nroot ::= \"b\"", "1:1", "names a builtin", nil},
	{"root ::= \"a\" @", "1:14", "unexpected '@'", nil},
}

func TestParseEBNFErrors(t *testing.T) {
	for _, tc := range ebnfErrorTests {
		g, err := grammar.ParseEBNF(tc.src, grammar.EBNFOptions{})
		require.Error(t, err, tc.src)
		assert.Nil(t, g)
		checkSourceError(t, "ebnf", tc.src, err)
		var e *grammar.Error
		require.True(t, errors.As(err, &e), tc.src)
		assert.Equal(t, tc.pos, e.Pos.String(), "%q: %v", tc.src, err)
		assert.Contains(t, e.Error(), tc.msg, tc.src)
		if tc.is != nil {
			assert.ErrorIs(t, err, tc.is, tc.src)
		}
	}
}

func TestParseEBNFRecovery(t *testing.T) {
	_, err := grammar.ParseEBNF(`root ::= a b
a ::= "x" |
b ::= [z-a]
c ::= "ok"
d ::= c undefined
`, grammar.EBNFOptions{})
	var list grammar.ErrorList
	require.True(t, errors.As(err, &list))
	var got []string
	for _, e := range list {
		got = append(got, e.Pos.String())
	}
	assert.Equal(t, []string{"3:1", "3:8", "5:9"}, got, "%v", err)
}

func TestParseEBNFOptions(t *testing.T) {
	g, err := grammar.ParseEBNF("start ::= \"a\"\nroot ::= \"b\"", grammar.EBNFOptions{Root: "start"})
	require.NoError(t, err)
	assert.Equal(t, "start", g.Rules[g.Root].Name)

	_, err = grammar.ParseEBNF(`main ::= "a"`, grammar.EBNFOptions{})
	assert.ErrorContains(t, err, `missing root rule "root"`)

	_, err = grammar.ParseEBNF(`root ::= "`+strings.Repeat("a", 100)+`"`, grammar.EBNFOptions{Limits: grammar.Limits{GBNFBytes: 50}})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	deep := "root ::= " + strings.Repeat("(", 20) + `"a"` + strings.Repeat(")", 20)
	_, err = grammar.ParseEBNF(deep, grammar.EBNFOptions{Limits: grammar.Limits{GBNFDepth: 10}})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	tuples := "root ::= Token(" + strings.Repeat("(", 20) + "1" + strings.Repeat(")", 20) + ")"
	_, err = grammar.ParseEBNF(tuples, grammar.EBNFOptions{Limits: grammar.Limits{GBNFDepth: 10}})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	_, err = grammar.ParseEBNF("root ::= Token(1, 2, 3, 4)", grammar.EBNFOptions{Limits: grammar.Limits{Enum: 3}})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	_, err = grammar.ParseEBNF(`root ::= TagDispatch(("`+strings.Repeat("t", 40)+`", r))`+"\nr ::= \"x\"", grammar.EBNFOptions{Limits: grammar.Limits{TextExcludeBytes: 32}})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	_, err = grammar.ParseEBNF(`root ::= Regex("`+strings.Repeat("a", 40)+`")`, grammar.EBNFOptions{Limits: grammar.Limits{RegexBytes: 32}})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = grammar.ParseEBNFContext(ctx, "root ::= "+strings.Repeat(`"a" `, 5000), grammar.EBNFOptions{})
	assert.ErrorIs(t, err, context.Canceled)
}

// FuzzParseEBNF checks that no source makes the parser panic, that every
// error is positioned within the source, and that every grammar it returns
// is valid and compiles.
func FuzzParseEBNF(f *testing.F) {
	for _, tc := range ebnfLanguageTests {
		f.Add(tc.src)
	}
	for _, tc := range ebnfErrorTests {
		f.Add(tc.src)
	}
	f.Add("root ::= Token(1) TokenTagDispatch((2, r))\nr[capture=\"c\"] ::= \"x\" (= \"y\")")
	f.Fuzz(func(t *testing.T, src string) {
		g, err := grammar.ParseEBNF(src, grammar.EBNFOptions{})
		if err != nil {
			require.Nil(t, g)
			checkSourceError(t, "ebnf", src, err)
			return
		}
		require.NoError(t, g.Validate())
		require.Equal(t, "root", g.Rules[g.Root].Name)
		fuzzcheck.Compiles(t, src, withoutTokens(g))
	})
}
