package pda

import (
	"encoding/binary"
	"sync"
)

// Shape appends to dst a canonical description of the automaton as seen
// from node n by input of at most maxDepth bytes: byte transitions, rule
// calls and returns, final flags, for every node fewer than maxDepth bytes
// away. Nodes are numbered in the order a breadth-first walk from n meets
// them, so two nodes, of the same program or of different ones, have equal
// shapes exactly when they accept the same byte strings of up to maxDepth
// bytes, with the same rule ends along the way. Token classifications (for
// tokens of at most maxDepth bytes) can be shared between such nodes: every
// position of a long counted repetition, say, looks alike from far enough
// before its end.
//
// Shape gives up, returning ok false, when more than maxNodes nodes are
// within reach.
func (p *Program) Shape(dst []byte, n int32, maxDepth, maxNodes int) (out []byte, ok bool) {
	sc := shapePool.Get().(*shapeScratch)
	defer shapePool.Put(sc)
	sc.begin(int(p.numNodes), maxDepth)
	dist := p.distances()
	count := int32(0)
	// reach records that x is at least at distance dist from n (capped at
	// maxDepth: all that is further looks alike) and returns its number.
	reach := func(x int32, dist int) int32 {
		dist = min(dist, maxDepth)
		if sc.gen[x] == sc.g {
			if int(sc.dist[x]) <= dist {
				return sc.id[x]
			}
		} else {
			sc.gen[x] = sc.g
			sc.id[x] = count
			count++
		}
		sc.dist[x] = int32(dist)
		sc.buckets[dist] = append(sc.buckets[dist], x)
		return sc.id[x]
	}
	reach(n, 0)
	for d := 0; d <= maxDepth; d++ {
		// Nodes are appended to the bucket being walked when a callee may
		// return having taken no byte.
		for k := 0; k < len(sc.buckets[d]); k++ {
			if int(count) > maxNodes {
				return dst, false
			}
			x := sc.buckets[d][k]
			if int(sc.dist[x]) != d {
				continue // met again nearer and described there
			}
			sc.dist[x] = -1 // described: later meetings are further away
			dst = binary.AppendUvarint(dst, uint64(sc.id[x]))
			if d >= maxDepth {
				// Beyond reach: only that input may get this far matters.
				dst = append(dst, 0x80)
				continue
			}
			var flags byte
			if p.final[x] {
				flags |= 1
			}
			dst = append(dst, flags)
			if p.hasBytes[x] {
				// Transitions as runs of equal targets over the 256 bytes.
				// Runs of the rule's class table, merged where the
				// targets agree: the same runs a walk over the 256 bytes
				// would find, in far fewer steps.
				row := p.trans[p.base[x]:]
				runs := p.classRuns[p.nodeRule[x]]
				for i := 0; i < len(runs); {
					t := row[runs[i].class]
					j := i
					for j+1 < len(runs) && row[runs[j+1].class] == t {
						j++
					}
					if t >= 0 {
						id := reach(t, d+1)
						dst = append(dst, runs[i].lo, runs[j].hi)
						dst = binary.AppendUvarint(dst, uint64(id))
					}
					i = j + 1
				}
			}
			dst = append(dst, 0xff, 0x00) // end of runs: no run goes from 255 down to 0
			calls := p.calls[x]
			dst = binary.AppendUvarint(dst, uint64(len(calls)))
			for _, c := range calls {
				tail := uint64(0)
				if c.Tail {
					tail = 1
				}
				// The callee's start is no further away; the return is
				// as far again as the callee's shortest match, which the
				// shape shows where it is within reach (a string's escape
				// rule takes two bytes, so the positions of a counted
				// string after it are not all "no further away").
				start := reach(c.Start, d)
				ret := reach(c.Return, d+int(min(dist[c.Start], int32(maxDepth))))
				dst = binary.AppendUvarint(dst, uint64(start)<<1|tail)
				dst = binary.AppendUvarint(dst, uint64(ret))
			}
		}
	}
	return dst, true
}

// shapeScratch numbers the nodes one Shape call meets: entries whose gen
// is not the call's g are unset, so nothing is cleared between calls.
type shapeScratch struct {
	id, dist []int32
	gen      []uint32
	g        uint32
	buckets  [][]int32 // nodes by distance, 0 to maxDepth
}

var shapePool = sync.Pool{New: func() any { return new(shapeScratch) }}

func (sc *shapeScratch) begin(nodes, maxDepth int) {
	if len(sc.buckets) < maxDepth+1 {
		sc.buckets = make([][]int32, maxDepth+1)
	}
	for i := range sc.buckets[:maxDepth+1] {
		sc.buckets[i] = sc.buckets[i][:0]
	}
	if len(sc.gen) < nodes {
		sc.id = make([]int32, nodes)
		sc.dist = make([]int32, nodes)
		sc.gen = make([]uint32, nodes)
		sc.g = 0
	}
	sc.g++
	if sc.g == 0 {
		clear(sc.gen)
		sc.g = 1
	}
}
