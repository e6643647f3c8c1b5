package pda

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
)

// kWay is issue 12's ambiguous grammar with k branches:
// s ::= "a" t1 | ... | "a" tk | "x", ti ::= s "bi" (bi the i-th letter from b).
// After "a"×n the unmerged stacks number k^n.
func kWay(t *testing.T, k int) *Program {
	t.Helper()
	var src strings.Builder
	src.WriteString("root ::= s\ns ::= ")
	for i := 0; i < k; i++ {
		fmt.Fprintf(&src, "\"a\" t%d | ", i)
	}
	src.WriteString("\"x\"\n")
	for i := 0; i < k; i++ {
		fmt.Fprintf(&src, "t%d ::= s \"%c\"\n", i, 'b'+i)
	}
	g, err := grammar.ParseGBNF(src.String(), "root", grammar.Limits{})
	require.NoError(t, err)
	p, err := Compile(g, grammar.Limits{})
	require.NoError(t, err)
	return p
}

// TestAmbiguousRecursionStaysLinear is issue 12's first example: fed "a"
// twenty times, the two-way grammar held 1,048,576 stack tops and the
// three-way one ran out of memory. Merged tops keep one top per node and a
// constant number of new frames per byte.
func TestAmbiguousRecursionStaysLinear(t *testing.T) {
	for _, k := range []int{2, 3, 5} {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			p := kWay(t, k)
			st := NewState(p)
			const n = 200
			perByte := 0
			for i := 0; i < n; i++ {
				before := len(st.frames)
				require.True(t, st.Advance('a'), "a #%d", i)
				require.NoError(t, st.Err())
				assert.LessOrEqual(t, len(st.Tops()), p.NumNodes(), "one top per node at most")
				perByte = max(perByte, len(st.frames)-before)
			}
			assert.LessOrEqual(t, perByte, 4*k+2, "frames added by one byte")
			assert.LessOrEqual(t, st.visits, 8*k+8, "stack entries expanded by the last byte")

			// The language is unchanged: x, then one closing letter per a,
			// each any of the k letters.
			require.True(t, st.Advance('x'))
			rng := rand.New(rand.NewPCG(uint64(k), 7))
			for i := 0; i < n; i++ {
				assert.False(t, st.CanEnd(), "ended after %d of %d closers", i, n)
				assert.False(t, st.Advance(byte('b'+k)), "a letter no branch closes with")
				require.True(t, st.Advance(byte('b'+rng.IntN(k))), "closer #%d", i)
			}
			assert.True(t, st.CanEnd())
			assert.False(t, st.Advance('b'), "more closers than a's")
		})
	}
}

// TestStepLimit: a grammar whose live stacks grow with the input (here one
// more possible height per byte) trips the step work limit; the byte is
// refused with ErrStepLimit, which wraps grammar.ErrLimit, and the state is
// left as it was.
func TestStepLimit(t *testing.T) {
	g, err := grammar.ParseGBNF(`root ::= s
s ::= "a" s | "a" s "b" | ""`, "root", grammar.Limits{})
	require.NoError(t, err)
	lim := grammar.Limits{}
	lim.StepWork = 64
	p, err := Compile(g, lim)
	require.NoError(t, err)
	st := NewState(p)
	i := 0
	for ; i < 1000 && st.Advance('a'); i++ {
	}
	require.Less(t, i, 1000, "the limit never tripped")
	assert.Greater(t, i, 10)
	err = st.Err()
	require.ErrorIs(t, err, ErrStepLimit)
	assert.True(t, errors.Is(err, grammar.ErrLimit))
	assert.Equal(t, i, st.Depth(), "the refused byte left the state unchanged")
	st.ClearErr()
	require.True(t, st.Advance('b'), "the state still works below the limit")
	require.NoError(t, st.Err())
}

// TestJoinRollback: rolling back across merged depths restores the tops,
// frames and joins exactly, and the same input then yields the same ids.
func TestJoinRollback(t *testing.T) {
	p := kWay(t, 3)
	st := NewState(p)
	require.True(t, st.AdvanceBytes([]byte("aaaa")))
	tops := append([]Top(nil), st.Tops()...)
	frames, members := len(st.frames), len(st.members)
	require.True(t, st.AdvanceBytes([]byte("aaaxbcd")))
	after := append([]Top(nil), st.Tops()...)
	framesAfter, membersAfter := len(st.frames), len(st.members)
	st.Rollback(4)
	assert.Equal(t, tops, st.Tops())
	assert.Equal(t, frames, len(st.frames))
	assert.Equal(t, members, len(st.members))
	require.True(t, st.AdvanceBytes([]byte("aaaxbcd")))
	assert.Equal(t, after, st.Tops(), "the replay makes the same ids")
	assert.Equal(t, framesAfter, len(st.frames))
	assert.Equal(t, membersAfter, len(st.members))
	c := st.Clone()
	assert.Equal(t, st.Tops(), c.Tops())
	assert.Equal(t, st.CanEnd(), c.CanEnd())
	assert.Equal(t, st.BytesToEnd(), c.BytesToEnd())
	assert.Equal(t, 4, st.BytesToEnd(), "four closers still open")
}

// TestFrameStamps: a frame keeps its stamp while it lives, and a frame made
// again after a rollback, under the same id, gets a new one; a clone keeps
// the stamps. Callers key what they learn about a stack by id and stamp.
func TestFrameStamps(t *testing.T) {
	g, err := grammar.ParseGBNF("root ::= \"(\" root \")\" | \"[\" root \"]\" | \"x\"", "root", grammar.Limits{})
	require.NoError(t, err)
	p, err := Compile(g, grammar.Limits{})
	require.NoError(t, err)
	st := NewState(p)
	require.True(t, st.AdvanceBytes([]byte("((")))
	f := st.Tops()[0].Frame
	require.GreaterOrEqual(t, f, int32(0))
	stamp := st.FrameStamp(f)
	require.True(t, st.AdvanceBytes([]byte("[x")))
	st.Rollback(2)
	assert.Equal(t, stamp, st.FrameStamp(f), "a living frame keeps its stamp")
	st.Rollback(1)
	require.True(t, st.AdvanceBytes([]byte("[")))
	g2 := st.Tops()[0].Frame
	require.Equal(t, f, g2, "the new stack reuses the frame id")
	assert.NotEqual(t, stamp, st.FrameStamp(g2), "a frame made again gets a new stamp")
	c := st.Clone()
	assert.Equal(t, st.FrameStamp(g2), c.FrameStamp(g2))
}
