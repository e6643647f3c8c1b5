package pda

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
)

// TestShapeRuns checks that Shape, which encodes a node's transitions from
// its rule's class runs, writes exactly what a walk over the 256 bytes
// writes: a node's shape is the key classifications are shared by, so an
// encoding that differed would share classifications wrongly or not at all.
func TestShapeRuns(t *testing.T) {
	lit, cat, or, rep, call := grammar.Lit, grammar.Cat, grammar.Or, grammar.Rep, grammar.Call
	digit := grammar.Chars(false, grammar.RuneRange{Lo: '0', Hi: '9'})
	for name, g := range map[string]*grammar.Grammar{
		"json":     grammar.JSON(),
		"calls":    rules("root", cat(lit("<"), rep(call(1), 0, 3), lit(">")), "n", rep(digit, 1, 5)),
		"utf-8":    rules("root", rep(or(grammar.Chars(false, grammar.RuneRange{Lo: 'あ', Hi: 'ん'}), lit("é"), digit), 1, 40)),
		"negation": rules("root", rep(grammar.Chars(true, grammar.RuneRange{Lo: '"', Hi: '"'}, grammar.RuneRange{Lo: '\\', Hi: '\\'}), 0, -1)),
	} {
		p, err := Compile(g, grammar.Limits{})
		require.NoError(t, err, name)
		for n := int32(0); n < int32(p.NumNodes()); n++ {
			for _, depth := range []int{1, 3, 16} {
				got, ok := p.Shape(nil, n, depth, 1<<20)
				require.True(t, ok)
				require.Equal(t, shapeByBytes(p, n, depth), got, "%s node %d depth %d", name, n, depth)
			}
		}
	}
}

// shapeByBytes is Shape written plainly: breadth first, transitions found
// by looking at each of the 256 bytes.
func shapeByBytes(p *Program, n int32, maxDepth int) []byte {
	id := map[int32]int32{}
	dist := map[int32]int32{}
	var dst []byte
	var layer, next []int32
	var d int32
	reach := func(x, at int32) int32 {
		if k, ok := id[x]; ok && dist[x] <= at {
			return k
		} else if !ok {
			id[x] = int32(len(id))
		}
		dist[x] = at
		if at == d {
			layer = append(layer, x)
		} else {
			next = append(next, x)
		}
		return id[x]
	}
	reach(n, 0)
	for ; len(layer) > 0; d++ {
		for k := 0; k < len(layer); k++ {
			x := layer[k]
			if dist[x] != d {
				continue
			}
			dst = binary.AppendUvarint(dst, uint64(id[x]))
			if int(d) >= maxDepth {
				dst = append(dst, 0x80)
				continue
			}
			var flags byte
			if p.final[x] {
				flags = 1
			}
			dst = append(dst, flags)
			if p.hasBytes[x] {
				for lo := 0; lo < 256; {
					t := p.Next(x, byte(lo))
					hi := lo
					for hi+1 < 256 && p.Next(x, byte(hi+1)) == t {
						hi++
					}
					if t >= 0 {
						dst = append(dst, byte(lo), byte(hi))
						dst = binary.AppendUvarint(dst, uint64(reach(t, d+1)))
					}
					lo = hi + 1
				}
			}
			dst = append(dst, 0xff, 0x00)
			dst = binary.AppendUvarint(dst, uint64(len(p.calls[x])))
			for _, c := range p.calls[x] {
				tail := uint64(0)
				if c.Tail {
					tail = 1
				}
				start, ret := reach(c.Start, d), reach(c.Return, d)
				dst = binary.AppendUvarint(dst, uint64(start)<<1|tail)
				dst = binary.AppendUvarint(dst, uint64(ret))
			}
		}
		layer, next = next, layer[:0]
	}
	return dst
}
