package pda_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/fsm"
	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/pda"
)

func parse(t *testing.T, src string) *grammar.Grammar {
	t.Helper()
	g, err := grammar.ParseGBNF(src, "root", grammar.Limits{})
	require.NoError(t, err)
	return g
}

func TestCompileErrors(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		src  string // "" for a nil grammar
		lim  grammar.Limits
		is   []error
		msg  string
	}{
		{name: "nil grammar", msg: "nil grammar"},
		{name: "left recursion behind a nullable rule", src: "root ::= a\na ::= o a \"x\" | \"y\"\no ::= \"o\"?", is: []error{pda.ErrLeftRecursion, grammar.ErrUnsupported}, msg: `"a"`},
		{name: "empty language", src: "root ::= \"x\" loop\nloop ::= \"y\" loop", is: []error{pda.ErrEmptyLanguage}, msg: "root"},
		{name: "rule states", src: `root ::= [ab]* "a" [ab] [ab] [ab] [ab] [ab] [ab] [ab] [ab]`, lim: grammar.Limits{RuleStates: 50},
			is: []error{grammar.ErrLimit, fsm.ErrTooLarge}, msg: "Limits.RuleStates"},
		{name: "total states", src: "root ::= a a\na ::= \"abcdefgh\"", lim: grammar.Limits{TotalStates: 5}, is: []error{grammar.ErrLimit}, msg: "Limits.TotalStates"},
		{name: "NFA states", src: `root ::= "ab"{0,1000}`, lim: grammar.Limits{NFAStates: 100}, is: []error{grammar.ErrLimit}, msg: "Limits.NFAStates"},
		{name: "cancelled", ctx: cancelled, src: `root ::= "a"`, is: []error{context.Canceled}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g *grammar.Grammar
			if tt.src != "" {
				g = parse(t, tt.src)
			}
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			p, err := pda.CompileContext(ctx, g, tt.lim)
			require.Error(t, err)
			assert.Nil(t, p)
			for _, is := range tt.is {
				assert.ErrorIs(t, err, is)
			}
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

// A grammar whose live stacks grow with the input trips StepWork: the byte
// is refused, Err says why, and the next byte the grammar takes clears it.
func TestStepLimit(t *testing.T) {
	p, err := pda.Compile(parse(t, "root ::= s\ns ::= \"a\" s | \"a\" s \"b\" | \"\""), grammar.Limits{StepWork: 64})
	require.NoError(t, err)
	st := pda.NewState(p)
	i := 0
	for ; i < 1000 && st.Advance('a'); i++ {
	}
	require.Less(t, i, 1000, "the limit never tripped")
	assert.ErrorIs(t, st.Err(), pda.ErrStepLimit)
	assert.ErrorIs(t, st.Err(), grammar.ErrLimit)
	assert.Equal(t, i, st.Depth(), "the refused byte left the state as it was")
	require.True(t, st.Advance('b'))
	assert.NoError(t, st.Err())
	assert.False(t, st.Advance('x'))
	assert.NoError(t, st.Err(), "a byte the grammar refuses is not a limit")
}

func TestStateRollbackCloneReset(t *testing.T) {
	p, err := pda.Compile(parse(t, `root ::= "ab" [cd] "e"?`), grammar.Limits{})
	require.NoError(t, err)
	assert.Positive(t, p.NumNodes())
	assert.Positive(t, p.MemoryBytes())
	st := pda.NewState(p)
	require.True(t, st.AdvanceBytes([]byte("ab")))
	next := st.NextBytes()
	assert.Equal(t, 2, next.Len())
	assert.True(t, next.Has('c') && next.Has('d') && !next.Has('e'))
	assert.Equal(t, 1, st.BytesToEnd())

	c := st.Clone()
	require.True(t, c.Advance('c'))
	assert.True(t, c.CanEnd())
	assert.False(t, st.CanEnd(), "a clone is independent")
	assert.False(t, st.AdvanceBytes([]byte("cx")))
	assert.Equal(t, 2, st.Depth(), "a refused AdvanceBytes leaves the state as it was")

	c.Rollback(5)
	assert.Equal(t, 3, c.Depth(), "rolling forward is a no-op")
	c.Rollback(-1)
	assert.Equal(t, 0, c.Depth(), "a negative depth is the start")
	require.True(t, c.AdvanceBytes([]byte("abde")))
	c.Reset()
	assert.Equal(t, 0, c.Depth())
	assert.Equal(t, "ab", string(c.Forced(nil, 10)))
}

// A zero or nil Program, and a zero State, refuse everything and say why;
// nothing panics. Forced leaves Err as it was.
func TestZeroValuesDoNotPanic(t *testing.T) {
	for name, st := range map[string]*pda.State{"nil program": pda.NewState(nil), "zero program": pda.NewState(&pda.Program{}), "zero state": {}} {
		t.Run(name, func(t *testing.T) {
			assert.False(t, st.Advance('a'))
			assert.False(t, st.AdvanceBytes([]byte("ab")))
			assert.Error(t, st.Err())
			assert.False(t, st.CanEnd())
			assert.Equal(t, math.MaxInt32, st.BytesToEnd())
			assert.Zero(t, st.Depth())
			assert.Zero(t, st.NextBytes().Len())
			assert.Empty(t, st.Forced(nil, 8))
			st.Rollback(3)
			st.Reset()
			assert.False(t, st.Clone().Advance('a'))
		})
	}
	var p *pda.Program
	assert.Zero(t, p.NumNodes())
	assert.Zero(t, p.MemoryBytes())

	g, err := grammar.ParseGBNF(`root ::= "abc" [0-9]`, "root", grammar.Limits{})
	require.NoError(t, err)
	prog, err := pda.Compile(g, grammar.Limits{})
	require.NoError(t, err)
	st := pda.NewState(prog)
	assert.Equal(t, "abc", string(st.Forced(nil, 8)))
	assert.NoError(t, st.Err(), "Forced leaves Err as it was")
	assert.Zero(t, st.Depth(), "Forced leaves the state as it was")
}
