// Package fsm builds byte-level finite automata.
//
// An NFA is assembled from byte ranges, UTF-8 encoded code-point ranges,
// regexp/syntax trees and symbol edges (which package pda uses for rule
// calls); Determinize turns it into a DFA over byte classes and symbols, and
// Minimize merges equivalent states. A DFA also knows its singular paths: the
// bytes forced from a state until it branches or may stop, which jump-forward
// decoding appends without asking the model.
//
// fsm knows nothing of grammars or tokens.
package fsm
