package pda

import "encoding/binary"

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
// within reach. callFree reports that no node within reach calls a rule:
// the walk from n is then a plain DFA walk.
func (p *Program) Shape(dst []byte, n int32, maxDepth, maxNodes int) (out []byte, callFree, ok bool) {
	type entry struct{ id, dist int32 }
	seen := map[int32]entry{n: {0, 0}}
	layer := []int32{n} // nodes at the distance being expanded
	var next []int32    // nodes one byte further
	callFree = true
	var d int32 // the distance being expanded
	reach := func(x, dist int32) {
		e, ok := seen[x]
		if ok && e.dist <= dist {
			return
		}
		if !ok {
			e.id = int32(len(seen))
		}
		seen[x] = entry{e.id, dist}
		if dist == d {
			layer = append(layer, x)
		} else {
			next = append(next, x)
		}
	}
	for ; len(layer) > 0; d++ {
		for k := 0; k < len(layer); k++ {
			if len(seen) > maxNodes {
				return dst, false, false
			}
			x := layer[k]
			e := seen[x]
			if e.dist != d {
				continue // met again at a smaller distance and expanded there
			}
			dst = binary.AppendUvarint(dst, uint64(e.id))
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
				row := p.trans[p.base[x]:]
				cls := p.classes[p.classOff[x] : p.classOff[x]+256]
				for lo := 0; lo < 256; {
					t := row[cls[lo]]
					hi := lo
					for hi+1 < 256 && row[cls[hi+1]] == t {
						hi++
					}
					if t >= 0 {
						reach(t, d+1)
						dst = append(dst, byte(lo), byte(hi))
						dst = binary.AppendUvarint(dst, uint64(seen[t].id))
					}
					lo = hi + 1
				}
			}
			dst = append(dst, 0xff, 0x00) // end of runs: no run goes from 255 down to 0
			calls := p.calls[x]
			dst = binary.AppendUvarint(dst, uint64(len(calls)))
			for _, c := range calls {
				callFree = false
				tail := uint64(0)
				if c.Tail {
					tail = 1
				}
				// A callee may take no byte before returning, so both ends
				// of a call count as no further away.
				reach(c.Start, d)
				reach(c.Return, d)
				dst = binary.AppendUvarint(dst, uint64(seen[c.Start].id)<<1|tail)
				dst = binary.AppendUvarint(dst, uint64(seen[c.Return].id))
			}
		}
		layer, next = next, layer[:0]
	}
	return dst, callFree, true
}
