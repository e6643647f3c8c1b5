// Package grammar holds rein's grammar IR and the front-ends that produce it.
//
// A Grammar is a list of named rules; each rule body is an Expr tree of byte
// literals, code-point classes, sequences, alternations, bounded or unbounded
// repetitions, references to other rules and regular-expression terminals.
// Front-ends parse GBNF (ParseGBNF), regular expressions (FromRegex), JSON
// Schema (FromJSONSchema), choice lists (Choice) and provide a built-in JSON
// grammar (JSON); each returns a validated Grammar or an error that names the
// place (line:column, byte offset or JSON pointer) and the reason.
//
// The IR is pure data: it knows nothing of tokens or automata. Package pda
// compiles it into a pushdown automaton; package mask indexes that against a
// vocabulary.
package grammar
