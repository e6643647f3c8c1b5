package pda

import (
	"fmt"

	"github.com/reinlm/rein/grammar"
)

// ErrStepLimit reports a byte whose closure expanded more stack entries than
// grammar.Limits.StepWork allows: a grammar so ambiguous that its live stacks grow
// with the input. The byte is refused; the sequence should be failed.
var ErrStepLimit = fmt.Errorf("pda: one byte expanded more stack entries than Limits.StepWork: %w", grammar.ErrLimit)

// Top is one stack top of a State: a node of some rule and the frame it
// returns into (-1: the bottom, where popping means the grammar may end).
type Top struct {
	Node  int32
	Frame int32
}

// frame is an interned stack frame: the node to continue with after the
// current rule ends, and the frame below it.
type frame struct {
	ret    int32
	parent int32
}

// State is a run of a Program over bytes: a set of stacks kept as a
// graph-structured stack. Frames are interned, so stacks that agree below
// their tops share storage; stacks that reach the same node at the same depth
// are merged into one top whose frame joins theirs, so a depth holds at most
// one top per node; and the tops of every byte depth are kept so the state
// can roll back to any earlier depth. Only tops whose node has a byte
// transition are stored; whether the grammar may end is kept per depth.
//
// The work of one byte is bounded by the program's grammar.Limits.StepWork stack
// entries; a byte that needs more is refused and Err reports ErrStepLimit.
//
// A State is used by one goroutine at a time. Once its arenas have grown to
// the working size, Advance and Rollback do not allocate.
type State struct {
	p *Program
	closer

	tops     []Top
	depthOff []int32 // depthOff[d]: start of depth d's tops; len = depth+2
	canEnd   []bool  // per depth
	frameLen []int32 // per depth: len(frames) after that depth was built
}

// NewState returns a State at the start of the root rule.
func NewState(p *Program) *State {
	s := &State{p: p}
	s.closer.init(p)
	s.Reset()
	return s
}

// Reset returns the state to the start of the root rule.
func (s *State) Reset() {
	s.resetArenas()
	s.over = false
	s.beginDepth()
	s.closure(s.p.Root, -1)
	s.mergeDepth()
	s.endDepth()
}

// ResetAt puts the state at node n with an unknown caller: popping below n's
// rule is reported as CanEnd. Used to classify tokens per node.
func (s *State) ResetAt(n int32) {
	s.over = false
	s.resetArenas()
	s.beginDepth()
	s.tops = append(s.tops, Top{n, -1})
	s.endDepth()
}

func (s *State) resetArenas() {
	s.resetFrames()
	s.tops = s.tops[:0]
	s.depthOff = append(s.depthOff[:0], 0)
	s.canEnd = s.canEnd[:0]
	s.frameLen = s.frameLen[:0]
}

// Depth is the number of bytes consumed.
func (s *State) Depth() int { return len(s.canEnd) - 1 }

// Tops returns the stack tops at the current depth. The slice is valid until
// the next Advance, Rollback or Reset.
func (s *State) Tops() []Top {
	d := len(s.canEnd) - 1
	return s.tops[s.depthOff[d]:s.depthOff[d+1]]
}

// CanEnd reports whether the input consumed so far is a complete sentence
// (for a state made by ResetAt: whether the node's rule could have ended).
func (s *State) CanEnd() bool { return s.canEnd[len(s.canEnd)-1] }

// CanEndAt reports CanEnd as it was at depth d.
func (s *State) CanEndAt(d int) bool { return s.canEnd[d] }

// Err reports ErrStepLimit when a byte was refused since the last ClearErr
// (or Reset) because its closure exceeded the step work limit, and nil
// otherwise. A refused byte leaves the state unchanged either way; Err tells
// a caller that the refusal is not the grammar's verdict.
func (s *State) Err() error {
	if s.over {
		return ErrStepLimit
	}
	return nil
}

// ClearErr forgets a step-limit refusal.
func (s *State) ClearErr() { s.over = false }

// Advance consumes byte b. It reports false, leaving the state unchanged,
// when no stack can take b.
func (s *State) Advance(b byte) bool {
	if b == grammar.ReservedByte {
		return false // it spells token terminals, which only AdvanceToken takes
	}
	return s.step(b)
}

// step consumes b, ReservedByte included.
func (s *State) step(b byte) bool { return s.stepFrom(len(s.canEnd)-1, b) }

// stepFrom opens a new depth after the last one holding what the tops of
// depth src become on b. src is the last depth but for AdvanceEither,
// which steps a second reading of a token from an earlier depth.
func (s *State) stepFrom(src int, b byte) bool {
	last := len(s.canEnd) - 1
	lo, hi := s.depthOff[src], s.depthOff[src+1]
	base := s.depthOff[last+1]
	p := s.p
	if hi-lo == 1 {
		// One stack, moving to a node that neither calls nor ends a rule
		// (the inside of a string, a number, a keyword): no closure needed.
		t := s.tops[lo]
		nx := p.trans[p.base[t.Node]+int32(p.classes[p.classOff[t.Node]+int32(b)])]
		if nx < 0 {
			return false
		}
		if !p.final[nx] && len(p.calls[nx]) == 0 {
			s.canEnd = append(s.canEnd, false)
			s.tops = append(s.tops, Top{nx, t.Frame})
			s.endDepth()
			return true
		}
	}
	s.beginDepth()
	for i := lo; i < hi; i++ {
		t := s.tops[i]
		nx := p.trans[p.base[t.Node]+int32(p.classes[p.classOff[t.Node]+int32(b)])]
		if nx >= 0 {
			s.closure(nx, t.Frame)
		}
	}
	if s.over || int32(len(s.tops)) == base && !s.canEnd[last+1] {
		// Dead, or too much work: undo the depth we began.
		s.tops = s.tops[:base]
		s.truncateFrames(int(s.frameLen[last]))
		s.canEnd = s.canEnd[:last+1]
		return false
	}
	s.mergeDepth()
	s.endDepth()
	return true
}

// mergeDepth merges the tops of the depth being built that share a node.
func (s *State) mergeDepth() {
	lo := s.depthOff[len(s.depthOff)-1]
	s.tops = s.tops[:lo+int32(len(s.merge(s.tops[lo:])))]
}

// PushReturn opens a new depth, without consuming a byte, holding what the
// stacks of frame f continue with once the rule on top of f ends: the
// closure of f's return node over f's parent. It reports false (and opens
// nothing) when f is the bottom or nothing can follow. Callers use it to
// check the bytes a token has left after leaving a rule, then Rollback.
func (s *State) PushReturn(f int32) bool {
	if f < 0 {
		return false
	}
	d := len(s.canEnd) - 1
	s.beginDepth()
	var end bool
	s.tops, end = s.closeReturn(s.p, f, s.tops)
	if end {
		s.canEnd[d+1] = true
	}
	if s.over || int32(len(s.tops)) == s.depthOff[d+1] && !s.canEnd[d+1] {
		s.tops = s.tops[:s.depthOff[d+1]]
		s.truncateFrames(int(s.frameLen[d]))
		s.canEnd = s.canEnd[:d+1]
		return false
	}
	s.mergeDepth()
	s.endDepth()
	return true
}

// AdvanceBytes consumes bs. It reports false, leaving the state unchanged,
// when some byte cannot be taken.
func (s *State) AdvanceBytes(bs []byte) bool {
	d := s.Depth()
	for _, b := range bs {
		if !s.Advance(b) {
			s.Rollback(d)
			return false
		}
	}
	return true
}

// Rollback returns the state to depth d (0 <= d <= Depth()).
func (s *State) Rollback(d int) {
	if d >= len(s.canEnd)-1 {
		return
	}
	s.canEnd = s.canEnd[:d+1]
	s.depthOff = s.depthOff[:d+2]
	s.tops = s.tops[:s.depthOff[d+1]]
	s.frameLen = s.frameLen[:d+1]
	s.truncateFrames(int(s.frameLen[d]))
}

// copyFrom makes s an exact copy of o, reusing s's storage.
func (s *State) copyFrom(o *State) {
	s.p = o.p
	s.frames = append(s.frames[:0], o.frames...)
	s.stamps = append(s.stamps[:0], o.stamps...)
	s.stamp = o.stamp
	s.members = append(s.members[:0], o.members...)
	s.fdist = s.fdist[:0]
	s.maxWork = o.maxWork
	s.over = o.over
	s.ftab = append(s.ftab[:0], o.ftab...)
	s.fmask = o.fmask
	s.fused = o.fused
	s.tops = append(s.tops[:0], o.tops...)
	s.depthOff = append(s.depthOff[:0], o.depthOff...)
	s.canEnd = append(s.canEnd[:0], o.canEnd...)
	s.frameLen = append(s.frameLen[:0], o.frameLen...)
	if len(s.vtab) == 0 {
		s.initVisited()
	}
}

// Clone returns an independent copy of s.
func (s *State) Clone() *State {
	c := &State{}
	c.copyFrom(s)
	return c
}

// beginDepth opens depth d+1: its tops are appended after depth d's.
func (s *State) beginDepth() {
	s.canEnd = append(s.canEnd, false)
	s.newGeneration()
}

// endDepth closes the depth begun last.
func (s *State) endDepth() {
	s.depthOff = append(s.depthOff, int32(len(s.tops)))
	s.frameLen = append(s.frameLen, int32(len(s.frames)))
}

// closure adds the tops reachable from (n, f) without consuming a byte to
// the depth being built.
func (s *State) closure(n, f int32) {
	var end bool
	s.tops, end = s.closer.closure(s.p, n, f, s.tops)
	if end {
		s.canEnd[len(s.canEnd)-1] = true
	}
}

// SoleReturn returns the node frame f continues with once the rule on top of
// it ends and the frame below it, and false for the bottom or a join
// (stacks merged with several return nodes).
func (s *State) SoleReturn(f int32) (ret, below int32, ok bool) {
	if f < 0 || s.frames[f].ret == joinRet {
		return -1, -1, false
	}
	return s.frames[f].ret, s.frames[f].parent, true
}

// WatchPops makes the state note, until UnwatchPops, whether frame f (-1:
// the bottom) is popped: whether a step or PushReturn ends the rule whose
// stacks stand on it, even a step that is then refused. A caller deciding
// tokens from a frame's continuation learns this way which verdicts depended
// on the stack below it.
func (s *State) WatchPops(f int32) {
	s.watch, s.watching, s.popped = f, true, false
}

// UnwatchPops stops WatchPops.
func (s *State) UnwatchPops() { s.watching, s.popped = false, false }

// Popped reports whether the watched frame was popped since the last
// ClearPopped (or WatchPops).
func (s *State) Popped() bool { return s.popped }

// ClearPopped forgets that the watched frame was popped.
func (s *State) ClearPopped() { s.popped = false }

// FrameStamp returns frame f's stamp: a number no other frame of the state
// has had or will have, so that a frame id and its stamp name one stack
// (frame ids are reused once Rollback has removed their frames). f must be
// a frame of the state's tops (not the bottom, -1).
func (s *State) FrameStamp(f int32) uint64 { return s.stamps[f] }

// ReturnNode returns the node frame f continues with once the rule on top
// of it ends (for a join, its first member's), or -1 for the bottom.
func (s *State) ReturnNode(f int32) int32 {
	for f >= 0 {
		fr := s.frames[f]
		if fr.ret != joinRet {
			return fr.ret
		}
		f = s.joinMembers(fr)[0]
	}
	return -1
}
