package pda

import "math"

// unreachable is the distance of a node that cannot end its rule.
const unreachable = math.MaxInt32

// distances returns, for every node, the fewest bytes that take it to the end
// of its rule, counting a call as its callee's shortest match. It is computed
// on first use (only BytesToEnd needs it) by a worklist shortest-path
// relaxation over reverse edges, so each improvement re-examines only the
// nodes that depend on it.
func (p *Program) distances() []int32 {
	p.distOnce.Do(p.computeDistances)
	return p.dist
}

func (p *Program) computeDistances() {
	n := int(p.numNodes)
	dist := make([]int32, n)
	// deps[x]: nodes whose distance is computed from x's.
	deps := make([][]int32, n)
	for i := 0; i < n; i++ {
		dist[i] = unreachable
		row := p.trans[p.base[i] : p.base[i]+p.nclasses[p.nodeRule[i]]]
		for _, t := range row {
			if t >= 0 {
				deps[t] = append(deps[t], int32(i))
			}
		}
		for _, c := range p.calls[i] {
			deps[c.Start] = append(deps[c.Start], int32(i))
			deps[c.Return] = append(deps[c.Return], int32(i))
		}
	}
	queued := make([]bool, n)
	var queue []int32
	for i := 0; i < n; i++ {
		if p.final[i] {
			dist[i] = 0
			queue = append(queue, int32(i))
			queued[i] = true
		}
	}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		queued[x] = false
		for _, i := range deps[x] {
			best := dist[i]
			row := p.trans[p.base[i] : p.base[i]+p.nclasses[p.nodeRule[i]]]
			for _, t := range row {
				if t >= 0 && dist[t] != unreachable && dist[t]+1 < best {
					best = dist[t] + 1
				}
			}
			for _, c := range p.calls[i] {
				if a, b := dist[c.Start], dist[c.Return]; a != unreachable && b != unreachable && a+b < best {
					best = a + b
				}
			}
			if best < dist[i] {
				dist[i] = best
				if !queued[i] {
					queued[i] = true
					queue = append(queue, i)
				}
			}
		}
	}
	p.dist = dist
}

// BytesToEnd returns the fewest bytes that take node n to the end of its rule.
func (p *Program) BytesToEnd(n int32) int { return int(p.distances()[n]) }

// BytesToEnd returns the fewest bytes that complete the input consumed so
// far into a sentence (0 when it may end now).
func (s *State) BytesToEnd() int {
	if s.CanEnd() {
		return 0
	}
	dist := s.p.distances()
	best := unreachable
	for _, t := range s.Tops() {
		if d := int(dist[t.Node]); d < best {
			if d += s.frameDistance(t.Frame, dist); d < best {
				best = d
			}
		}
	}
	return best
}

// frameDistance is the fewest bytes that end every rule of the stacks of
// frame f. Frames are created after the frames below them, so one pass in id
// order computes them all; the results are kept for the frames that stay.
func (s *State) frameDistance(f int32, dist []int32) int {
	if f < 0 {
		return 0
	}
	for i := len(s.fdist); i < len(s.frames); i++ {
		fr := s.frames[i]
		d := int32(unreachable)
		if fr.ret == joinRet {
			// Members, joins among them, were made before the join.
			for _, m := range s.joinMembers(fr) {
				if m < 0 {
					d = 0
				} else {
					d = min(d, s.fdist[m])
				}
			}
		} else if r := dist[fr.ret]; r != unreachable {
			below := int32(0)
			if fr.parent >= 0 {
				below = s.fdist[fr.parent]
			}
			if below != unreachable {
				d = int32(min(int64(r)+int64(below), unreachable)) // saturating
			}
		}
		s.fdist = append(s.fdist, d)
	}
	return int(s.fdist[f])
}
