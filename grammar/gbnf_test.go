package grammar_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/ctxtest"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/fuzzcheck"
)

func init() {
	// The golden tests of several front-ends share one -update flag; the first
	// file to need it registers it.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata")
	}
}

// updateGolden reports whether the test run was asked to rewrite golden files.
func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// gbnfBodyTests are rule bodies, parsed as "root ::= body", and the body that
// Grammar.String prints for them.
var gbnfBodyTests = []struct{ body, want string }{
	{`"a"`, `"a"`},
	{`"abc"`, `"abc"`},
	{`""`, `""`},
	{`"a b"`, `"a b"`},
	{`"\t"`, `"\t"`},
	{`"\r"`, `"\r"`},
	{`"\n"`, `"\n"`},
	{`"\\"`, `"\\"`},
	{`"\""`, `"\""`},
	{`"\["`, `"["`},
	{`"\]"`, `"]"`},
	{`"\-"`, `"-"`},
	{`"\x41"`, `"A"`},
	{`"\x7F"`, `"\x7f"`},
	{`"\x00"`, `"\x00"`},
	{`"\xFF"`, `"ÿ"`},
	{`"a\xff"`, `"aÿ"`},
	{`"\xe9"`, `"é"`},
	{`"\u00e9"`, `"é"`},
	{`"\u4E2D"`, `"中"`},
	{`"\\uFFFF"`, `"\\uFFFF"`},
	{`"\U0001F600"`, `"😀"`},
	{`"\U0010FFFF"`, `"\U0010ffff"`},
	{`"é"`, `"é"`},
	{`"日本語"`, `"日本語"`},
	{`"🔵"`, `"🔵"`},
	{`"#"`, `"#"`},
	{`"|"`, `"|"`},
	{`"("`, `"("`},
	{`")"`, `")"`},
	{`"*"`, `"*"`},
	{`"{1}"`, `"{1}"`},
	{`"::="`, `"::="`},
	{`"'"`, `"'"`},
	{`"[a]"`, `"[a]"`},
	{`"a\"b"`, `"a\"b"`},
	{`"\\n"`, `"\\n"`},
	{"\"line\nbreak\"", `"line\nbreak"`},
	{"\"tab\traw\"", `"tab\traw"`},
	{`"\x41\x42"`, `"AB"`},
	{`"a" "b"`, `("a" "b")`},
	{`"a""b"`, `("a" "b")`},
	{`"a"  "b"`, `("a" "b")`},
	{`"\u0041bc"`, `"Abc"`},
	{`[a]`, `[a]`},
	{`[abc]`, `[a-c]`},
	{`[cba]`, `[a-c]`},
	{`[aa]`, `[a]`},
	{`[a-z]`, `[a-z]`},
	{`[a-a]`, `[a]`},
	{`[a-zA-Z0-9_]`, `[0-9A-Z_a-z]`},
	{`[a-cb-d]`, `[a-d]`},
	{`[a-bc-d]`, `[a-d]`},
	{`[^a]`, "[\\x00-`b-\\uD7FF\\uE000-\\U0010FFFF]"},
	{`[^a-z]`, "[\\x00-`{-\\uD7FF\\uE000-\\U0010FFFF]"},
	{`[^^]`, "[\\x00-\\]_-\\uD7FF\\uE000-\\U0010FFFF]"},
	{`[-a]`, `[\-a]`},
	{`[a-]`, `[\-a]`},
	{`[a\-z]`, `[\-az]`},
	{`[\]]`, `[\]]`},
	{`[\[]`, `[[]`},
	{`[[]`, `[[]`},
	{`[\\]`, `[\\]`},
	{`[\"]`, `["]`},
	{`["]`, `["]`},
	{`[\x00-\x1F]`, `[\x00-\x1F]`},
	{`[\t\n\r ]`, `[\x09-\x0A\x0D ]`},
	{`[ -~]`, `[ -~]`},
	{`[#]`, `[#]`},
	{`[.]`, `[.]`},
	{`[*+?]`, `[*-+?]`},
	{`[(|)]`, `[(-)|]`},
	{`[^\n]`, "[\\x00-\\x09\\x0B-\\uD7FF\\uE000-\\U0010FFFF]"},
	{`[^"\\]`, "[\\x00-!#-[\\]-\\uD7FF\\uE000-\\U0010FFFF]"},
	{`[^"\\\x7F\x00-\x1F]`, "[ -!#-[\\]-~\\u0080-\\uD7FF\\uE000-\\U0010FFFF]"},
	{`[\u0100-\uFFFF]`, "[Ā-\\uD7FF\\uE000-\\uFFFF]"},
	{`[\uD7FF-\uE000]`, "[\\uD7FF\\uE000]"},
	{`[\uD000-\uDFFF]`, "[퀀-\\uD7FF]"},
	{`[^\x00-\x7F]`, "[\\u0080-\\uD7FF\\uE000-\\U0010FFFF]"},
	{`[ぁ-ゟ]`, `[ぁ-ゟ]`},
	{`[一-鿿]`, `[一-鿿]`},
	{`[\U00010000-\U0010FFFF]`, `[\U00010000-\U0010FFFF]`},
	{`[é]`, `[é]`},
	{`[^é]`, "[\\x00-èê-\\uD7FF\\uE000-\\U0010FFFF]"},
	{`[a-\x7A]`, `[a-z]`},
	{`[\x61-z]`, `[a-z]`},
	{`[0-9a-fA-F]`, `[0-9A-Fa-f]`},
	{`[,-.]`, `[,-.]`},
	{`[!-/]`, `[!-/]`},
	{`[+-]`, `[+\-]`},
	{`[-+]`, `[+\-]`},
	{`[---]`, `[\-]`},
	{`[a-c-e]`, `[\-a-ce]`},
	{`[^-]`, "[\\x00-,.-\\uD7FF\\uE000-\\U0010FFFF]"},
	{`[\--\-]`, `[\-]`},
	{`[\x2D]`, `[\-]`},
	{`[ ]`, `[ ]`},
	{`[\uFFFF]`, "[\\uFFFF]"},
	{`[\U0010FFFF]`, `[\U0010FFFF]`},
	{`[^\U0010FFFF]`, "[\\x00-\\uD7FF\\uE000-\\U0010FFFE]"},
	{`[\x00]`, `[\x00]`},
	{`[^\x00]`, "[\\x01-\\uD7FF\\uE000-\\U0010FFFF]"},
	{`.`, "[\\x00-\\uD7FF\\uE000-\\U0010FFFF]"},
	{`..`, "([\\x00-\\uD7FF\\uE000-\\U0010FFFF] [\\x00-\\uD7FF\\uE000-\\U0010FFFF])"},
	{`.*`, "[\\x00-\\uD7FF\\uE000-\\U0010FFFF]{0,}"},
	{`"a" .`, "(\"a\" [\\x00-\\uD7FF\\uE000-\\U0010FFFF])"},
	{`.+ "x"`, "([\\x00-\\uD7FF\\uE000-\\U0010FFFF]{1,} \"x\")"},
	{`[^.]`, "[\\x00-\\-/-\\uD7FF\\uE000-\\U0010FFFF]"},
	{`"a" | "b"`, `("a" | "b")`},
	{`"a" | "b" | "c"`, `("a" | "b" | "c")`},
	{`"a"|"b"`, `("a" | "b")`},
	{`| "a"`, `("" | "a")`},
	{`"a" | | "b"`, `("a" | "" | "b")`},
	{`"a" "b" | "c"`, `(("a" "b") | "c")`},
	{`"a" | "b" "c"`, `("a" | ("b" "c"))`},
	{`[a] | .`, "([a] | [\\x00-\\uD7FF\\uE000-\\U0010FFFF])"},
	{"\"a\" |\n\"b\"", `("a" | "b")`},
	{"\"a\" |\n\n   \"b\"", `("a" | "b")`},
	{"\"a\" | # comment\n\"b\"", `("a" | "b")`},
	{`("a")`, `"a"`},
	{`("a" "b")`, `("a" "b")`},
	{`("a" | "b")`, `("a" | "b")`},
	{`()`, `""`},
	{`(())`, `""`},
	{`( "a" )`, `"a"`},
	{`(("a"))`, `"a"`},
	{`(("a" | "b") "c")`, `(("a" | "b") "c")`},
	{`("a" ("b" | "c"))`, `("a" ("b" | "c"))`},
	{`("a" | ("b" | "c"))`, `("a" | ("b" | "c"))`},
	{"(\n  \"a\"\n  | \"b\"\n)", `("a" | "b")`},
	{"(\"a\" # c\n \"b\")", `("a" "b")`},
	{"(\n)", `""`},
	{`("a")("b")`, `("a" "b")`},
	{`"a"*`, `"a"{0,}`},
	{`"a"+`, `"a"{1,}`},
	{`"a"?`, `"a"{0,1}`},
	{`"a"{0}`, `"a"{0}`},
	{`"a"{1}`, `"a"{1}`},
	{`"a"{3}`, `"a"{3}`},
	{`"a"{0,}`, `"a"{0,}`},
	{`"a"{2,}`, `"a"{2,}`},
	{`"a"{0,5}`, `"a"{0,5}`},
	{`"a"{2,5}`, `"a"{2,5}`},
	{`"a"{3,3}`, `"a"{3}`},
	{`"a"{ 2 , 5 }`, `"a"{2,5}`},
	{`"a"{ 4}`, `"a"{4}`},
	{`"a"{2 ,}`, `"a"{2,}`},
	{`"a"{0,0}`, `"a"{0}`},
	{`"a" *`, `"a"{0,}`},
	{"\"a\"\t+", `"a"{1,}`},
	{`("a" "b")*`, `("a" "b"){0,}`},
	{`("a" | "b")+`, `("a" | "b"){1,}`},
	{`[a-z]*`, `[a-z]{0,}`},
	{`[^x]+`, "[\\x00-wy-\\uD7FF\\uE000-\\U0010FFFF]{1,}"},
	{`.?`, "[\\x00-\\uD7FF\\uE000-\\U0010FFFF]{0,1}"},
	{`()*`, `""{0,}`},
	{`""*`, `""{0,}`},
	{`"a"{10000}`, `"a"{10000}`},
	{`"a"{0,10000}`, `"a"{0,10000}`},
	{`"a"{100,10000}`, `"a"{100,10000}`},
	{`("a"{100}){100}`, `("a"{100}){100}`},
	{`"a"{007}`, `"a"{7}`},
	{`"a"* "b"+ "c"?`, `("a"{0,} "b"{1,} "c"{0,1})`},
	{`"a" ("b" "c")? "d"`, `("a" ("b" "c"){0,1} "d")`},
	{`("a"*)*`, `("a"{0,}){0,}`},
	{`(("a"?)?)?`, `(("a"{0,1}){0,1}){0,1}`},
	{`"a"{0,1}`, `"a"{0,1}`},
	{`"a"{1,1}`, `"a"{1}`},
	{`"a"{1,}`, `"a"{1,}`},
	{"(\"a\"{\n2 ,\n 3\n})", `"a"{2,3}`},
	{`"a" # comment`, `"a"`},
	{`"a"# comment`, `"a"`},
	{`"a" #`, `"a"`},
	{`"a" # "b"`, `"a"`},
	{`"a" #| "b"`, `"a"`},
}

func TestParseGBNFBodies(t *testing.T) {
	for _, tc := range gbnfBodyTests {
		g, err := grammar.ParseGBNF("root ::= "+tc.body, "", grammar.Limits{})
		if !assert.NoError(t, err, "%q", tc.body) {
			continue
		}
		assert.Equal(t, "root ::= "+tc.want+"\n", g.String(), "%q", tc.body)
		assert.NoError(t, g.Validate(), "%q", tc.body)
	}
}

// gbnfGrammarTests are whole grammars and what Grammar.String prints for them.
var gbnfGrammarTests = []struct{ src, want string }{
	{"root ::= a\na ::= \"x\"", "root ::= a\na ::= \"x\"\n"},
	{"a ::= \"x\"\nroot ::= a", "root ::= a\na ::= \"x\"\n"},
	{"root ::= a-b\na-b ::= \"x\"", "root ::= a-b\na-b ::= \"x\"\n"},
	{"root ::= r2d2\nr2d2 ::= \"x\"", "root ::= r2d2\nr2d2 ::= \"x\"\n"},
	{"root ::= 2x\n2x ::= \"x\"", "root ::= 2x\n2x ::= \"x\"\n"},
	{"root ::= -x\n-x ::= \"x\"", "root ::= -x\n-x ::= \"x\"\n"},
	{"root ::= Value\nValue ::= \"x\"", "root ::= Value\nValue ::= \"x\"\n"},
	{"root ::= ---\n--- ::= \"x\"", "root ::= ---\n--- ::= \"x\"\n"},
	{`root ::= root "a" | "b"`, "root ::= ((root \"a\") | \"b\")\n"},
	{`root ::= "(" root ")" | ""`, "root ::= ((\"(\" root \")\") | \"\")\n"},
	{"root ::= a b a\na ::= \"x\"\nb ::= \"y\"", "root ::= (a b a)\na ::= \"x\"\nb ::= \"y\"\n"},
	{"root ::= b\na ::= \"unused\"\nb ::= \"y\"", "root ::= b\nb ::= \"y\"\na ::= \"unused\"\n"},
	{"root ::= a\na ::= b\nb ::= c\nc ::= \"z\"", "root ::= a\na ::= b\nb ::= c\nc ::= \"z\"\n"},
	{"root ::= expr\nexpr ::= term (\"+\" term)*\nterm ::= [0-9]+", "root ::= expr\nexpr ::= (term (\"+\" term){0,})\nterm ::= [0-9]{1,}\n"},
	{"\n\n# leading comment\nroot ::= \"a\"\n\n\n", "root ::= \"a\"\n"},
	{"root ::= \"a\"\r\nb ::= \"b\"\r\n", "root ::= \"a\"\nb ::= \"b\"\n"},
	{"root ::= \"a\"\rb ::= \"b\"", "root ::= \"a\"\nb ::= \"b\"\n"},
	{"root ::= \"a\"   \n", "root ::= \"a\"\n"},
	{`  root ::= "a"`, "root ::= \"a\"\n"},
	{"\troot\t::=\t\"a\"\t", "root ::= \"a\"\n"},
	{`root::="a"`, "root ::= \"a\"\n"},
	{"root ::=\n  \"a\"", "root ::= \"a\"\n"},
	{"root ::= # the root\n  \"a\"", "root ::= \"a\"\n"},
	{`root ::=`, "root ::= \"\"\n"},
	{"root ::= (\n  a |\n  b\n)\na ::= \"a\"\nb ::= \"b\"", "root ::= (a | b)\na ::= \"a\"\nb ::= \"b\"\n"},
	{"root ::= a\n# comment between\n\na ::= \"x\" # trailing\n", "root ::= a\na ::= \"x\"\n"},
	{"root ::= x{2}\nx ::= \"ab\"", "root ::= x{2}\nx ::= \"ab\"\n"},
	{"root ::= \"a\" |\n  \"b\" |\n  \"c\"", "root ::= (\"a\" | \"b\" | \"c\")\n"},
	{"root ::= (\"a\" \"b\"\n  \"c\")", "root ::= (\"a\" \"b\" \"c\")\n"},
	{"root ::= a\na ::= (b)*\nb ::= a | \"x\"", "root ::= a\na ::= b{0,}\nb ::= (a | \"x\")\n"},
	{"root ::= \"a\"\n#", "root ::= \"a\"\n"},
	{`root ::= "a" # no newline at end`, "root ::= \"a\"\n"},
	{"root ::= \"a\" |\r\n  \"b\"\r\n", "root ::= (\"a\" | \"b\")\n"},
	{"root ::= (\r\n\"a\"\r\n)\r\n", "root ::= \"a\"\n"},
	{`root ::= [a-z]+ "@" [a-z]+ ("." [a-z]+)+`, "root ::= ([a-z]{1,} \"@\" [a-z]{1,} (\".\" [a-z]{1,}){1,})\n"},
	{"root ::= item+\nitem ::= \"- \" [^\\n]+ \"\\n\"", "root ::= item{1,}\nitem ::= (\"- \" [\\x00-\\x09\\x0B-\\uD7FF\\uE000-\\U0010FFFF]{1,} \"\\n\")\n"},
}

func TestParseGBNFGrammars(t *testing.T) {
	for _, tc := range gbnfGrammarTests {
		g, err := grammar.ParseGBNF(tc.src, "", grammar.Limits{})
		if !assert.NoError(t, err, "%q", tc.src) {
			continue
		}
		assert.Equal(t, tc.want, g.String(), "%q", tc.src)
	}
}

// gbnfErrorTests are invalid grammars and the whole error message for each.
var gbnfErrorTests = []struct{ src, want string }{
	// Slips llama.cpp reads some meaning into (see ParseGBNF).
	{`root ::= "a" |`, `gbnf:1:14: '|' with nothing after it (an empty alternative is written first, as in x ::= | "a", or as "")`},
	{`root ::= "x" ("a" | ) "y"`, `gbnf:1:19: '|' with nothing after it (an empty alternative is written first, as in x ::= | "a", or as "")`},
	{`root ::= ( | )`, `gbnf:1:12: '|' with nothing after it (an empty alternative is written first, as in x ::= | "a", or as "")`},
	{`root ::= "a"++`, `gbnf:1:14: repetition operator '+' right after another: group what it repeats, as in (x+)*`},
	{`root ::= "a"??`, `gbnf:1:14: repetition operator '?' right after another: group what it repeats, as in (x+)*`},
	{`root ::= "a"*?`, `gbnf:1:14: repetition operator '?' right after another: group what it repeats, as in (x+)*`},
	{`root ::= "a"{1,3}{1,3}`, `gbnf:1:18: repetition operator '{' right after another: group what it repeats, as in (x+)*`},
	{`root ::= "a" * {2}`, `gbnf:1:16: repetition operator '{' right after another: group what it repeats, as in (x+)*`},
	{"root ::= [a\nb]", `gbnf:1:12: line break inside the character class opened at 1:10 (write \n or \r, or close it with ']')`},
	{"root ::= [a\r\n", `gbnf:1:12: line break inside the character class opened at 1:10 (write \n or \r, or close it with ']')`},
	{`root ::= foo`, `gbnf:1:10: undefined rule "foo"`},
	{`root ::= foo bar foo`, "gbnf:1:10: undefined rule \"foo\"\ngbnf:1:14: undefined rule \"bar\""},
	{`root ::= ("a" | missing)*`, `gbnf:1:17: undefined rule "missing"`},
	{"root ::= a\na ::= b", `gbnf:2:7: undefined rule "b"`},
	{"a ::= \"x\"\na ::= \"y\"\nroot ::= a", `gbnf:2:1: rule "a" is already defined at 1:1`},
	{"root ::= \"x\"\nroot ::= \"y\"", `gbnf:2:1: rule "root" is already defined at 1:1`},
	{`x ::= "a"`, `gbnf: missing root rule "root"`},
	{``, `gbnf: missing root rule "root"`},
	{"# only a comment\n", `gbnf: missing root rule "root"`},
	{`root`, `gbnf:1:5: expected "::=" after rule name "root", found end of input`},
	{`root "a"`, `gbnf:1:6: expected "::=" after rule name "root", found '"'`},
	{`root :: "a"`, `gbnf:1:6: expected "::=" after rule name "root", found ':'`},
	{`root := "a"`, `gbnf:1:6: expected "::=" after rule name "root", found ':'`},
	{`root = "a"`, `gbnf:1:6: expected "::=" after rule name "root", found '='`},
	{`::= "a"`, `gbnf:1:1: expected rule name, found ':'`},
	{"root ::= \"a\"\n::= \"b\"", `gbnf:2:1: expected rule name, found ':'`},
	{"root ::= \"a\"\n  \"b\"", `gbnf:2:3: expected rule name, found '"' (a rule goes on to the next line only after "::=", '|' or inside parentheses)`},
	{"root ::= \nother ::= \"x\"", `gbnf:2:7: unexpected "::=": this line continues the rule before it, which goes on to the next line after "::=", '|' or inside parentheses`},
	{"root ::= \"a\" |\nb ::= \"x\"", `gbnf:2:3: unexpected "::=": this line continues the rule before it, which goes on to the next line after "::=", '|' or inside parentheses`},
	{`root ::= "abc`, `gbnf:1:10: unterminated string literal`},
	{"root ::= \"abc\nnext ::= \"x\"", `gbnf:2:12: unterminated string literal`},
	{`root ::= "\`, `gbnf:1:11: unterminated escape`},
	{`root ::= [abc`, `gbnf:1:10: unterminated character class`},
	{`root ::= [`, `gbnf:1:10: unterminated character class`},
	{`root ::= [^`, `gbnf:1:10: unterminated character class`},
	{`root ::= [a-`, `gbnf:1:10: unterminated character class`},
	{`root ::= [\`, `gbnf:1:11: unterminated escape`},
	{`root ::= "\q"`, `gbnf:1:11: unknown escape \q`},
	{`root ::= "\a"`, `gbnf:1:11: unknown escape \a`},
	{`root ::= "\0"`, `gbnf:1:11: unknown escape \0`},
	{`root ::= "\'"`, `gbnf:1:11: unknown escape \'`},
	{`root ::= [\^]`, `gbnf:1:11: unknown escape \^`},
	{`root ::= [\d]`, `gbnf:1:11: unknown escape \d`},
	{`root ::= "\x4"`, `gbnf:1:11: escape \x needs 2 hex digits, found 1`},
	{`root ::= "\xZZ"`, `gbnf:1:11: escape \x needs 2 hex digits, found 0`},
	{`root ::= "\x"`, `gbnf:1:11: escape \x needs 2 hex digits, found 0`},
	{`root ::= "\u12"`, `gbnf:1:11: escape \u needs 4 hex digits, found 2`},
	{`root ::= "\u12G4"`, `gbnf:1:11: escape \u needs 4 hex digits, found 2`},
	{`root ::= "\U0010FFF"`, `gbnf:1:11: escape \U needs 8 hex digits, found 7`},
	{`root ::= "\U00110000"`, `gbnf:1:11: escape \U00110000 is beyond U+10FFFF`},
	{`root ::= "\UFFFFFFFF"`, `gbnf:1:11: escape \UFFFFFFFF is beyond U+10FFFF`},
	{`root ::= [\U00110000]`, `gbnf:1:11: escape \U00110000 is beyond U+10FFFF`},
	{`root ::= "\uD800"`, `gbnf:1:11: surrogate code point U+D800 cannot be encoded in UTF-8`},
	{`root ::= "\uDFFF"`, `gbnf:1:11: surrogate code point U+DFFF cannot be encoded in UTF-8`},
	{`root ::= [\uDC00]`, `gbnf:1:11: surrogate code point U+DC00 cannot be encoded in UTF-8`},
	{`root ::= [\uD800-\uDFFF]`, `gbnf:1:10: character class [\uD800-\uDFFF] matches no code point`},
	{`root ::= [^\x00-\U0010FFFF]`, `gbnf:1:10: character class [^\x00-\U0010FFFF] matches no code point`},
	{"root ::= \"\xff\"", `gbnf:1:11: invalid UTF-8 byte 0xFF`},
	{"root ::= [\xc3]", `gbnf:1:11: invalid UTF-8 byte 0xC3`},
	{`root ::= []`, `gbnf:1:10: empty character class`},
	{`root ::= [^]`, `gbnf:1:10: empty character class`},
	{`root ::= [z-a]`, `gbnf:1:11: invalid character range z-a: U+007A is above U+0061`},
	{`root ::= [\x7F-\x00]`, `gbnf:1:11: invalid character range \x7F-\x00: U+007F is above U+0000`},
	{`root ::= [b-a]`, `gbnf:1:11: invalid character range b-a: U+0062 is above U+0061`},
	{`root ::= "a"{`, `gbnf:1:14: expected a number in repetition, found end of input`},
	{"root ::= \"a\"{\n2}", `gbnf:1:14: expected a number in repetition, found end of line`},
	{`root ::= "a"{}`, `gbnf:1:14: expected a number in repetition, found '}'`},
	{`root ::= "a"{a}`, `gbnf:1:14: expected a number in repetition, found 'a'`},
	{`root ::= "a"{1`, `gbnf:1:15: expected ',' or '}' in repetition, found end of input`},
	{`root ::= "a"{1,`, `gbnf:1:16: expected '}' to close repetition at 1:13, found end of input`},
	{`root ::= "a"{1,2`, `gbnf:1:17: expected '}' to close repetition at 1:13, found end of input`},
	{`root ::= "a"{1 2}`, `gbnf:1:16: expected ',' or '}' in repetition, found '2'`},
	{`root ::= "a"{1,2,3}`, `gbnf:1:17: expected '}' to close repetition at 1:13, found ','`},
	{`root ::= "a"{3,2}`, `gbnf:1:13: repetition {3,2} has a maximum below its minimum`},
	{`root ::= "a"{,}`, `gbnf:1:14: expected a number in repetition, found ','`},
	{`root ::= "a"{,3}`, `gbnf:1:14: expected a number in repetition, found ','`},
	{`root ::= "a"{-1}`, `gbnf:1:14: expected a number in repetition, found '-'`},
	{`root ::= "a"{10001}`, `gbnf:1:14: repetition count 10001 is above Limits.GBNFRepeat (10000)`},
	{`root ::= "a"{0,10001}`, `gbnf:1:16: repetition count 10001 is above Limits.GBNFRepeat (10000)`},
	{`root ::= "a"{5,99999}`, `gbnf:1:16: repetition count 99999 is above Limits.GBNFRepeat (10000)`},
	{`root ::= "a"{99999999999999999999}`, `gbnf:1:14: repetition count 99999999999999999999 is above Limits.GBNFRepeat (10000)`},
	{`root ::= ("a"{101}){100}`, `gbnf:1:20: nested repetitions multiply to more copies than Limits.GBNFRepeat (10000)`},
	{`root ::= (("a"{10}){10}){101}`, `gbnf:1:25: nested repetitions multiply to more copies than Limits.GBNFRepeat (10000)`},
	{`root ::= (((((([^x]*){0,99}){0,99}){0,99}){0,99}){0,99}){0,99}`, `gbnf:1:36: nested repetitions multiply to more copies than Limits.GBNFRepeat (10000)`},
	{`root ::= *`, `gbnf:1:10: repetition operator '*' has nothing to repeat`},
	{`root ::= +`, `gbnf:1:10: repetition operator '+' has nothing to repeat`},
	{`root ::= ?`, `gbnf:1:10: repetition operator '?' has nothing to repeat`},
	{`root ::= {2}`, `gbnf:1:10: repetition operator '{' has nothing to repeat`},
	{`root ::= "a" | *`, `gbnf:1:16: repetition operator '*' has nothing to repeat`},
	{`root ::= (*)`, `gbnf:1:11: repetition operator '*' has nothing to repeat`},
	{`root ::= ("a" | +)`, `gbnf:1:17: repetition operator '+' has nothing to repeat`},
	{`root ::= (`, `gbnf:1:10: unclosed '('`},
	{`root ::= ("a"`, `gbnf:1:10: unclosed '('`},
	{`root ::= (("a")`, `gbnf:1:10: unclosed '('`},
	{"root ::= (\"a\"\n", `gbnf:1:10: unclosed '('`},
	{`root ::= "a")`, `gbnf:1:13: unexpected ')'`},
	{`root ::= )`, `gbnf:1:10: unexpected ')'`},
	{`root ::= ("a" ]`, `gbnf:1:15: expected ')' to close '(' at 1:10, found ']'`},
	{`root ::= ("a" ::= )`, `gbnf:1:15: expected ')' to close '(' at 1:10, found ':'`},
	{`root ::= <[1000]`, `gbnf:1:17: expected '>' to close the token set that starts at 1:10, found end of input`},
	{`root ::= !"a"`, `gbnf:1:11: expected a token terminal <token> or <[...]> after '!', found '"'`},
	{`root ::= "a" <think "b"`, `gbnf:1:20: expected '>' to end the token text that starts at 1:14, found ' ' (a token's text holds no blank, control character, quote or backslash)`},
	{`root ::= %json {"type": "string"}`, `gbnf:1:10: %json needs a JSON Schema compiler: parse with ParseGBNFOptions and GBNFOptions{JSONSchema: jsonschema.Embed}`},
	{`root ::= "a" ;`, `gbnf:1:14: unexpected ';'`},
	{`root ::= @`, `gbnf:1:10: unexpected '@'`},
	{`root ::= a_b`, `gbnf:1:11: unexpected '_'`},
	{`root ::= "a" , "b"`, `gbnf:1:14: unexpected ','`},
	{`root ::= "a" \ "b"`, `gbnf:1:14: unexpected '\\'`},
	{`root ::= 'a'`, `gbnf:1:10: unexpected '\''`},
	{`root ::= "a" }`, `gbnf:1:14: unexpected '}'`},
	{"root ::= \"a\"\x00", `gbnf:1:13: unexpected '\x00'`},
	{"root ::= ok\nok ::= \"x\"\nbad1 ::= \"y\nbad2 ::= [\nbad3 ::= (", `gbnf:3:10: unterminated string literal`},
	{"root ::= a\nbad ::= )\nalso ::= ]\nroot2 ::= b", "gbnf:1:10: undefined rule \"a\"\ngbnf:2:9: unexpected ')'\ngbnf:3:10: unexpected ']'\ngbnf:4:11: undefined rule \"b\""},
	{`root ::= "a"{3,2} | [z-a] | "\q"`, `gbnf:1:13: repetition {3,2} has a maximum below its minimum`},
}

func TestParseGBNFErrors(t *testing.T) {
	for _, tc := range gbnfErrorTests {
		g, err := grammar.ParseGBNF(tc.src, "", grammar.Limits{})
		if !assert.Error(t, err, "%q", tc.src) {
			continue
		}
		assert.Nil(t, g, "%q", tc.src)
		assert.Equal(t, tc.want, err.Error(), "%q", tc.src)
		checkGBNFError(t, tc.src, err)
	}
}

// checkGBNFError checks the shape every ParseGBNF error has: an *Error or an
// ErrorList of them, from the "gbnf" source, with positions that agree with
// the source text.
func checkGBNFError(t *testing.T, src string, err error) {
	t.Helper()
	checkSourceError(t, "gbnf", src, err)
}

// checkSourceError checks that err is an ErrorList or *Error of the
// front-end source whose positions match their offsets in src.
func checkSourceError(t *testing.T, source, src string, err error) {
	t.Helper()
	var list grammar.ErrorList
	if !errors.As(err, &list) {
		var e *grammar.Error
		require.True(t, errors.As(err, &e), "%q: error %T is neither *Error nor ErrorList", src, err)
		list = grammar.ErrorList{e}
	}
	require.NotEmpty(t, list)
	for _, e := range list {
		assert.Equal(t, source, e.Source)
		if e.Pointer != "" {
			assert.True(t, strings.HasPrefix(e.Msg, "%json: "), "%q: a JSON pointer on an error that is not a %%json schema's: %v", src, e)
		}
		assert.NotEmpty(t, e.Msg)
		if !e.Pos.IsValid() {
			continue
		}
		p := e.Pos
		if assert.True(t, p.Offset >= 0 && p.Offset <= len(src), "%q: offset %d", src, p.Offset) {
			before := src[:p.Offset]
			assert.Equal(t, strings.Count(before, "\n")+1, p.Line, "%q: line of offset %d", src, p.Offset)
			assert.Equal(t, len(before)-strings.LastIndexByte(before, '\n'), p.Col, "%q: column of offset %d", src, p.Offset)
		}
	}
}

func TestParseGBNFStructure(t *testing.T) {
	g, err := grammar.ParseGBNF(`root ::= "h\xE9" [a-c] . x{2,5} (y | "")* z?
x ::= [^a]
y ::= "y"+
z ::= "\U0001F600"`, "", grammar.Limits{})
	require.NoError(t, err)
	require.Len(t, g.Rules, 4)
	assert.Equal(t, 0, g.Root)
	assert.Equal(t, []string{"root", "x", "y", "z"}, []string{g.Rules[0].Name, g.Rules[1].Name, g.Rules[2].Name, g.Rules[3].Name})

	body := g.Rules[0].Body
	require.Equal(t, grammar.OpSeq, body.Op)
	require.Len(t, body.Subs, 6)

	lit := body.Subs[0]
	assert.Equal(t, grammar.OpBytes, lit.Op)
	assert.Equal(t, []byte("h\xC3\xA9"), lit.Bytes, "\\xE9 is the code point U+00E9, UTF-8 encoded")

	class := body.Subs[1]
	assert.Equal(t, grammar.OpClass, class.Op)
	assert.Equal(t, []grammar.RuneRange{{'a', 'c'}}, class.Ranges)

	anyChar := body.Subs[2]
	assert.Equal(t, grammar.OpClass, anyChar.Op)
	assert.Equal(t, []grammar.RuneRange{{0, 0xD7FF}, {0xE000, 0x10FFFF}}, anyChar.Ranges)

	rep := body.Subs[3]
	assert.Equal(t, grammar.OpRepeat, rep.Op)
	assert.Equal(t, 2, rep.Min)
	assert.Equal(t, 5, rep.Max)
	require.Len(t, rep.Subs, 1)
	assert.Equal(t, grammar.OpRef, rep.Subs[0].Op)
	assert.Equal(t, 1, rep.Subs[0].Rule)

	star := body.Subs[4]
	assert.Equal(t, grammar.OpRepeat, star.Op)
	assert.Equal(t, 0, star.Min)
	assert.Equal(t, -1, star.Max)
	alt := star.Subs[0]
	require.Equal(t, grammar.OpAlt, alt.Op)
	require.Len(t, alt.Subs, 2)
	assert.Equal(t, grammar.OpRef, alt.Subs[0].Op)
	assert.Equal(t, 2, alt.Subs[0].Rule)
	assert.Equal(t, grammar.OpEmpty, alt.Subs[1].Op)

	opt := body.Subs[5]
	assert.Equal(t, grammar.OpRepeat, opt.Op)
	assert.Equal(t, 0, opt.Min)
	assert.Equal(t, 1, opt.Max)

	negated := g.Rules[1].Body
	assert.Equal(t, grammar.OpClass, negated.Op)
	assert.Equal(t, []grammar.RuneRange{{0, 'a' - 1}, {'b', 0xD7FF}, {0xE000, 0x10FFFF}}, negated.Ranges)

	plus := g.Rules[2].Body
	assert.Equal(t, grammar.OpRepeat, plus.Op)
	assert.Equal(t, 1, plus.Min)
	assert.Equal(t, -1, plus.Max)

	emoji := g.Rules[3].Body
	assert.Equal(t, grammar.OpBytes, emoji.Op)
	assert.Equal(t, []byte("\U0001F600"), emoji.Bytes)
	assert.True(t, utf8.Valid(emoji.Bytes))
}

func TestParseGBNFRoot(t *testing.T) {
	const src = "start ::= item\nitem ::= \"x\"\n"
	g, err := grammar.ParseGBNF(src, "start", grammar.Limits{})
	require.NoError(t, err)
	assert.Equal(t, "start", g.Rules[g.Root].Name)
	assert.Equal(t, "start ::= item\nitem ::= \"x\"\n", g.String())

	g, err = grammar.ParseGBNF(src, "item", grammar.Limits{})
	require.NoError(t, err)
	assert.Equal(t, "item ::= \"x\"\nstart ::= item\n", g.String(), "the root prints first")

	_, err = grammar.ParseGBNF(src, "", grammar.Limits{})
	assert.EqualError(t, err, `gbnf: missing root rule "root"`)
	_, err = grammar.ParseGBNF(src, "nope", grammar.Limits{})
	assert.EqualError(t, err, `gbnf: missing root rule "nope"`)

	g, err = grammar.ParseGBNF("root ::= \"r\"\nother ::= \"o\"", "", grammar.Limits{})
	require.NoError(t, err)
	assert.Equal(t, "root", g.Rules[g.Root].Name, `"" means "root"`)
}

func TestParseGBNFErrorValues(t *testing.T) {
	_, err := grammar.ParseGBNF("root ::= \"a\"\n  value ::= x | %json {}\n", "", grammar.Limits{})
	var e *grammar.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, grammar.Pos{Line: 2, Col: 17, Offset: 29}, e.Pos)
	assert.ErrorIs(t, err, grammar.ErrUnsupported)
	assert.NotErrorIs(t, err, grammar.ErrLimit)

	_, err = grammar.ParseGBNF(`root ::= "a"{10001}`, "", grammar.Limits{})
	assert.ErrorIs(t, err, grammar.ErrLimit)
	assert.NotErrorIs(t, err, grammar.ErrUnsupported)

	_, err = grammar.ParseGBNF(`root ::= "a"{3,2}`, "", grammar.Limits{})
	assert.NotErrorIs(t, err, grammar.ErrLimit)

	// Several errors come back as an ErrorList in source order.
	_, err = grammar.ParseGBNF("root ::= a\nbad ::= )\nalso ::= \"a\" ]\n# fine\nlast ::= \"x\" | b{2,1}\n", "", grammar.Limits{})
	var list grammar.ErrorList
	require.ErrorAs(t, err, &list)
	require.Len(t, list, 4)
	assert.Equal(t, []int{1, 2, 3, 5}, []int{list[0].Pos.Line, list[1].Pos.Line, list[2].Pos.Line, list[3].Pos.Line})
	assert.Contains(t, list[0].Msg, `undefined rule "a"`)
	assert.ErrorAs(t, err, &e, "errors.As finds an *Error inside the list")
}

func TestParseGBNFLimits(t *testing.T) {
	big := "root ::= \"" + strings.Repeat("a", grammar.DefaultLimits().GBNFBytes) + "\""
	_, err := grammar.ParseGBNF(big, "", grammar.Limits{})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	ok := "root ::= \"" + strings.Repeat("a", grammar.DefaultLimits().GBNFBytes-11) + "\""
	require.Len(t, ok, grammar.DefaultLimits().GBNFBytes)
	_, err = grammar.ParseGBNF(ok, "", grammar.Limits{})
	assert.NoError(t, err)

	deep := "root ::= " + strings.Repeat("(", grammar.DefaultLimits().GBNFDepth+1) + `"a"` + strings.Repeat(")", grammar.DefaultLimits().GBNFDepth+1)
	_, err = grammar.ParseGBNF(deep, "", grammar.Limits{})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	fine := "root ::= " + strings.Repeat("(", grammar.DefaultLimits().GBNFDepth) + `"a"` + strings.Repeat(")", grammar.DefaultLimits().GBNFDepth)
	_, err = grammar.ParseGBNF(fine, "", grammar.Limits{})
	assert.NoError(t, err)

	d := grammar.DefaultLimits().GBNFDepth
	reps := "root ::= " + strings.Repeat("(", d) + `"a"?` + strings.Repeat(")?", d)
	_, err = grammar.ParseGBNF(reps, "", grammar.Limits{})
	assert.ErrorIs(t, err, grammar.ErrLimit, "repetitions nested one deeper than the groups")

	_, err = grammar.ParseGBNF(`root ::= "a"{10000}`, "", grammar.Limits{})
	assert.NoError(t, err)
	_, err = grammar.ParseGBNF(`root ::= ("a"{100}){100}`, "", grammar.Limits{})
	assert.NoError(t, err, "a product of exactly the limit is allowed")
	_, err = grammar.ParseGBNF(`root ::= ("a"{100} | "b"{100}){100}`, "", grammar.Limits{})
	assert.NoError(t, err, "alternatives take the larger count, not the sum")
	_, err = grammar.ParseGBNF(`root ::= ("a"* "b"{2}){5000}`, "", grammar.Limits{})
	assert.NoError(t, err, "an unbounded repetition counts as its minimum")
	_, err = grammar.ParseGBNF(`root ::= ("a"{101}){100}`, "", grammar.Limits{})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	// Each bound comes from the Limits passed in, and its error names the field.
	for _, tc := range []struct {
		src   string
		lim   grammar.Limits
		field string
	}{
		{`root ::= "abcdef"`, grammar.Limits{GBNFBytes: 10}, "GBNFBytes"},
		{`root ::= "a"{6}`, grammar.Limits{GBNFRepeat: 5}, "GBNFRepeat"},
		{`root ::= ("a"{3}){2}`, grammar.Limits{GBNFRepeat: 5}, "GBNFRepeat"},
		{`root ::= ((("a")))`, grammar.Limits{GBNFDepth: 2}, "GBNFDepth"},
		{`root ::= (("a"?)?)?`, grammar.Limits{GBNFDepth: 2}, "GBNFDepth"},
	} {
		_, err := grammar.ParseGBNF(tc.src, "", tc.lim)
		assert.ErrorIs(t, err, grammar.ErrLimit, "%q", tc.src)
		assert.ErrorContains(t, err, "Limits."+tc.field, "%q", tc.src)
		_, err = grammar.ParseGBNF(tc.src, "", grammar.Limits{})
		assert.NoError(t, err, "%q under the defaults", tc.src)
	}
}

// TestParseGBNFLlamaGrammars parses llama.cpp's sample grammars and compares
// the printed grammar with the golden files in testdata (go test -update
// rewrites them).
func TestParseGBNFLlamaGrammars(t *testing.T) {
	dir := datadir.Shared(t, "gbnf", "llama.cpp", "grammars")
	files, err := filepath.Glob(filepath.Join(dir, "*.gbnf"))
	require.NoError(t, err)
	require.Len(t, files, 8)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".gbnf")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			g, err := grammar.ParseGBNF(string(src), "", grammar.Limits{})
			require.NoError(t, err)
			require.NoError(t, g.Validate())
			golden := filepath.Join("testdata", "gbnf_"+name+".golden")
			if updateGolden() {
				require.NoError(t, os.WriteFile(golden, []byte(g.String()), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), g.String())
		})
	}
}

func FuzzParseGBNF(f *testing.F) {
	for _, tc := range gbnfBodyTests {
		f.Add("root ::= " + tc.body)
	}
	for _, tc := range gbnfGrammarTests {
		f.Add(tc.src)
	}
	for _, tc := range gbnfErrorTests {
		f.Add(tc.src)
	}
	for _, tc := range gbnfTokenTests {
		f.Add("root ::= " + tc.body)
	}
	for _, tc := range gbnfTokenErrorTests {
		f.Add(tc.src)
	}
	for _, tc := range gbnfExtensionTests {
		f.Add("root ::= " + tc.body)
	}
	if dir := datadir.SharedDir(); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "gbnf", "llama.cpp", "grammars", "*.gbnf"))
		for _, file := range files {
			if src, err := os.ReadFile(file); err == nil {
				f.Add(string(src))
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		g, err := grammar.ParseGBNFOptions(src, grammar.GBNFOptions{JSONSchema: jsonschema.Embed})
		if err != nil {
			require.Nil(t, g)
			checkGBNFError(t, src, err)
			return
		}
		require.NoError(t, g.Validate())
		require.Equal(t, "root", g.Rules[g.Root].Name)
		if !strings.Contains(src, "%json") {
			require.LessOrEqual(t, len(g.Rules), strings.Count(src, "::=")+len(src), "%q: more rules than the source can spell", src)
		}
		roundTrip(t, src, g)
		fuzzcheck.Compiles(t, src, withoutTokens(g))
	})
}

// TestPrintedGBNFReadsBack: the printer writes only escapes the reader
// knows (FuzzParseGBNF found \v from strconv.Quote and \^ in classes).
func TestPrintedGBNFReadsBack(t *testing.T) {
	for _, src := range []string{
		"root ::= \"\v\a\b\f\x7f\"",
		`root ::= [0^]`,
		`root ::= [\x5E] "\x5E"`,
		`root ::= [^^a]`,
		"root ::= \"\u00a0\u2028\U0001F600\"",
	} {
		g, err := grammar.ParseGBNF(src, "root", grammar.Limits{})
		require.NoError(t, err, src)
		again, err := grammar.ParseGBNF(g.String(), "root", grammar.Limits{})
		require.NoError(t, err, "%s printed as %s", src, g.String())
		assert.Equal(t, g.String(), again.String(), src)
	}
}

// TestParseGBNFContext: a parse stops soon after its context is done, with
// an error wrapping the context's, and looks at the context rarely.
func TestParseGBNFContext(t *testing.T) {
	var src strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&src, "r%d ::= \"a\" \"b\" \"c\" \"d\" \"e\" r%d\n", i, i+1)
	}
	src.WriteString("r2000 ::= \"z\"\nroot ::= r0\n")
	g, err := grammar.ParseGBNF(src.String(), "root", grammar.Limits{})
	require.NoError(t, err)
	require.Len(t, g.Rules, 2002)

	ctx := ctxtest.NewCountdown(3)
	_, err = grammar.ParseGBNFContext(ctx, src.String(), "root", grammar.Limits{})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, int64(3), ctx.Calls(), "the parse stops at the first look after the end")

	ctx = ctxtest.NewCountdown(1 << 40)
	_, err = grammar.ParseGBNFContext(ctx, src.String(), "root", grammar.Limits{})
	require.NoError(t, err)
	assert.LessOrEqual(t, ctx.Calls(), int64(2000*7/1024+1), "one look per 1,024 items")
}
