package pda_test

import (
	"fmt"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/pda"
)

// Forced gives the bytes every continuation must start with, across rule
// calls and returns, and leaves the state where it was.
func ExampleState_Forced() {
	g, err := grammar.ParseGBNF(`root ::= "SELECT " cols " FROM " table ";"
cols ::= "*" | "id" | "name"
table ::= "users" | "user_groups"`, "root")
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
		forced, next, end := st.Forced(nil, 64)
		fmt.Printf("after %q: forced %q, then %d possible bytes, end %v\n", s, forced, next.Len(), end)
	}
	// Output:
	// after "": forced "SELECT ", then 3 possible bytes, end false
	// after "SELECT ": forced "", then 3 possible bytes, end false
	// after "i": forced "d FROM user", then 2 possible bytes, end false
	// after "d FROM user_": forced "groups;", then 0 possible bytes, end true
}
