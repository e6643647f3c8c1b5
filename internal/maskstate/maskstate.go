// Package maskstate hands package jumpforward, and the tests of mask and
// jumpforward, the byte-level pushdown state inside a mask.Matcher, which
// mask does not export: jump-forward reads the forced bytes and the bytes
// that may follow them straight from the automaton. It holds one function,
// set by package mask when it is initialized, so that neither package
// exports an internal type.
package maskstate

import "github.com/reinlm/rein/internal/pda"

// Of returns the pushdown state of m, a *mask.Matcher made by
// Compiled.NewMatcher (nil for anything else). Callers must leave the state
// as they found it: roll back whatever they advance.
var Of func(m any) *pda.State
