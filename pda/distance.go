package pda

import "math"

// Unreachable is the distance of a node that cannot end its rule.
const Unreachable = math.MaxInt32

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
		dist[i] = Unreachable
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
				if t >= 0 && dist[t] != Unreachable && dist[t]+1 < best {
					best = dist[t] + 1
				}
			}
			for _, c := range p.calls[i] {
				if a, b := dist[c.Start], dist[c.Return]; a != Unreachable && b != Unreachable && a+b < best {
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
	best := Unreachable
	for _, t := range s.Tops() {
		d := int(dist[t.Node])
		for f := t.Frame; f >= 0 && d < best; f = s.frames[f].parent {
			d += int(dist[s.frames[f].ret])
		}
		if d < best {
			best = d
		}
	}
	return best
}
