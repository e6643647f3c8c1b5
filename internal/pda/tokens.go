package pda

import (
	"context"
	"fmt"
	"slices"

	"github.com/reinlm/rein/grammar"
)

// Token terminals. The automaton works on bytes, so a token terminal is
// spelled in bytes too: token class k is the three bytes ReservedByte,
// k>>8, k&0xFF. ReservedByte (0xFF) occurs in no UTF-8 text and no literal
// (grammar.Validate refuses it), so a class never mixes with text, and
// Advance refuses it: only AdvanceToken takes a class. Which tokens a class
// stands for is the caller's business (package mask partitions the
// vocabulary so that every token is in at most one class).

// MaxTokenClasses is the number of token classes a program can tell apart.
const MaxTokenClasses = 1 << 16

// TokenClasses gives each token terminal (an OpToken expression) of a grammar
// the token classes it matches.
type TokenClasses map[*grammar.Expr][]int

// CompileTokens is CompileContext for a grammar with token terminals:
// classes gives each one's token classes. A token terminal missing from
// classes is an error wrapping grammar.ErrUnsupported: token terminals mean
// something only against a vocabulary.
func CompileTokens(ctx context.Context, g *grammar.Grammar, lim grammar.Limits, classes TokenClasses) (*Program, error) {
	return compile(ctx, g, lim, classes, true)
}

// HasTokens reports whether the program has token terminals.
func (p *Program) HasTokens() bool { return p.hasTokens }

// tokenClasses adds to b's NFA, between from and to, the alternatives of e's
// token classes.
func (b *ruleBuilder) tokenClasses(e *grammar.Expr, from, to int) error {
	ks, ok := b.classes[e]
	if !ok {
		return fmt.Errorf("%w: token terminal %s needs a vocabulary: compile the grammar with package mask", grammar.ErrUnsupported, e)
	}
	b.tokens = true
	if len(ks) == 0 {
		return nil // no token of the vocabulary: nothing matches
	}
	esc, err := b.state()
	if err != nil {
		return err
	}
	b.n.Bytes(from, esc, grammar.ReservedByte, grammar.ReservedByte)
	// One state per high byte, then the low bytes as ranges.
	ks = slices.Clone(ks)
	slices.Sort(ks)
	for i := 0; i < len(ks); {
		hi := ks[i] >> 8
		mid, err := b.state()
		if err != nil {
			return err
		}
		b.n.Bytes(esc, mid, byte(hi), byte(hi))
		for i < len(ks) && ks[i]>>8 == hi {
			lo := ks[i]
			for i+1 < len(ks) && ks[i+1] == ks[i]+1 && ks[i+1]>>8 == hi {
				i++
			}
			b.n.Bytes(mid, to, byte(lo), byte(ks[i]))
			i++
		}
	}
	return nil
}

// AdvanceToken consumes token class k (see CompileTokens) and reports
// whether the grammar allows it there; refused, the state is unchanged.
func (s *State) AdvanceToken(k int) bool {
	if k < 0 || k >= MaxTokenClasses || !s.p.hasTokens {
		return false
	}
	d := s.Depth()
	if s.step(grammar.ReservedByte) && s.step(byte(k>>8)) && s.step(byte(k)) {
		return true
	}
	s.Rollback(d)
	return false
}

// AdvanceEither consumes one token that the grammar may take two ways: as
// its bytes bs, text, or as its token class k (an ordinary token that a
// token terminal also holds). The state after it holds the stacks of both
// readings, as an ambiguous grammar's state holds those of every parse, so
// what either reading allows next is allowed. It reports false, leaving
// the state unchanged, when neither reading is possible. Rollback to the
// depth before it undoes it, whatever it took.
func (s *State) AdvanceEither(bs []byte, k int) bool {
	d := s.Depth()
	if !s.AdvanceToken(k) {
		return s.AdvanceBytes(bs)
	}
	dt := s.Depth()
	src := d
	for _, b := range bs {
		if b == grammar.ReservedByte || !s.stepFrom(src, b) {
			s.Rollback(dt) // the text reading dies: the token's alone
			return true
		}
		src = s.Depth()
	}
	if len(bs) == 0 {
		return true
	}
	s.union(dt, src)
	return true
}

// union opens a new depth holding the tops of depths a and b, merged, which
// may end where either may.
func (s *State) union(a, b int) {
	s.beginDepth()
	nd := len(s.canEnd) - 1
	s.canEnd[nd] = s.canEnd[a] || s.canEnd[b]
	s.tops = append(s.tops, s.tops[s.depthOff[a]:s.depthOff[a+1]]...)
	s.tops = append(s.tops, s.tops[s.depthOff[b]:s.depthOff[b+1]]...)
	// A stack both readings reach is one stack: merge wants distinct
	// frames per node.
	lo := s.depthOff[len(s.depthOff)-1]
	slices.SortFunc(s.tops[lo:], func(x, y Top) int {
		if topLess(x, y) {
			return -1
		}
		if topLess(y, x) {
			return 1
		}
		return 0
	})
	s.tops = s.tops[:lo+int32(len(slices.Compact(s.tops[lo:])))]
	s.mergeDepth()
	s.endDepth()
}

// Budgeted returns a stack top of the state inside a rule with a token
// budget (RuleInfo.MaxTokens), the first in node order, and whether there
// is one.
func (s *State) Budgeted() (Top, bool) {
	if !s.p.budgets {
		return Top{}, false
	}
	for _, t := range s.Tops() {
		if s.p.Rules[s.p.nodeRule[t.Node]].MaxTokens > 0 {
			return t, true
		}
	}
	return Top{}, false
}

// TokenClasses calls fn with each token class the grammar allows next, in
// increasing order. The state is left as it was. It does not allocate once
// the state's arenas are warm.
func (s *State) TokenClasses(fn func(k int)) {
	if !s.p.hasTokens {
		return
	}
	d := s.Depth()
	if !s.step(grammar.ReservedByte) {
		return
	}
	his := s.NextBytes()
	for hi, ok := his.First(); ok; hi, ok = his.First() {
		his.Remove(hi)
		if !s.step(hi) {
			continue
		}
		los := s.NextBytes()
		for lo, ok := los.First(); ok; lo, ok = los.First() {
			los.Remove(lo)
			if s.step(lo) {
				fn(int(hi)<<8 | int(lo))
				s.Rollback(d + 2)
			}
		}
		s.Rollback(d + 1)
	}
	s.Rollback(d)
}
