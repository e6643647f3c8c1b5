package oracle_test

import (
	"fmt"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/oracle"
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
