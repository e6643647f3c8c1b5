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

// TestShapeCountsCalls checks that a call is as far as its callee's
// shortest match: the positions of a counted string whose characters may be
// escapes (a rule taking two bytes) look alike from far enough before the
// end, so they share one classification, and the last ones do not.
func TestShapeCountsCalls(t *testing.T) {
	lit, or, rep, call := grammar.Lit, grammar.Or, grammar.Rep, grammar.Call
	p, err := Compile(rules("root", rep(or(lit("a"), call(1)), 0, 100), "esc", lit(`\n`)), grammar.Limits{})
	require.NoError(t, err)
	at := func(k int) int32 {
		n := p.Rules[0].Start
		for range k {
			n = p.Next(n, 'a')
		}
		return n
	}
	shape := func(k int) string {
		s, ok := p.Shape(nil, at(k), 8, 1<<20)
		require.True(t, ok)
		return string(s)
	}
	require.Equal(t, shape(10), shape(20), "positions 10 and 20 look alike within 8 bytes")
	require.Equal(t, shape(10), shape(91), "position 91 has 9 characters left")
	// From position 92 the last character, whose escape is a tail call, is
	// 7 bytes away.
	require.NotEqual(t, shape(10), shape(92))
	require.NotEqual(t, shape(92), shape(95))
}

// shapeByBytes is Shape written plainly: breadth first, transitions found
// by looking at each of the 256 bytes.
func shapeByBytes(p *Program, n int32, maxDepth int) []byte {
	id := map[int32]int32{}
	dist := map[int32]int32{}
	described := map[int32]bool{}
	var dst []byte
	buckets := make([][]int32, maxDepth+1)
	reach := func(x, at int32) int32 {
		at = min(at, int32(maxDepth))
		if k, ok := id[x]; ok && (described[x] || dist[x] <= at) {
			return k
		} else if !ok {
			id[x] = int32(len(id))
		}
		dist[x] = at
		buckets[at] = append(buckets[at], x)
		return id[x]
	}
	reach(n, 0)
	for d := int32(0); int(d) <= maxDepth; d++ {
		for k := 0; k < len(buckets[d]); k++ {
			x := buckets[d][k]
			if described[x] || dist[x] != d {
				continue
			}
			described[x] = true
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
				// A call takes at least its callee's shortest match.
				start, ret := reach(c.Start, d), reach(c.Return, d+int32(min(p.BytesToEnd(c.Start), maxDepth)))
				dst = binary.AppendUvarint(dst, uint64(start)<<1|tail)
				dst = binary.AppendUvarint(dst, uint64(ret))
			}
		}
	}
	return dst
}
