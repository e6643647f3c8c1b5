package pda

// Stepper computes the successors of pushdown configurations, for callers
// that build their own automaton over configurations (token classification
// in package mask). A configuration is a set of stack tops; the frames they
// point into are interned and never dropped until Reset, so two
// configurations with equal sorted tops are the same stacks, and can be
// compared and hashed by them (the converse may fail, as joins are not
// flattened: equal stacks then just take two entries). Tops that share a
// node are merged as in a State, so Step returns them sorted, one per node.
//
// A Stepper is used by one goroutine at a time.
type Stepper struct {
	p *Program
	closer
	out []Top
}

// NewStepper returns a Stepper for p.
func NewStepper(p *Program) *Stepper {
	s := &Stepper{p: p}
	s.closer.init(p)
	return s
}

// Reset drops every frame and switches to program p (nil: keep the
// program), invalidating configurations returned so far.
func (s *Stepper) Reset(p *Program) {
	if p != nil {
		s.p = p
		s.closer.setLimit(p)
	}
	s.resetFrames()
	s.over = false
}

// Overflowed reports whether the last Step exceeded the step work limit; its
// result is then incomplete and must not be used.
func (s *Stepper) Overflowed() bool { return s.over }

// Close returns the configuration of a stack at node n with an unknown
// caller, closed over rule calls and ends as Step closes the successors it
// returns (for a node without bytes of its own, the tops it stands for),
// and whether n's rule may end there. The slice is valid until the next
// Step or Close; Overflowed reports a closure past the step work limit.
func (s *Stepper) Close(n int32) ([]Top, bool) {
	s.newGeneration()
	s.over = false
	out, end := s.closure(s.p, n, -1, s.out[:0])
	s.out = s.merge(out)
	return s.out, end
}

// CloseWithin is Close for a stack at node n whose rule returns to node
// ret, with an unknown caller below ret's rule: the end it reports is that
// of ret's rule.
func (s *Stepper) CloseWithin(n, ret int32) ([]Top, bool) {
	s.newGeneration()
	s.over = false
	f := s.intern(ret, -1)
	out, end := s.closure(s.p, n, f, s.out[:0])
	s.out = s.merge(out)
	return s.out, end
}

// Step consumes byte b from the configuration tops and returns the tops
// reached, and whether some stack ended its bottom rule on the way (for a
// configuration started with an unknown caller, as by State.ResetAt: the
// rule may have ended). The slice is valid until the next Step.
func (s *Stepper) Step(tops []Top, b byte) ([]Top, bool) {
	s.newGeneration()
	s.over = false
	s.out = s.out[:0]
	canEnd := false
	p := s.p
	for _, t := range tops {
		nx := p.trans[p.base[t.Node]+int32(p.classes[p.classOff[t.Node]+int32(b)])]
		if nx < 0 {
			continue
		}
		var end bool
		s.out, end = s.closure(p, nx, t.Frame, s.out)
		canEnd = canEnd || end
	}
	s.out = s.merge(s.out)
	return s.out, canEnd
}
