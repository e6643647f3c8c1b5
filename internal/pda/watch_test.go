package pda

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
)

// TestWatchPops checks that a watched frame is reported popped exactly when
// the rule standing on it ends, also on a step that is then refused, and
// not when another frame pops.
func TestWatchPops(t *testing.T) {
	lit, cat, or, call := grammar.Lit, grammar.Cat, grammar.Or, grammar.Call
	// root ::= "<" n (">" | "!") ; n ::= "x" "y"?
	p, err := Compile(rules("root", cat(lit("<"), call(1), or(lit(">"), lit("!"))), "n", cat(lit("x"), grammar.Rep(lit("y"), 0, 1))), grammar.Limits{})
	require.NoError(t, err)
	s := NewState(p)
	require.True(t, s.Advance('<'))
	f := s.Tops()[0].Frame // the call of n, returning into root
	ret, below, ok := s.SoleReturn(f)
	require.True(t, ok)
	require.Equal(t, int32(-1), below)
	require.GreaterOrEqual(t, ret, int32(0))

	s.WatchPops(f)
	require.False(t, s.Popped())
	require.False(t, s.Advance('q'))
	require.False(t, s.Popped(), "a refused byte that ends nothing")
	require.True(t, s.Advance('x'))
	require.True(t, s.Popped(), "n may end after x: its stacks go on in root")
	s.ClearPopped()
	require.True(t, s.Advance('y'))
	require.True(t, s.Popped(), "n ends after y")
	s.ClearPopped()
	require.True(t, s.Advance('>'))
	require.False(t, s.Popped(), "root ending pops the bottom, not f")

	s.Reset()
	require.True(t, s.Advance('<'))
	s.WatchPops(-1)
	require.True(t, s.Advance('x'))
	require.False(t, s.Popped())
	require.False(t, s.Advance('z'))
	require.False(t, s.Popped())
	require.True(t, s.Advance('!'))
	require.True(t, s.Popped(), "root ends: the bottom is popped")
	s.UnwatchPops()
	s.Rollback(0)
	require.True(t, s.AdvanceBytes([]byte("<x>")))
	require.False(t, s.Popped(), "nothing is watched")
}
