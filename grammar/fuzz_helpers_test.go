package grammar_test

import (
	"errors"
	"testing"

	"github.com/reinlm/rein/fsm"
	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/pda"
)

// fuzzLimits bound the automata the fuzz targets build, so one input cannot
// take the fuzzer's whole time.
var fuzzLimits = grammar.Limits{RuleStates: 4000, TotalStates: 20000, NFAStates: 50000}

// checkCompiles compiles a grammar a front-end returned into a pushdown
// automaton. It must compile, or fail with an error wrapping one of the
// sentinels a well-formed grammar may meet (left recursion, an empty
// language, a size limit); it returns the program, or nil after such an
// error.
func checkCompiles(t *testing.T, what string, g *grammar.Grammar) *pda.Program {
	t.Helper()
	p, err := pda.Compile(g, fuzzLimits)
	if err == nil {
		return p
	}
	for _, sentinel := range []error{pda.ErrLeftRecursion, pda.ErrEmptyLanguage, grammar.ErrLimit, fsm.ErrTooLarge} {
		if errors.Is(err, sentinel) {
			return nil
		}
	}
	t.Fatalf("%q: pda.Compile: %v (%T) wraps no known sentinel", what, err, err)
	return nil
}
