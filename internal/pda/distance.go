package pda

import (
	"math"
	"slices"
)

// unreachable is the distance of a node that cannot end its rule.
const unreachable = math.MaxInt32

// distances returns, for every node, the fewest bytes that take it to the end
// of its rule, counting a call as its callee's shortest match. It is computed
// on first use (BytesToEnd and Shape need it), by computeDistances.
func (p *Program) distances() []int32 {
	p.distOnce.Do(p.computeDistances)
	return p.dist
}

// Edge kinds in computeDistances' reverse edges.
const (
	byteEdge = 1 << iota // a byte transition leads to the target
	callEdge             // the target is a call's start or return
)

// computeDistances is Dijkstra's algorithm run backwards from the nodes
// that end their rule, generalized (as Knuth did) to a call, whose length is
// the sum of two distances, its callee's start's and its return's: a sum is
// never less than either part, so a call's length is known, and final, once
// both parts are. Every node is settled once, in order of distance, and
// every edge is looked at once, when its target is settled.
func (p *Program) computeDistances() {
	n := int(p.numNodes)
	// The reverse edges, each (target, source) pair once, as one array
	// sliced by target: from[at[x]:at[x+1]] are the nodes with an edge to x,
	// kind the kinds of those edges.
	at := make([]int32, n+1)
	last := make([]int32, n) // 1 + the last source counted for a target
	p.eachEdge(func(i, t int32, _ uint8) {
		if last[t] != i+1 {
			last[t] = i + 1
			at[t+1]++
		}
	})
	for x := range n {
		at[x+1] += at[x]
	}
	from := make([]int32, at[n])
	kind := make([]uint8, at[n])
	fill := slices.Clone(at[:n])
	clear(last)
	p.eachEdge(func(i, t int32, k uint8) {
		if last[t] != i+1 {
			last[t] = i + 1
			fill[t]++
		}
		from[fill[t]-1] = i
		kind[fill[t]-1] |= k
	})
	dist := make([]int32, n)
	done := make([]bool, n)
	var q distQueue
	for i := range n {
		dist[i] = unreachable
		if p.final[i] {
			dist[i] = 0
			q.push(0, int32(i))
		}
	}
	relax := func(i, d int32) {
		if d < dist[i] {
			dist[i] = d
			q.push(d, i)
		}
	}
	for len(q) > 0 {
		d, x := q.pop()
		if done[x] || d != dist[x] {
			continue // settled before, nearer
		}
		done[x] = true
		for k := at[x]; k < at[x+1]; k++ {
			i := from[k]
			if done[i] {
				continue
			}
			if kind[k]&byteEdge != 0 {
				relax(i, d+1)
			}
			if kind[k]&callEdge != 0 {
				for _, c := range p.calls[i] {
					if (c.Start == x || c.Return == x) && done[c.Start] && done[c.Return] {
						relax(i, dist[c.Start]+dist[c.Return])
					}
				}
			}
		}
	}
	p.dist = dist
}

// distQueue is a binary min-heap of (distance, node) pairs.
type distQueue []uint64

func (q *distQueue) push(d, x int32) {
	h := append(*q, uint64(d)<<32|uint64(uint32(x)))
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if h[parent] <= h[i] {
			break
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
	*q = h
}

func (q *distQueue) pop() (d, x int32) {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		small, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l] < h[small] {
			small = l
		}
		if r < len(h) && h[r] < h[small] {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	*q = h
	return int32(top >> 32), int32(uint32(top))
}

// row returns node i's transitions, one per byte class of its rule.
func (p *Program) row(i int32) []int32 {
	return p.trans[p.base[i] : p.base[i]+p.nclasses[p.nodeRule[i]]]
}

// eachEdge calls f for every edge of the program, in order of source, with
// its kind: its byte transitions, then its calls' starts and returns.
func (p *Program) eachEdge(f func(i, t int32, kind uint8)) {
	for i := range p.numNodes {
		for _, t := range p.row(i) {
			if t >= 0 {
				f(i, t, byteEdge)
			}
		}
		for _, c := range p.calls[i] {
			f(i, c.Start, callEdge)
			f(i, c.Return, callEdge)
		}
	}
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
