// Package pda compiles a grammar into a pushdown automaton, checks it, and
// runs it over bytes. It is the package for grammar authors: to find out
// whether a grammar compiles, what it costs, and which byte strings it
// accepts, without a tokenizer. Engines that decode with a grammar use
// package mask, which compiles the same automaton and adds the token index.
//
// Compile turns a grammar.Grammar (from grammar.ParseGBNF, FromRegex, JSON
// and the others) into a Program: each rule becomes a minimized byte DFA
// whose rule references are calls. Left recursion (expr ::= expr "+" term |
// term) is rewritten away first (grammar.RemoveLeftRecursion). Compile
// refuses a grammar it could not run: left recursion it cannot rewrite
// (ErrLeftRecursion, with the reason), a grammar that matches nothing
// (ErrEmptyLanguage), and automata beyond grammar.Limits (an error wrapping
// grammar.ErrLimit that names the field). A Program is immutable
// and shared by any number of States.
//
// A State consumes bytes, tells whether the input so far is a complete
// sentence (CanEnd) and how far it is from one (BytesToEnd), which bytes may
// come next (NextBytes) and which are forced (Forced), and rolls back to any
// earlier byte. Its stacks are kept as a graph-structured stack, so an
// ambiguous grammar never multiplies them; the work of one byte is bounded by
// grammar.Limits.StepWork, and a byte that would need more is refused with
// ErrStepLimit (see State.Err), whatever the input.
//
// pda knows nothing of tokens.
package pda
