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
	sc.begin(int(p.numNodes))
	count := int32(0)
	layer := sc.layer[:0] // nodes at the distance being expanded
	next := sc.next[:0]   // nodes one byte further
	defer func() { sc.layer, sc.next = layer, next }()
	var d int32 // the distance being expanded
	// reach records that x is dist bytes from n and returns its number.
	reach := func(x, dist int32) int32 {
		if sc.gen[x] == sc.g {
			if sc.dist[x] <= dist {
				return sc.id[x]
			}
		} else {
			sc.gen[x] = sc.g
			sc.id[x] = count
			count++
		}
		sc.dist[x] = dist
		if dist == d {
			layer = append(layer, x)
		} else {
			next = append(next, x)
		}
		return sc.id[x]
	}
	reach(n, 0)
	for ; len(layer) > 0; d++ {
		for k := 0; k < len(layer); k++ {
			if int(count) > maxNodes {
				return dst, false
			}
			x := layer[k]
			if sc.dist[x] != d {
				continue // met again at a smaller distance and expanded there
			}
			dst = binary.AppendUvarint(dst, uint64(sc.id[x]))
			if int(d) >= maxDepth {
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
				// A callee may take no byte before returning, so both ends
				// of a call count as no further away.
				start := reach(c.Start, d)
				ret := reach(c.Return, d)
				dst = binary.AppendUvarint(dst, uint64(start)<<1|tail)
				dst = binary.AppendUvarint(dst, uint64(ret))
			}
		}
		layer, next = next, layer[:0]
	}
	return dst, true
}

// shapeScratch numbers the nodes one Shape call meets: entries whose gen
// is not the call's g are unset, so nothing is cleared between calls.
type shapeScratch struct {
	id, dist    []int32
	gen         []uint32
	g           uint32
	layer, next []int32
}

var shapePool = sync.Pool{New: func() any { return new(shapeScratch) }}

func (sc *shapeScratch) begin(nodes int) {
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
