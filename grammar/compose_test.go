package grammar_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
)

func TestClone(t *testing.T) {
	g := everyOp(t)
	shared := grammar.Lit("shared")
	g.Rules[0].Body.Subs = append(g.Rules[0].Body.Subs, shared, grammar.Rep(shared, 0, 2))
	before := g.String()
	c := g.Clone()
	require.NoError(t, c.Validate())
	assert.Equal(t, before, c.String())

	// The copy shares nothing with g that a change could reach.
	body := c.Rules[0].Body
	n := len(body.Subs)
	assert.NotSame(t, shared, body.Subs[n-2])
	assert.Same(t, body.Subs[n-2], body.Subs[n-1].Subs[0], "a shared expression stays shared, once")
	assert.Same(t, g.Rules[0].Body.Subs[8].Regexp, body.Subs[8].Regexp, "regexps are shared")
	body.Subs[0].Bytes[0] = 'Q'
	body.Subs[2].Ranges[0].Lo = 'A'
	body.Subs[7].Subs[0].TokenNames[0] = "<changed>"
	c.Rules[1].Body.Subs[3].Tokens[0].Lo = 77
	c.Rules[1].Body.Subs[8].Excludes[0] = "changed"
	body.Subs = body.Subs[:1]
	c.Rules[2].Name = "renamed"
	// everyOp's root holds, in order: literals, classes, an alternation of
	// references, repetitions (the third of a token), a regexp.
	assert.Equal(t, before, g.String(), "g is as it was")

	// Nesting deeper than any recursion would like.
	deep := grammar.Lit("x")
	for range 50000 {
		deep = grammar.Rep(grammar.Cat(deep, grammar.Lit("y")), 0, 1)
	}
	dc := (&grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: deep}}}).Clone()
	depth := 0
	for e := dc.Rules[0].Body; e.Op == grammar.OpRepeat; e = e.Subs[0].Subs[0] {
		depth++
	}
	assert.Equal(t, 50000, depth)
}

func TestEmbed(t *testing.T) {
	sub := func() *grammar.Grammar {
		return &grammar.Grammar{Root: 1, Rules: []grammar.Rule{
			{Name: "ws", Body: grammar.Rep(grammar.Lit(" "), 0, -1)},
			{Name: "root", Body: grammar.Cat(grammar.Call(0), grammar.Call(2), grammar.Call(0))},
			{Name: "item", Body: grammar.Or(grammar.Lit("x"), grammar.Cat(grammar.Lit("("), grammar.Call(2), grammar.Lit(")")))},
		}}
	}
	for _, tc := range []struct {
		name   string
		own    []string // g's rules, each a literal
		prefix string
		want   []string // the names after embedding
		root   int
	}{
		{"empty grammar", nil, "", []string{"ws", "root", "item"}, 1},
		{"prefixed", []string{"root", "ws"}, "s-", []string{"root", "ws", "s-ws", "s-root", "s-item"}, 3},
		{"clashes", []string{"root", "ws", "ws-2"}, "", []string{"root", "ws", "ws-2", "ws-3", "root-2", "item"}, 4},
		{"prefixed clash", []string{"root", "s-item"}, "s-", []string{"root", "s-item", "s-ws", "s-root", "s-item-2"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &grammar.Grammar{}
			for _, n := range tc.own {
				g.Rules = append(g.Rules, grammar.Rule{Name: n, Body: grammar.Lit(n)})
			}
			s := sub()
			before := s.String()
			root := g.Embed(s, tc.prefix)
			assert.Equal(t, tc.root, root)
			var names []string
			for _, r := range g.Rules {
				names = append(names, r.Name)
			}
			assert.Equal(t, tc.want, names)
			for i, n := range tc.own {
				assert.Equal(t, grammar.Lit(n), g.Rules[i].Body, "g's own rules are untouched")
			}
			base := len(tc.own)
			body := g.Rules[root].Body
			assert.Equal(t, []int{base, base + 2, base}, []int{body.Subs[0].Rule, body.Subs[1].Rule, body.Subs[2].Rule}, "references renumbered")
			assert.Equal(t, base+2, g.Rules[base+2].Body.Subs[1].Subs[1].Rule)
			g.Rules[base].Body.Subs[0].Bytes[0] = '\t'
			assert.Equal(t, before, s.String(), "sub is not changed")
			g.Root = root
			require.NoError(t, g.Validate())
		})
	}
	g := &grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: grammar.Eps()}}}
	assert.Equal(t, -1, g.Embed(&grammar.Grammar{}, "x-"), "a grammar without rules")
	assert.Len(t, g.Rules, 1)
}

func TestAddRule(t *testing.T) {
	g := &grammar.Grammar{}
	list := g.AddRule("list", nil)
	g.Rules[list].Body = grammar.Or(grammar.Lit("x"), grammar.Cat(grammar.Lit("x,"), grammar.Call(list)))
	again := g.AddRule("list", grammar.Lit("y"))
	third := g.AddRule("list", grammar.Lit("z"))
	assert.Equal(t, []int{0, 1, 2}, []int{list, again, third})
	assert.Equal(t, "list ::= (\"x\" | (\"x,\" list))\nlist-2 ::= \"y\"\nlist-3 ::= \"z\"\n", g.String())
	require.NoError(t, g.Validate())
}

// ExampleGrammar_Embed builds a grammar from parts: a tool call whose
// arguments come from another grammar.
func ExampleGrammar_Embed() {
	args, err := grammar.ParseGBNF(`root ::= "{" pair ("," pair)* "}"
pair ::= [a-z]+ ":" [0-9]+`, "", grammar.Limits{})
	if err != nil {
		panic(err)
	}
	g := &grammar.Grammar{}
	call := g.AddRule("call", nil)
	argsRoot := g.Embed(args, "args-")
	g.Rules[call].Body = grammar.Cat(grammar.Token("<tool_call>"), grammar.Call(argsRoot), grammar.Token("</tool_call>"))
	g.Root = call
	if err := g.Validate(); err != nil {
		panic(err)
	}
	fmt.Print(g)
	// Output:
	// call ::= (<tool_call> args-root </tool_call>)
	// args-root ::= ("{" args-pair ("," args-pair){0,} "}")
	// args-pair ::= ([a-z]{1,} ":" [0-9]{1,})
}
