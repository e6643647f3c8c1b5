package pda

import (
	"math"

	"github.com/reinlm/rein/internal/byteset"
	"github.com/reinlm/rein/internal/pda"
)

// State is a run of a Program over bytes: it consumes input one byte at a
// time, tells whether the input so far is a complete sentence, and rolls back
// to any earlier byte. It is used by one goroutine at a time; Clone gives
// another goroutine its own copy. Once its storage has grown to the working
// size, Advance and Rollback do not allocate. A State of a nil or zero
// Program, or a zero State, refuses every byte and Err says why.
type State struct {
	s *pda.State
}

// NewState returns a State of p at the start of the grammar.
func NewState(p *Program) *State {
	if p == nil || p.p == nil {
		return &State{}
	}
	return &State{s: pda.NewState(p.p)}
}

func (s *State) ok() bool { return s != nil && s.s != nil }

// Advance consumes byte b and reports whether the grammar allows it. A
// refused byte leaves the state unchanged; Err then tells why.
func (s *State) Advance(b byte) bool {
	if !s.ok() {
		return false
	}
	s.s.ClearErr()
	return s.s.Advance(b)
}

// AdvanceBytes consumes bs and reports whether the grammar allows all of
// them. When one is refused the state is left as it was before the call, and
// Err tells why.
func (s *State) AdvanceBytes(bs []byte) bool {
	if !s.ok() {
		return false
	}
	s.s.ClearErr()
	return s.s.AdvanceBytes(bs)
}

// Err is nil when the last refused byte was refused by the grammar, and an
// error wrapping ErrStepLimit (and grammar.ErrLimit) when it was refused for
// needing more work than grammar.Limits.StepWork: then the grammar is to
// blame, not the input, and the sequence should be failed.
func (s *State) Err() error {
	if !s.ok() {
		return errNoProgram
	}
	return s.s.Err()
}

// CanEnd reports whether the input consumed so far is a complete sentence.
func (s *State) CanEnd() bool { return s.ok() && s.s.CanEnd() }

// BytesToEnd is the fewest bytes that complete the input consumed so far into
// a sentence: 0 when CanEnd holds, math.MaxInt32 when none can (a zero
// State).
func (s *State) BytesToEnd() int {
	if !s.ok() {
		return math.MaxInt32
	}
	return s.s.BytesToEnd()
}

// Depth is the number of bytes consumed since the start.
func (s *State) Depth() int {
	if !s.ok() {
		return 0
	}
	return s.s.Depth()
}

// Rollback returns the state to what it was after d bytes; d is clamped to
// [0, Depth()].
func (s *State) Rollback(d int) {
	if s.ok() {
		s.s.Rollback(max(d, 0))
	}
}

// Reset returns the state to the start of the grammar.
func (s *State) Reset() {
	if s.ok() {
		s.s.Reset()
	}
}

// Clone returns an independent copy of the state.
func (s *State) Clone() *State {
	if !s.ok() {
		return &State{}
	}
	return &State{s: s.s.Clone()}
}

// NextBytes returns the bytes the grammar allows next. The grammar may also
// end when CanEnd holds.
func (s *State) NextBytes() ByteSet {
	if !s.ok() {
		return ByteSet{}
	}
	return ByteSet{s.s.NextBytes()}
}

// Forced appends to dst the bytes every continuation of the input must start
// with, at most max of them, and returns the extended slice: the text a
// jump-forward engine can emit without asking the model. They run across
// rule calls and returns and stop before the first point where the grammar
// may end or more than one byte may come next, possibly inside a UTF-8
// character. The state is left as it was, Err included.
func (s *State) Forced(dst []byte, max int) []byte {
	if !s.ok() {
		return dst
	}
	err := s.s.Err()
	dst, _, _ = s.s.Forced(dst, max)
	if err == nil {
		s.s.ClearErr()
	}
	return dst
}

// ByteSet is a set of byte values, as NextBytes returns it.
type ByteSet struct {
	set byteset.Set
}

// Has reports whether b is in the set.
func (s ByteSet) Has(b byte) bool { return s.set.Has(b) }

// Len is the number of bytes in the set.
func (s ByteSet) Len() int { return s.set.Len() }
