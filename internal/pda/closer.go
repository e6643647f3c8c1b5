package pda

import (
	"slices"

	"github.com/reinlm/rein/grammar"
)

// closer holds what computing closures needs: the interned stack frames and
// the set of (node, frame) pairs met in the current generation (one depth
// of a State, one step of a Stepper).
//
// A frame is either a call frame (the node to return to and the frame below
// it) or a join: the union of two or more call frames (or the bottom, -1),
// made when several stacks reach the same node at the same depth. Joins keep
// the stack a real graph-structured stack: an ambiguous grammar that would
// otherwise double its stacks on every byte keeps one top per node, and the
// work of a byte depends on the grammar, not on the length of the input. Both
// kinds are hash-consed: equal call frames, and joins of equal members, have
// equal ids (joins are not flattened, so the same stacks reached by
// different merges may still have different ids).
type closer struct {
	frames  []frame
	members []int32  // joins' members: a count, then the sorted frame ids
	fdist   []int32  // State.frameDistance's results for frames[:len(fdist)]
	stamps  []uint64 // per frame: its stamp (see FrameStamp)
	stamp   uint64   // the last stamp given: stamps are never given twice
	ftab    []int32  // open-addressing index of frames: 0 empty, -1 deleted, id+1
	fmask   uint32
	fused   int // non-empty entries of ftab

	work    []Top
	jwork   []int32  // joins left to expand in pop
	vtab    []uint64 // visited (node,frame) keys, tagged by generation
	vgen    []uint32
	gen     uint32
	vmask   uint32
	visits  int // (node, frame) pairs expanded in this generation
	maxWork int // visits allowed per generation (grammar.Limits.StepWork)
	over    bool
	scratch []int32

	// A watched frame: popped says whether its rule ended (the stacks on
	// it went on below it) since the last ClearPopped.
	watch            int32
	watching, popped bool
}

// joinRet marks a join in frame.ret; its parent field is the offset of its
// members in closer.members.
const joinRet = -2

func (s *closer) init(p *Program) {
	s.setLimit(p)
	s.ftab = make([]int32, 64)
	s.fmask = 63
	s.initVisited()
}

// setLimit takes p's step work limit: the stack entries one byte may expand
// (closure steps of one depth of a State, or one Step of a Stepper). Real
// grammars stay far below its default (at most 21 over every 4th MaskBench
// schema); a grammar whose ambiguity grows with the input trips it, and the
// byte is refused with ErrStepLimit.
func (s *closer) setLimit(p *Program) {
	s.maxWork = p.lim.StepWork
	if s.maxWork <= 0 {
		s.maxWork = grammar.DefaultLimits().StepWork
	}
}

func (s *closer) initVisited() {
	s.vtab = make([]uint64, 64)
	s.vgen = make([]uint32, 64)
	s.vmask = 63
}

func (s *closer) resetFrames() {
	s.frames = s.frames[:0]
	s.stamps = s.stamps[:0]
	s.members = s.members[:0]
	s.fdist = s.fdist[:0]
	clear(s.ftab)
	s.fused = 0
}

// newGeneration forgets every visited pair.
func (s *closer) newGeneration() {
	s.visits = 0
	s.gen++
	if s.gen == 0 {
		clear(s.vgen)
		s.gen = 1
	}
}

// closure appends to out the tops reachable from (n, f) without consuming a
// byte: rule calls push a frame, rule ends pop one. Pairs visited in this
// generation are skipped, so each is expanded once. It reports whether a
// rule end popped the bottom frame.
func (s *closer) closure(p *Program, n, f int32, out []Top) ([]Top, bool) {
	s.work = append(s.work[:0], Top{n, f})
	return s.drain(p, out)
}

// closeReturn is closure from what frame f continues with once the rule on
// top of it ends.
func (s *closer) closeReturn(p *Program, f int32, out []Top) ([]Top, bool) {
	s.work = s.work[:0]
	end := s.pop(f)
	out, end2 := s.drain(p, out)
	return out, end || end2
}

// drain expands the work list into out (see closure).
func (s *closer) drain(p *Program, out []Top) ([]Top, bool) {
	canEnd := false
	for len(s.work) > 0 {
		t := s.work[len(s.work)-1]
		s.work = s.work[:len(s.work)-1]
		if !s.visit(t) {
			continue
		}
		if s.visits++; s.visits > s.maxWork && s.maxWork > 0 {
			s.over = true
			s.work = s.work[:0]
			break
		}
		if p.final[t.Node] {
			canEnd = s.pop(t.Frame) || canEnd
		}
		for _, c := range p.calls[t.Node] {
			g := t.Frame
			if !c.Tail {
				g = s.intern(c.Return, t.Frame)
			}
			s.work = append(s.work, Top{c.Start, g})
		}
		if p.hasBytes[t.Node] {
			out = append(out, t)
		}
	}
	return out, canEnd
}

// pop pushes onto the work list what the stacks of frame f continue with once
// the rule on top of f ends, and reports whether one of them is the bottom
// (the grammar, or the caller of a ResetAt state, may end). Joins, which may
// hold joins, are expanded once per generation each.
func (s *closer) pop(f int32) bool {
	if s.watching && f == s.watch {
		s.popped = true
	}
	if f < 0 {
		return true
	}
	fr := s.frames[f]
	if fr.ret != joinRet {
		s.work = append(s.work, Top{fr.ret, fr.parent})
		return false
	}
	end := false
	s.jwork = append(s.jwork[:0], f)
	for len(s.jwork) > 0 {
		j := s.jwork[len(s.jwork)-1]
		s.jwork = s.jwork[:len(s.jwork)-1]
		if !s.visit(Top{joinRet, j}) {
			continue
		}
		if s.visits++; s.visits > s.maxWork && s.maxWork > 0 {
			s.over = true
			s.jwork = s.jwork[:0]
			return end
		}
		for _, m := range s.joinMembers(s.frames[j]) {
			if s.watching && m == s.watch {
				s.popped = true
			}
			switch {
			case m < 0:
				end = true
			case s.frames[m].ret == joinRet:
				s.jwork = append(s.jwork, m)
			default:
				mf := s.frames[m]
				s.work = append(s.work, Top{mf.ret, mf.parent})
			}
		}
	}
	return end
}

func (s *closer) joinMembers(fr frame) []int32 {
	n := s.members[fr.parent]
	return s.members[fr.parent+1 : fr.parent+1+n]
}

// merge sorts tops and replaces the tops that share a node by one top whose
// frame is the join of theirs. It returns the shortened slice. Joins are not
// flattened: a join's members may be joins, so merging costs what the merged
// tops number, never what their stacks hold.
func (s *closer) merge(tops []Top) []Top {
	if len(tops) < 2 {
		return tops
	}
	if len(tops) <= 16 {
		for i := 1; i < len(tops); i++ {
			for j := i; j > 0 && topLess(tops[j], tops[j-1]); j-- {
				tops[j], tops[j-1] = tops[j-1], tops[j]
			}
		}
	} else {
		slices.SortFunc(tops, func(x, y Top) int {
			if topLess(x, y) {
				return -1
			}
			if topLess(y, x) {
				return 1
			}
			return 0
		})
	}
	out := tops[:0]
	for i := 0; i < len(tops); {
		j := i + 1
		for j < len(tops) && tops[j].Node == tops[i].Node {
			j++
		}
		if j-i == 1 {
			out = append(out, tops[i])
			i = j
			continue
		}
		// The frames of a run are sorted and distinct already.
		s.scratch = s.scratch[:0]
		for _, t := range tops[i:j] {
			s.scratch = append(s.scratch, t.Frame)
		}
		out = append(out, Top{tops[i].Node, s.internJoin(s.scratch)})
		i = j
	}
	return out
}

func topLess(x, y Top) bool {
	return x.Node < y.Node || x.Node == y.Node && x.Frame < y.Frame
}

// visit marks (node, frame) as seen in the current generation and reports whether
// it was new.
func (s *closer) visit(t Top) bool {
	key := uint64(uint32(t.Node))<<32 | uint64(uint32(t.Frame))
	h := uint32((key * 0x9E3779B97F4A7C15) >> 40)
	for {
		i := h & s.vmask
		if s.vgen[i] != s.gen {
			s.vgen[i] = s.gen
			s.vtab[i] = key
			return true
		}
		if s.vtab[i] == key {
			return false
		}
		h++
		if h-uint32((key*0x9E3779B97F4A7C15)>>40) > s.vmask/2 {
			s.growVisited()
			return s.visit(t)
		}
	}
}

func (s *closer) growVisited() {
	// Rehash the current generation's keys into a table twice the size.
	oldTab, oldGen, g := s.vtab, s.vgen, s.gen
	size := 2 * len(oldTab)
	s.vtab = make([]uint64, size)
	s.vgen = make([]uint32, size)
	s.vmask = uint32(size - 1)
	for i, k := range oldTab {
		if oldGen[i] == g {
			h := uint32((k * 0x9E3779B97F4A7C15) >> 40)
			for s.vgen[h&s.vmask] == g {
				h++
			}
			s.vgen[h&s.vmask] = g
			s.vtab[h&s.vmask] = k
		}
	}
}

// intern returns the id of frame (ret, parent), creating it if needed.
func (s *closer) intern(ret, parent int32) int32 {
	key := frame{ret, parent}
	id, free := s.lookup(frameHash(key), func(fr frame) bool { return fr == key })
	if id >= 0 {
		return id
	}
	return s.insert(key, free)
}

// internJoin returns the id of the join of members (sorted, distinct, at
// least two), creating it if needed.
func (s *closer) internJoin(members []int32) int32 {
	id, free := s.lookup(joinHash(members), func(fr frame) bool {
		return fr.ret == joinRet && slices.Equal(s.joinMembers(fr), members)
	})
	if id >= 0 {
		return id
	}
	off := int32(len(s.members))
	s.members = append(s.members, int32(len(members)))
	s.members = append(s.members, members...)
	return s.insert(frame{joinRet, off}, free)
}

// lookup finds the frame with hash h that eq accepts in ftab, an
// open-addressing index (0 empty, -1 deleted, id+1 a frame). It returns its
// id, or -1 and the slot where it is to be inserted.
func (s *closer) lookup(h uint32, eq func(frame) bool) (id, free int32) {
	free = -1
	for probe := uint32(0); ; probe++ {
		i := (h + probe) & s.fmask
		e := s.ftab[i]
		if e == 0 {
			if free < 0 {
				free = int32(i)
				s.fused++
			}
			return -1, free
		}
		if e < 0 {
			if free < 0 {
				free = int32(i)
			}
			continue
		}
		if eq(s.frames[e-1]) {
			return e - 1, -1
		}
	}
}

// insert adds frame key at the free index slot.
func (s *closer) insert(key frame, free int32) int32 {
	id := int32(len(s.frames))
	s.frames = append(s.frames, key)
	s.stamp++
	s.stamps = append(s.stamps, s.stamp)
	s.ftab[free] = id + 1
	if s.fused*2 > len(s.ftab) {
		s.rehashFrames()
	}
	return id
}

func frameHash(f frame) uint32 {
	return (uint32(f.ret)*0x9E3779B1 ^ uint32(f.parent)*0x85EBCA77) * 0xC2B2AE3D
}

func joinHash(members []int32) uint32 {
	h := uint32(0x811C9DC5)
	for _, m := range members {
		h = (h ^ uint32(m)) * 0x01000193
	}
	return h * 0xC2B2AE3D
}

// hashOf is the index hash of frame fr: by content for a join.
func (s *closer) hashOf(fr frame) uint32 {
	if fr.ret == joinRet {
		return joinHash(s.joinMembers(fr))
	}
	return frameHash(fr)
}

// truncateFrames removes the frames from id n on, and their index entries.
func (s *closer) truncateFrames(n int) {
	cut := int32(-1)
	for id := len(s.frames) - 1; id >= n; id-- {
		fr := s.frames[id]
		h := s.hashOf(fr)
		if fr.ret == joinRet {
			// Joins are added in order: the earliest removed one marks
			// where the members of the kept ones end.
			cut = fr.parent
		}
		for probe := uint32(0); ; probe++ {
			i := (h + probe) & s.fmask
			if s.ftab[i] == int32(id)+1 {
				s.ftab[i] = -1
				break
			}
		}
	}
	s.frames = s.frames[:n]
	s.stamps = s.stamps[:n]
	s.fdist = s.fdist[:min(n, len(s.fdist))]
	if cut >= 0 {
		s.members = s.members[:cut]
	}
}

// rehashFrames rebuilds the index, dropping deleted entries, at a size that
// keeps it at most a quarter full.
func (s *closer) rehashFrames() {
	size := len(s.ftab)
	for size < 4*len(s.frames) {
		size *= 2
	}
	if size == len(s.ftab) {
		clear(s.ftab)
	} else {
		s.ftab = make([]int32, size)
	}
	s.fmask = uint32(size - 1)
	s.fused = len(s.frames)
	for id, fr := range s.frames {
		h := s.hashOf(fr)
		for probe := uint32(0); ; probe++ {
			i := (h + probe) & s.fmask
			if s.ftab[i] == 0 {
				s.ftab[i] = int32(id) + 1
				break
			}
		}
	}
}
