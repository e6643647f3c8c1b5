package pda

import (
	"bytes"

	"github.com/reinlm/rein/fsm"
	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/byteset"
)

// rulePath returns the bytes node n's rule forces from n: the singular path
// of its rule automaton (what fsm.DFA.ForcedBytes gives on the rule's DFA),
// which stops at a node that may end the rule, calls a rule, or has more
// than one byte to go on with. The table is built for all nodes on the
// first call, as an fsm.Paths; the slice is shared and must not be
// modified.
func (p *Program) rulePath(n int32) []byte {
	if n < 0 || n >= p.numNodes {
		return nil
	}
	p.pathOnce.Do(p.computePaths)
	return p.paths.Bytes(n)
}

// computePaths gives each node its forced successor inside its rule and
// lets fsm compress the chains. Every node of a Program can reach the end of
// its rule, so a node forces its one byte exactly when it has one byte to
// go on with, may not end the rule and calls none.
func (p *Program) computePaths() {
	next := make([]int32, p.numNodes)
	by := make([]byte, p.numNodes)
	for n := range p.numNodes {
		next[n] = -1
		fb := &p.firstByte[n]
		if p.final[n] || len(p.calls[n]) > 0 || fb.Len() != 1 {
			continue
		}
		by[n], _ = fb.First()
		next[n] = p.Next(n, by[n])
	}
	p.paths = fsm.NewPaths(next, by)
}

// NextBytes returns the bytes that may come next: those some stack top can
// take. The grammar may also end when CanEnd holds.
func (s *State) NextBytes() byteset.Set {
	var set byteset.Set
	p := s.p
	for _, t := range s.Tops() {
		set.Union(&p.firstByte[t.Node])
	}
	return set
}

// Forced appends to dst the bytes every continuation of the input consumed so
// far must start with, at most max of them, and returns the extended slice.
// The bytes run across rule calls and returns and across every stack of the
// graph-structured stack; they stop before the first point where the grammar
// may end or where more than one byte may come next. Byte-wise exact, they
// may end inside a UTF-8 sequence when only its first bytes are forced.
//
// It also returns next, the bytes that may follow the forced ones, and end,
// whether the grammar may end right after them; when max cut the forced
// bytes short, next is the one byte forced after them. The state is left
// exactly as it was. Once the state's arenas are warm and dst has room, it
// does not allocate.
func (s *State) Forced(dst []byte, max int) (forced []byte, next byteset.Set, end bool) {
	d0 := s.Depth()
	defer s.Rollback(d0)
	p := s.p
	n := 0
	for {
		if s.CanEnd() {
			return dst, s.NextBytes(), true
		}
		tops := s.Tops()
		if len(tops) == 1 && n < max {
			// One stack inside a rule: its automaton's singular path, read
			// from the table instead of byte by byte.
			path := p.rulePath(tops[0].Node)
			if i := bytes.IndexByte(path, grammar.ReservedByte); i >= 0 {
				path = path[:i] // a token terminal: tokens are not forced bytes
			}
			if len(path) > 0 {
				path = path[:min(len(path), max-n)]
				last := tops[0].Node
				for _, b := range path {
					last = p.Next(last, b)
				}
				dst = append(dst, path...)
				n += len(path)
				if n < max && !p.final[last] && len(p.calls[last]) == 0 {
					// The path stops where the rule branches, on this
					// stack alone: nothing more is forced.
					return dst, p.firstByte[last], false
				}
				if !s.AdvanceBytes(path) {
					return dst[:len(dst)-len(path)], s.NextBytes(), false
				}
				continue
			}
		}
		next = s.NextBytes()
		if next.Len() != 1 || n >= max {
			return dst, next, false
		}
		b, _ := next.First()
		if !s.Advance(b) {
			return dst, next, false
		}
		dst = append(dst, b)
		n++
	}
}
