package pda_test

import (
	"errors"
	"fmt"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/pda"
)

// A grammar author compiles a grammar, which checks it, and runs a State over
// bytes to see what the grammar accepts.
func Example() {
	g, err := grammar.ParseGBNF(`root ::= "[" num ("," num)* "]"
num ::= [0-9]+`, "root", grammar.Limits{})
	if err != nil {
		panic(err)
	}
	p, err := pda.Compile(g, grammar.Limits{})
	if err != nil {
		panic(err)
	}
	st := pda.NewState(p)
	for _, in := range []string{"[12", ",3", "]", "x"} {
		ok := st.AdvanceBytes([]byte(in))
		fmt.Printf("%q: accepted %v, complete %v, %d bytes to the end\n", in, ok, st.CanEnd(), st.BytesToEnd())
	}
	st.Rollback(3)
	fmt.Printf("back to %d bytes: complete %v\n", st.Depth(), st.CanEnd())
	// Output:
	// "[12": accepted true, complete false, 1 bytes to the end
	// ",3": accepted true, complete false, 1 bytes to the end
	// "]": accepted true, complete true, 0 bytes to the end
	// "x": accepted false, complete true, 0 bytes to the end
	// back to 3 bytes: complete false
}

// Compile refuses a grammar it cannot run, with an error saying why.
func ExampleCompile_leftRecursion() {
	// Left recursion is rewritten away: expr runs as "1" ("+" "1")*.
	g, err := grammar.ParseGBNF(`root ::= expr
expr ::= expr "+" "1" | "1"`, "root", grammar.Limits{})
	if err != nil {
		panic(err)
	}
	p, err := pda.Compile(g, grammar.Limits{})
	if err != nil {
		panic(err)
	}
	s := pda.NewState(p)
	fmt.Println(s.AdvanceBytes([]byte("1+1+1")), s.CanEnd())

	// Behind a rule that may match nothing, it is not, and the error says
	// which rules cycle and why.
	g, err = grammar.ParseGBNF(`root ::= a
a ::= o a "x" | "y"
o ::= "o"?`, "root", grammar.Limits{})
	if err != nil {
		panic(err)
	}
	_, err = pda.Compile(g, grammar.Limits{})
	fmt.Println(errors.Is(err, pda.ErrLeftRecursion))
	fmt.Println(err)
	// Output:
	// true true
	// true
	// pda: rule "a" is left-recursive (a -> a): left recursion, and it cannot be rewritten away: rule "a" calls itself behind rule "o", which may match the empty string (unsupported)
}

// Forced gives the bytes every continuation must start with, across rule
// calls and returns, and leaves the state where it was.
func ExampleState_Forced() {
	g, err := grammar.ParseGBNF(`root ::= "SELECT " cols " FROM " table ";"
cols ::= "*" | "id" | "name"
table ::= "users" | "user_groups"`, "root", grammar.Limits{})
	if err != nil {
		panic(err)
	}
	p, err := pda.Compile(g, grammar.Limits{})
	if err != nil {
		panic(err)
	}
	st := pda.NewState(p)
	for _, s := range []string{"", "SELECT ", "i", "d FROM user_"} {
		st.AdvanceBytes([]byte(s))
		forced := st.Forced(nil, 64)
		fmt.Printf("after %q: forced %q, then %d possible bytes\n", s, forced, st.NextBytes().Len())
	}
	// Output:
	// after "": forced "SELECT ", then 1 possible bytes
	// after "SELECT ": forced "", then 3 possible bytes
	// after "i": forced "d FROM user", then 1 possible bytes
	// after "d FROM user_": forced "groups;", then 1 possible bytes
}
