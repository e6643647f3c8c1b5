package fsm_test

import (
	"fmt"
	"regexp/syntax"

	"github.com/reinlm/rein/fsm"
)

// Build an NFA from a regular expression, determinize and minimize it, and
// match byte strings with the DFA.
func Example() {
	re, err := syntax.Parse(`-?(0|[1-9][0-9]*)(\.[0-9]+)?`, syntax.Perl)
	if err != nil {
		panic(err)
	}
	var n fsm.NFA
	start, end := n.NewState(), n.NewState()
	if err := n.Regexp(start, end, re); err != nil {
		panic(err)
	}
	d, err := fsm.Determinize(&n, start, []int{end}, 1000)
	if err != nil {
		panic(err)
	}
	d = d.Minimize()
	fmt.Println("states:", d.NumStates())
	for _, s := range []string{"0", "-12.5", "012", "1.", "3.14"} {
		fmt.Printf("%s %v\n", s, d.Match([]byte(s)))
	}
	// Output:
	// states: 6
	// 0 true
	// -12.5 true
	// 012 false
	// 1. false
	// 3.14 true
}

// Symbol edges stand for whatever the caller wants, such as calls of other
// grammar rules; they survive determinization as DFA.Calls.
func ExampleNFA_Symbol() {
	const item = 7 // the symbol of some other rule
	var n fsm.NFA
	start, open, next, end := n.NewState(), n.NewState(), n.NewState(), n.NewState()
	n.Bytes(start, open, '[', '[')
	n.Symbol(open, next, item)
	n.Bytes(next, open, ',', ',')
	n.Bytes(next, end, ']', ']')
	d, err := fsm.Determinize(&n, start, []int{end}, 100)
	if err != nil {
		panic(err)
	}
	d = d.Minimize()
	s := d.Next(d.Start, '[')
	fmt.Println(d.Calls[s])
	fmt.Println(d.Final[d.Next(d.NextSymbol(s, item), ']')])
	// Output:
	// [{7 2}]
	// true
}

// ForcedBytes gives the bytes every continuation from a state starts with,
// which a decoder can emit without asking the model.
func ExampleDFA_ForcedBytes() {
	re, err := syntax.Parse(`\{"name":"[a-z]+","age":[0-9]+\}`, syntax.Perl)
	if err != nil {
		panic(err)
	}
	var n fsm.NFA
	start, end := n.NewState(), n.NewState()
	if err := n.Regexp(start, end, re); err != nil {
		panic(err)
	}
	d, err := fsm.Determinize(&n, start, []int{end}, 1000)
	if err != nil {
		panic(err)
	}
	d = d.Minimize()
	s := d.Start
	fmt.Printf("%s\n", d.ForcedBytes(s))
	for _, b := range []byte(`{"name":"bob"`) {
		s = d.Next(s, b)
	}
	fmt.Printf("%s\n", d.ForcedBytes(s))
	// Output:
	// {"name":"
	// ,"age":
}
