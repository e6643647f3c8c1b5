// Package fsm builds byte-level finite automata: the terminals and rule bodies
// of rein's grammars, before package pda joins them with a stack; and
// code-point automata for the string constraints of the front-ends.
//
// # Data flow
//
// An NFA is assembled edge by edge: byte ranges (Bytes), code-point ranges
// compiled to UTF-8 byte sequences (Runes), regexp/syntax trees (Regexp),
// epsilon edges, and symbol edges (Symbol), which fsm does not interpret;
// package pda uses them for rule calls. Determinize turns an NFA into a DFA
// by the subset construction, Minimize merges equivalent states and drops
// useless ones, and Trim drops the states a restricted set of symbols can no
// longer complete. Each stage has its own file: nfa.go, utf8.go, regexp.go,
// determinize.go, minimize.go, trim.go, dfa.go and forced.go.
//
// # Bytes, not runes
//
// Automata read bytes, because tokens are byte strings that may split a
// UTF-8 sequence. Character classes become byte-range sequences, one per
// encoded length and leading-byte range, added in order into a trie whose
// equal subtrees are shared, so \p{L} or [^"] yields the minimal acyclic
// automaton of the class (a few states for [^"], under 300 for \p{L}).
// Surrogates, overlong forms and values past U+10FFFF are never accepted, so
// a DFA only ever accepts valid UTF-8.
//
// # Byte classes
//
// A DFA reads each byte through a class: Determinize splits the 256 byte
// values wherever some NFA range starts or ends, so bytes of one class are
// treated alike by every state, and its transition table has one column per
// class. Minimize and Trim merge the classes the result no longer tells apart.
//
// # Symbols
//
// Symbol edges are letters of the alphabet like byte classes: Determinize
// keeps at most one target per symbol and state (DFA.Calls), and Minimize only
// merges states that agree on them. Match ignores them; Trim and CanReachFinal
// take a predicate saying which symbols can be passed.
//
// # Forced bytes
//
// ForcedBytes reports, for a state, the bytes every accepted continuation
// starts with: the singular path that jump-forward decoding emits without
// asking the model. Minimize and Trim precompute it for all states, so a
// look-up is an index into a table.
//
// # Code points
//
// RuneDFA is the same automaton over decoded characters, for constraints
// on a string's contents that bytes state badly: its length in characters,
// the strings a pattern does not match. RuneRegexp, RuneLiterals and
// RuneLength build one, Intersect and Complement (relative to a universe of
// code points, usually ScalarValues) combine them, and ToRegexp turns one
// back into a regexp/syntax tree by state elimination. Its alphabet is runs
// of code points read through classes, so it shares the subset construction
// of Determinize and the refinement of Minimize with DFA (runes.go,
// eliminate.go).
//
// # Limits
//
// Determinize stops with an error wrapping ErrTooLarge once the DFA would
// exceed the caller's bound (the subset construction can be exponential),
// and Regexp stops once the NFA exceeds NFA.MaxStates (counted repetitions
// can be large); every RuneDFA construction takes a bound on its states, and
// ToRegexp bounds the expressions it builds (RegexpLimits). Features a byte
// automaton cannot express, such as word boundaries or anchors inside the
// expression, are errors wrapping ErrUnsupportedRegexp.
//
// fsm knows nothing of grammars or tokens and imports no other rein package.
package fsm
