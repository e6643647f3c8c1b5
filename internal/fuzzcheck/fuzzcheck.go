// Package fuzzcheck holds what the front-ends' fuzz targets check of every
// grammar they produce: that the pushdown compiler takes it, or refuses it
// for a reason a well-formed grammar may have.
package fuzzcheck

import (
	"errors"
	"testing"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/pda"
)

// Limits bound the automata the fuzz targets build, so one input cannot take
// the fuzzer's whole time.
var Limits = grammar.Limits{RuleStates: 4000, TotalStates: 20000, NFAStates: 50000}

// Compiles compiles a grammar a front-end returned into a pushdown
// automaton under Limits. It must compile, or fail with an error wrapping one
// of the sentinels a well-formed grammar may meet (left recursion, an empty
// language, a limit: pda wraps every size error of fsm's in grammar.ErrLimit);
// it returns the program, or nil after such an error.
func Compiles(t testing.TB, what string, g *grammar.Grammar) *pda.Program {
	t.Helper()
	p, err := pda.Compile(g, Limits)
	if err == nil {
		return p
	}
	for _, sentinel := range []error{pda.ErrLeftRecursion, pda.ErrEmptyLanguage, grammar.ErrLimit} {
		if errors.Is(err, sentinel) {
			return nil
		}
	}
	t.Fatalf("%q: pda.Compile: %v (%T) wraps no known sentinel", what, err, err)
	return nil
}
