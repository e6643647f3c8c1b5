// Package grammar holds rein's grammar IR and the front-ends that produce it.
//
// A Grammar is a list of named rules; each rule body is an Expr tree of byte
// literals, code-point classes, sequences, alternations, bounded or unbounded
// repetitions, references to other rules and regular-expression terminals.
// Front-ends parse GBNF (ParseGBNF), XGrammar's EBNF (ParseEBNF), regular
// expressions (FromRegex) and choice lists (Choice) and provide a built-in
// JSON grammar (JSON); each
// returns a validated Grammar or an error that names the place (line:column
// or byte offset) and the reason. The JSON Schema front-end is package
// grammar/jsonschema, which builds the same IR and reports errors with the
// same Error type, naming a JSON pointer.
//
// XGrammar's EBNF is GBNF with rule bodies that span lines, names with '_'
// and '.', more escapes, and builtins: Regex("...") (an ECMAScript pattern,
// translated to Go's syntax where the two differ), Token and ExcludeToken
// (token terminals by id), TagDispatch (free text in which each tag is
// followed by its rule, built from Text and LitTokens, as structural tags'
// dispatch is) and TokenTagDispatch. Its lookahead assertions,
// "rule ::= body (= la)", are parsed and dropped: XGrammar's own matcher
// ignores them and uses them only to prune token masks, so the language is
// the grammar without them (ParseEBNF says more). Where XGrammar's
// semantics cannot be kept (max_tokens rule options, Regex json_string,
// TagDispatch stop strings), the parse fails with an error wrapping
// ErrUnsupported that names the line:column.
//
// The IR is pure data: it knows nothing of tokens or automata. Package pda
// compiles it into a pushdown automaton; package mask indexes that against a
// vocabulary.
package grammar
