package grammar_test

import (
	"errors"
	"fmt"

	"github.com/reinlm/rein/grammar"
)

func ExampleParseGBNF() {
	g, err := grammar.ParseGBNF(`
# a list of items, one a line
root ::= item+
item ::= "- " [a-z ]+ "\n"
`, "", grammar.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(g)
	// Output:
	// root ::= item{1,}
	// item ::= ("- " [ a-z]{1,} "\n")
}

func ExampleParseGBNF_errors() {
	_, err := grammar.ParseGBNF(`root ::= greeting " " name
greeting ::= "hello" | "hi"{2,1}
`, "", grammar.Limits{})
	fmt.Println(err)

	var list grammar.ErrorList
	if errors.As(err, &list) {
		fmt.Println(len(list), "errors; the first at line", list[0].Pos.Line, "column", list[0].Pos.Col)
	}
	// Output:
	// gbnf:1:23: undefined rule "name"
	// gbnf:2:28: repetition {2,1} has a maximum below its minimum
	// 2 errors; the first at line 1 column 23
}

func ExampleFromRegex() {
	g, err := grammar.FromRegex(`^(?P<year>[0-9]{4})-(0[1-9]|1[0-2])$`, grammar.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(g)

	_, err = grammar.FromRegex(`\d+(?=px)`, grammar.Limits{})
	fmt.Println(err)
	fmt.Println(errors.Is(err, grammar.ErrUnsupported))
	// Output:
	// root ::= /[0-9][0-9][0-9][0-9]-(?:0[1-9]|1[0-2])/
	// regex:1:4: lookahead is not supported
	// true
}

func ExampleJSON() {
	g := grammar.JSON()
	for _, r := range g.Rules {
		fmt.Println(r.Name)
	}
	fmt.Println("whitespace runs are at most", grammar.JSONMaxWhitespace, "bytes")
	// Output:
	// root
	// ws
	// value
	// object
	// array
	// string
	// number
	// member
	// whitespace runs are at most 20 bytes
}

func ExampleChoice() {
	g, err := grammar.Choice([]string{"positive", "negative", "neutral"}, grammar.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(g)
	// Output:
	// root ::= ("positive" | "negative" | "neutral")
}

// Left-recursive rules, as grammar authors write them, come back as
// repetitions that match the same strings; package pda does this itself
// when it compiles a left-recursive grammar.
func ExampleRemoveLeftRecursion() {
	g, err := grammar.ParseGBNF(`root ::= expr
expr ::= expr "+" term | expr "-" term | term
term ::= term "*" num | num
num ::= [0-9]+`, "root", grammar.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err = grammar.RemoveLeftRecursion(g, grammar.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(g)
	// Output:
	// root ::= expr
	// expr ::= (term (("+" term) | ("-" term)){0,})
	// term ::= (num ("*" num){0,})
	// num ::= [0-9]{1,}
}

func ExampleParseEBNF() {
	g, err := grammar.ParseEBNF(`
# free text in which each <tool_call> starts a JSON-ish call
root ::= TagDispatch(("<tool_call>", call), excludes=("</answer>",))
call ::= "{" Regex("\"name\": \"[a-z_]+\"") "}"
`, grammar.EBNFOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(g)
	// Output:
	// root ::= ((%text -("<tool_call>" | "</answer>") (%lit_tokens "<tool_call>" call)){0,} %text -("<tool_call>" | "</answer>"))
	// call ::= ("{" /"name": "[_a-z]+"/ "}")
}
