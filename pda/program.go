package pda

import (
	"context"
	"errors"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/pda"
)

// ErrLeftRecursion reports a rule that can call itself before consuming a
// byte (a ::= a "x" | "y"); the error names the rules of the cycle. Rewrite
// such a rule with repetition: a ::= "y" "x"*.
var ErrLeftRecursion = pda.ErrLeftRecursion

// ErrEmptyLanguage reports a grammar that matches no string at all (every
// derivation of its root calls a rule that never ends).
var ErrEmptyLanguage = pda.ErrEmptyLanguage

// ErrStepLimit reports a byte refused because it needed more stack work than
// grammar.Limits.StepWork allows: a grammar so ambiguous that its live
// stacks grow with the input. It wraps grammar.ErrLimit.
var ErrStepLimit = pda.ErrStepLimit

// errNoGrammar reports a nil grammar given to Compile.
var errNoGrammar = errors.New("pda: nil grammar")

// errNoProgram is the Err of a State made from a nil or zero Program, or a
// zero State: one that refuses every byte.
var errNoProgram = errors.New("pda: nil or zero Program or State (make one with Compile and NewState)")

// Program is a grammar compiled into a pushdown automaton. It is immutable
// and safe for concurrent use by any number of States.
type Program struct {
	p *pda.Program
}

// Compile compiles g into a Program, checking it on the way. Left recursion
// is rewritten away (grammar.RemoveLeftRecursion); where it cannot be (a
// left call behind something that may match the empty string), the error
// wraps ErrLeftRecursion and says why. A grammar that matches nothing is
// an error wrapping ErrEmptyLanguage, and an automaton larger than lim allows
// (its fields RuleStates, TotalStates and NFAStates) one wrapping
// grammar.ErrLimit that names the field. lim.StepWork bounds the work of the
// program's States. A zero field of lim means its default in
// grammar.DefaultLimits.
func Compile(g *grammar.Grammar, lim grammar.Limits) (*Program, error) {
	return CompileContext(context.Background(), g, lim)
}

// CompileContext is Compile that stops within about a millisecond once ctx
// ends, with an error wrapping ctx.Err().
func CompileContext(ctx context.Context, g *grammar.Grammar, lim grammar.Limits) (*Program, error) {
	if g == nil {
		return nil, errNoGrammar
	}
	p, err := pda.CompileContext(ctx, g, lim)
	if err != nil {
		return nil, err
	}
	return &Program{p: p}, nil
}

// NumNodes is the number of automaton states of all rules together, the
// figure grammar.Limits.TotalStates bounds.
func (p *Program) NumNodes() int {
	if p == nil || p.p == nil {
		return 0
	}
	return p.p.NumNodes()
}

// MemoryBytes estimates the memory the program's tables take.
func (p *Program) MemoryBytes() int {
	if p == nil || p.p == nil {
		return 0
	}
	return p.p.MemoryBytes()
}
