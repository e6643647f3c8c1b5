package pda

import "math"

// Unreachable is the distance of a node that cannot end its rule.
const Unreachable = math.MaxInt32

// computeDistances fills p.dist: for every node the fewest bytes that take it
// to the end of its rule, counting a call as its callee's shortest match. It
// is a shortest-path fixpoint over all rules at once.
func (p *Program) computeDistances() {
	n := int(p.numNodes)
	dist := make([]int32, n)
	for i := range dist {
		dist[i] = Unreachable
		if p.final[i] {
			dist[i] = 0
		}
	}
	for changed := true; changed; {
		changed = false
		for i := 0; i < n; i++ {
			best := dist[i]
			row := p.trans[p.base[i] : p.base[i]+p.nclasses[p.nodeRule[i]]]
			for _, t := range row {
				if t >= 0 && dist[t] != Unreachable && dist[t]+1 < best {
					best = dist[t] + 1
				}
			}
			for _, c := range p.calls[i] {
				callee := dist[c.Start]
				if callee != Unreachable && dist[c.Return] != Unreachable && callee+dist[c.Return] < best {
					best = callee + dist[c.Return]
				}
			}
			if best < dist[i] {
				dist[i] = best
				changed = true
			}
		}
	}
	p.dist = dist
}

// BytesToEnd returns the fewest bytes that take node n to the end of its rule.
func (p *Program) BytesToEnd(n int32) int { return int(p.dist[n]) }

// BytesToEnd returns the fewest bytes that complete the input consumed so
// far into a sentence (0 when it may end now).
func (s *State) BytesToEnd() int {
	if s.CanEnd() {
		return 0
	}
	best := Unreachable
	for _, t := range s.Tops() {
		d := int(s.p.dist[t.Node])
		for f := t.Frame; f >= 0 && d < best; f = s.frames[f].parent {
			d += int(s.p.dist[s.frames[f].ret])
		}
		if d < best {
			best = d
		}
	}
	return best
}
