// Package pda compiles a grammar IR into a pushdown automaton and runs it.
//
// Each rule becomes a minimized byte DFA whose symbol edges call other rules;
// a call pushes the state to return to. The runtime state is a set of stacks
// kept as a graph-structured stack: frames are shared and interned, and the
// stacks that reach the same node at the same byte depth are merged into one
// top whose frame is a join of theirs, so a depth holds at most one top per
// node and an ambiguous grammar never multiplies stacks (the two-way
// recursion s ::= "a" t | "a" u, fed "a" twenty times, keeps a few tops
// where unmerged stacks would number 2^20). The work of one byte is bounded
// by grammar.Limits.StepWork stack entries whatever the input; a grammar whose
// live stacks still grow with the input (a counter such as
// s ::= "a" s | "a" s "b" | "") has that byte refused with ErrStepLimit,
// which fails that sequence alone. A State advances by bytes, reports
// whether the grammar may end, and rolls back to any earlier byte depth, all
// without allocating once its arenas are warm.
//
// This is the implementation: its node-level API (Program's queries,
// Stepper, Top, Shape, PushReturn, ResetAt) is the contract between the
// automaton and the token index that package mask builds on top, and
// jump-forward's forced bytes. Users reach it through the public package
// pda, which wraps Program and State and exports nothing else. pda knows
// nothing of tokens.
package pda
