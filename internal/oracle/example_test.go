package oracle_test

import (
	"fmt"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/oracle"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

func Example() {
	// greeting ::= "hi " [ぁ-ん]+
	g := &grammar.Grammar{Rules: []grammar.Rule{{
		Name: "greeting",
		Body: grammar.Cat(grammar.Lit("hi "), grammar.Rep(grammar.Chars(false, grammar.RuneRange{Lo: 'ぁ', Hi: 'ん'}), 1, -1)),
	}}}
	r, err := oracle.New(g)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Feed([]byte("hi \xE3\x81")), r.Complete()) // half of "あ"
	token := r.Clone()
	fmt.Println(token.Feed([]byte("\x82")), token.Complete()) // "あ"
	fmt.Println(r.Feed([]byte("\x80")))                       // U+3040 is outside the class
	// Output:
	// true false
	// true true
	// false
}

func ExampleMatcher() {
	voc, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	// root ::= %text -("<call>") "<call>" "{}"
	g := &grammar.Grammar{Rules: []grammar.Rule{{
		Name: "root",
		Body: grammar.Cat(grammar.Text("<call>"), grammar.Lit("<call>"), grammar.Lit("{}")),
	}}}
	m, err := oracle.NewMatcher(g, voc)
	if err != nil {
		panic(err)
	}
	id := func(s string) int {
		id, ok := voc.TokenID(s)
		if !ok {
			panic(s)
		}
		return id
	}
	eos := voc.StopTokens()[0]
	// The trigger "<call>" may be split across tokens, and follow text in one.
	fmt.Println(m.Accept(id("Sure")), m.Accept(id(".<")), m.Accept(id("call")))
	fmt.Println(m.Allowed(id("x")), m.Allowed(eos), m.Accept(id(">")))
	// "<call>" cannot be free text: it is the literal, and "{}" must follow.
	fmt.Println(m.Allowed(id("x")), m.Allowed(id("{")), m.Accept(id("{")), m.Accept(id("}")))
	fmt.Println(m.CanEnd(), m.Accept(eos), m.Terminated())
	// Output:
	// true true true
	// true false true
	// false true true true
	// true true true
}
