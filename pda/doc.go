// Package pda compiles a grammar IR into a pushdown automaton and runs it.
//
// Each rule becomes a minimized byte DFA whose symbol edges call other rules;
// a call pushes the state to return to. The runtime state is a set of stacks
// kept as a graph-structured stack: frames are shared and interned, stack tops
// are deduplicated, so ambiguous grammars stay polynomial. A State advances by
// bytes, reports whether the grammar may end, and rolls back to any earlier
// byte depth, all without allocating once its arenas are warm.
//
// pda knows nothing of tokens; package mask builds the token index on top.
package pda
