// Package grammar holds rein's grammar IR and the front-ends that produce it.
//
// A Grammar is a list of named rules; each rule body is an Expr tree of byte
// literals, code-point classes, sequences, alternations, bounded or unbounded
// repetitions, references to other rules and regular-expression terminals.
// Front-ends parse GBNF (ParseGBNF), regular expressions (FromRegex) and
// choice lists (Choice) and provide a built-in JSON grammar (JSON); each
// returns a validated Grammar or an error that names the place (line:column
// or byte offset) and the reason. The JSON Schema front-end is package
// grammar/jsonschema, which builds the same IR and reports errors with the
// same Error type, naming a JSON pointer.
//
// The IR is pure data: it knows nothing of tokens or automata. Package pda
// compiles it into a pushdown automaton; package mask indexes that against a
// vocabulary.
package grammar
