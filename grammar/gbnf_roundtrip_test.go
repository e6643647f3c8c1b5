package grammar_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
)

// roundTripLimits reads printed grammars back: printing adds parentheses
// around every sequence and alternation, so the nesting may grow, and
// grammars that did not come from GBNF may count further than GBNF's
// default.
var roundTripLimits = grammar.Limits{GBNFDepth: 1 << 14, GBNFRepeat: 1 << 24, Rules: 1 << 20}

// roundTrip prints g, reads the text back and checks that the result is g
// up to the normalizations Grammar.String names, and that printing the
// result and reading it back changes nothing more (but the order of the
// rules, which are numbered as they first appear). It returns the grammar
// read back.
func roundTrip(t testing.TB, what string, g *grammar.Grammar) *grammar.Grammar {
	t.Helper()
	printed := g.String()
	root, _, _ := strings.Cut(printed, " ::= ")
	again, err := grammar.ParseGBNFOptions(printed, grammar.GBNFOptions{Root: root, Limits: roundTripLimits})
	require.NoError(t, err, "%s printed as\n%s", what, printed)
	if diff := grammarDiff(g, again, printed); diff != "" {
		t.Fatalf("%s printed as\n%s\nreads back as\n%s\n%s", what, printed, again, diff)
	}
	third, err := grammar.ParseGBNFOptions(again.String(), grammar.GBNFOptions{Root: root, Limits: roundTripLimits})
	require.NoError(t, err)
	want, got := strings.Split(again.String(), "\n"), strings.Split(third.String(), "\n")
	slices.Sort(want)
	slices.Sort(got)
	require.Equal(t, want, got, "%s: the printed form is not a fixed point", what)
	return again
}

// grammarDiff describes the first difference between want and got, which
// is want printed as printed and read back, or returns "". The rules are
// matched by the names printed gives them (the root first, then the others
// in order, one a line).
func grammarDiff(want, got *grammar.Grammar, printed string) string {
	lines := strings.Split(strings.TrimSuffix(printed, "\n"), "\n")
	if len(lines) != len(want.Rules) || len(got.Rules) != len(want.Rules) {
		return fmt.Sprintf("%d rules printed as %d lines read back as %d rules", len(want.Rules), len(lines), len(got.Rules))
	}
	index := map[string]int{}
	for i, r := range got.Rules {
		index[r.Name] = i
	}
	order := []int{want.Root}
	for i := range want.Rules {
		if i != want.Root {
			order = append(order, i)
		}
	}
	match := make([]int, len(want.Rules))
	for k, i := range order {
		name, _, _ := strings.Cut(lines[k], " ::= ")
		j, ok := index[name]
		if !ok {
			return fmt.Sprintf("rule %q printed as %q is missing", want.Rules[i].Name, name)
		}
		if gbnfName(want.Rules[i].Name) && name != want.Rules[i].Name {
			if n := slices.IndexFunc(want.Rules, func(r grammar.Rule) bool { return r.Name == want.Rules[i].Name }); n == i {
				return fmt.Sprintf("rule %q printed as %q", want.Rules[i].Name, name)
			}
		}
		match[i] = j
	}
	if got.Root != match[want.Root] {
		return "the root moved"
	}
	for i, r := range want.Rules {
		if d := exprDiff(r.Body, got.Rules[match[i]].Body, match); d != "" {
			return fmt.Sprintf("rule %q: %s", r.Name, d)
		}
	}
	return ""
}

func gbnfName(s string) bool {
	return s != "" && s != "-" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") == ""
}

// normal skips what a print and a read drop: sequences and alternations of
// one part, and the empty sequence.
func normal(e *grammar.Expr) *grammar.Expr {
	for (e.Op == grammar.OpSeq || e.Op == grammar.OpAlt) && len(e.Subs) == 1 {
		e = e.Subs[0]
	}
	if e.Op == grammar.OpSeq && len(e.Subs) == 0 {
		return grammar.Eps()
	}
	return e
}

// exprDiff describes the first difference between want and got, where a
// reference to rule i in want must be one to rule match[i] in got.
func exprDiff(want, got *grammar.Expr, match []int) string {
	want, got = normal(want), normal(got)
	if want.Op != got.Op {
		return fmt.Sprintf("%s reads back as %s", want, got)
	}
	same := true
	switch want.Op {
	case grammar.OpBytes:
		same = bytes.Equal(want.Bytes, got.Bytes) && want.Special == got.Special
	case grammar.OpClass:
		same = slices.Equal(withoutSurrogates(want.Ranges), got.Ranges)
	case grammar.OpSeq, grammar.OpAlt, grammar.OpRepeat:
		if len(want.Subs) != len(got.Subs) || want.Min != got.Min || want.Max != got.Max {
			return fmt.Sprintf("%s reads back as %s", want, got)
		}
		for i := range want.Subs {
			if d := exprDiff(want.Subs[i], got.Subs[i], match); d != "" {
				return d
			}
		}
	case grammar.OpRef:
		same = match[want.Rule] == got.Rule
	case grammar.OpRegex:
		same = want.Regexp.String() == got.Regexp.String()
	case grammar.OpToken:
		same = want.Negate == got.Negate && slices.Equal(want.TokenNames, got.TokenNames) && slices.Equal(want.Tokens, got.Tokens)
	case grammar.OpText:
		same = slices.Equal(want.Excludes, got.Excludes)
	}
	if !same {
		return fmt.Sprintf("%s reads back as %s", want, got)
	}
	return ""
}

func withoutSurrogates(rs []grammar.RuneRange) []grammar.RuneRange {
	var out []grammar.RuneRange
	for _, r := range rs {
		if r.Lo < 0xD800 {
			out = append(out, grammar.RuneRange{Lo: r.Lo, Hi: min(r.Hi, 0xD7FF)})
		}
		if r.Hi > 0xDFFF {
			out = append(out, grammar.RuneRange{Lo: max(r.Lo, 0xE000), Hi: r.Hi})
		}
	}
	return grammar.NormalizeRanges(out)
}

// withoutTokens returns a copy of g in which every token terminal is a
// literal, for checks with the pushdown compiler alone (token terminals
// need a vocabulary, package mask).
func withoutTokens(g *grammar.Grammar) *grammar.Grammar {
	c := g.Clone()
	for _, r := range c.Rules {
		stack := []*grammar.Expr{r.Body}
		for len(stack) > 0 {
			e := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if e.Op == grammar.OpToken {
				*e = *grammar.Lit("<token>")
			}
			stack = append(stack, e.Subs...)
		}
	}
	return c
}

// everyOp is a grammar with every operator and the corners of each that the
// printer must escape or rename.
func everyOp(t testing.TB) *grammar.Grammar {
	re, err := grammar.RegexExpr(`(?i)a/b[/x]\n+\d{2,3}(x|y)`, grammar.Limits{})
	require.NoError(t, err)
	g := &grammar.Grammar{}
	root := g.AddRule("root", nil)
	item := g.AddRule("item_x", nil) // '_' is no GBNF name character
	other := g.AddRule("item-x", grammar.Lit("clash"))
	dup := g.AddRule("", grammar.Eps())
	minus := g.AddRule("-", grammar.Lit("minus"))
	g.Rules[root].Body = grammar.Cat(
		grammar.Lit("quote \" backslash \\ newline \n tab \t nul \x00 é 😀 \u2028"),
		grammar.LitTokens("<|im_start|>assistant\n"),
		grammar.Chars(false, grammar.RuneRange{Lo: '^', Hi: '^'}, grammar.RuneRange{Lo: '-', Hi: '-'}, grammar.RuneRange{Lo: ']', Hi: ']'}, grammar.RuneRange{Lo: 0x10000, Hi: 0x10FFFF}),
		grammar.Chars(true, grammar.RuneRange{Lo: 'a', Hi: 'z'}),
		grammar.Or(grammar.Call(item), grammar.Call(other), grammar.Call(dup), grammar.Eps()),
		grammar.Rep(grammar.Cat(grammar.Lit("a"), grammar.Lit("b")), 0, -1),
		grammar.Rep(grammar.Rep(grammar.Lit("x"), 1, 3), 2, 2),
		grammar.Rep(grammar.Token("<|im_end|>"), 0, 1),
		re,
		grammar.Cat(grammar.Lit("one")),
		&grammar.Expr{Op: grammar.OpSeq},
		grammar.Chars(false, grammar.RuneRange{Lo: 0xD000, Hi: 0xD8FF}, grammar.RuneRange{Lo: 0xDA00, Hi: 0xE005}), // surrogates drop
		grammar.Cat(grammar.Text(), grammar.Call(minus), grammar.Or(grammar.Lit("a"), grammar.Lit("b"))),
	)
	g.Rules[item].Body = grammar.Or(
		grammar.Token("<think>"),
		grammar.Token("[TOOL_CALLS]"),
		grammar.Token("<a b>"),
		grammar.TokenIDs(5, 1, 2, 3),
		grammar.TokenSet(true, []string{"<|eot_id|>", "x\"y"}, []grammar.TokenRange{{Lo: 100, Hi: 200}, {Lo: 0, Hi: 0}}),
		grammar.TokenSet(true, []string{"<|eot_id|>"}, nil),
		grammar.AnyToken(),
		grammar.Text(),
		grammar.Text("</tool_call>", "a\"b\n"),
		grammar.Cat(grammar.Call(item), grammar.Call(root)),
	)
	require.NoError(t, g.Validate())
	return g
}

func TestPrintedGrammarReadsBackEveryOp(t *testing.T) {
	g := everyOp(t)
	again := roundTrip(t, "every op", g)
	printed := g.String()
	for _, want := range []string{
		`root ::= (`,
		`item-x-2 ::= (<think> | <["[TOOL_CALLS]"]> | <["<a b>"]> | <[1-3,5]> | <[^0,100-200,"<|eot_id|>","x\"y"]> | !<|eot_id|> | <[*]> | %text | %text -("</tool_call>" | "a\"b\n") | (item-x-2 root))`,
		`item-x ::= "clash"`,
		`rule ::= ""`,
		`rule-2 ::= "minus"`,
		`(%text rule-2 ("a" | "b"))`,
		`%lit_tokens "<|im_start|>assistant\n"`,
		`<|im_end|>{0,1}`,
		`/(?i:A\/B[\/Xx]\n+[0-9][0-9][0-9]?[XYxy])/`,
	} {
		assert.Contains(t, printed, want)
	}
	var names []string
	for _, r := range again.Rules {
		names = append(names, r.Name)
	}
	assert.Equal(t, []string{"root", "item-x-2", "item-x", "rule", "rule-2"}, names)
}

// TestPrintedGrammarsReadBack prints and reads back every grammar the
// tests have at hand: the golden files, llama.cpp's grammars and
// integration cases, the token and extension tables, and a stride of the
// MaskBench schemas compiled by jsonschema (regexps, shared expressions,
// names with '_').
func TestPrintedGrammarsReadBack(t *testing.T) {
	opts := grammar.GBNFOptions{JSONSchema: jsonschema.Embed}
	n := 0
	check := func(what, src string) {
		g, err := grammar.ParseGBNFOptions(src, opts)
		require.NoError(t, err, what)
		roundTrip(t, what, g)
		n++
	}
	goldens, err := filepath.Glob(filepath.Join("testdata", "gbnf_*.golden"))
	require.NoError(t, err)
	require.NotEmpty(t, goldens)
	for _, f := range goldens {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		check(f, string(src))
	}
	for _, tc := range gbnfGrammarTests {
		check(tc.src, tc.src)
	}
	for _, tc := range gbnfBodyTests {
		check(tc.body, "root ::= "+tc.body)
	}
	for _, tc := range gbnfTokenTests {
		check(tc.body, "root ::= "+tc.body)
	}
	for _, tc := range gbnfExtensionTests {
		check(tc.body, "root ::= "+tc.body)
	}
	for _, src := range gbnfJSONSources {
		check(src, src)
	}
	if dir := datadir.SharedDir(); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "gbnf", "llama.cpp", "grammars", "*.gbnf"))
		for _, f := range files {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			check(f, string(src))
		}
		data, err := os.ReadFile(filepath.Join(dir, "gbnf", "llama.cpp", "test-grammar-integration.cases.json"))
		require.NoError(t, err)
		var file llamaCases
		require.NoError(t, json.Unmarshal(data, &file))
		for _, c := range file.Cases {
			if c.Kind == "test_grammar" {
				check(c.Desc, c.Grammar)
			}
		}
	}
	set := datadir.MaskBench(t)
	schemas := 0
	for _, f := range set.Files(t, 100) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var file struct{ Schema json.RawMessage }
		require.NoError(t, json.Unmarshal(data, &file))
		g, err := jsonschema.Embed(file.Schema, grammar.Limits{})
		if err != nil {
			continue
		}
		roundTrip(t, filepath.Base(f), g)
		schemas++
	}
	t.Logf("%d GBNF grammars and %d compiled schemas read back", n, schemas)
	assert.NotZero(t, schemas)
}

// TestPrintedDeepGrammarReadsBack: the printer keeps its own stack, and a
// grammar nested as deep as the reader allows reads back.
func TestPrintedDeepGrammarReadsBack(t *testing.T) {
	deep := grammar.Lit("x")
	for i := range 10000 {
		if i%2 == 0 {
			deep = grammar.Cat(grammar.Lit("a"), deep)
		} else {
			deep = grammar.Or(deep, grammar.Token("<b>"))
		}
	}
	g := &grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: deep}}}
	printed := g.String()
	assert.True(t, strings.HasPrefix(printed, "root ::= "+strings.Repeat(`(("a" `, 3)), printed[:40])
	assert.Contains(t, printed, `(("a" "x") | <b>)) | <b>))`)
	assert.True(t, strings.HasSuffix(printed, ") | <b>)\n"), printed[len(printed)-40:])
	roundTrip(t, "deep", g)
}
