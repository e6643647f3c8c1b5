package fsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// accepts runs d on a mix of byte strings and symbols from Start.
func accepts(d *DFA, path ...any) bool {
	s := d.Start
	for _, p := range path {
		switch p := p.(type) {
		case string:
			for i := 0; i < len(p); i++ {
				s = d.Next(s, p[i])
			}
		case int:
			s = d.NextSymbol(s, int32(p))
		}
	}
	return s >= 0 && d.Final[s]
}

// symbolNFA returns an NFA mixing bytes and symbols:
//
//	1 x | 1 y | 2 x | 5 x | 6 x | z 3 | 7 | w 8 | 4 q (4 leads nowhere useful without q)
//
// plus a call of 9 into a trap that cannot reach the end.
func symbolNFA() (*NFA, int, int) {
	var n NFA
	start, end := n.NewState(), n.NewState()
	st := n.NewState
	a, b, c, p, q, d, e, w, trap, f := st(), st(), st(), st(), st(), st(), st(), st(), st(), st()
	n.Symbol(start, a, 1)
	n.Bytes(a, end, 'x', 'x')
	n.Epsilon(start, e)
	n.Symbol(e, b, 1) // joins the first 1 through the epsilon closure
	n.Bytes(b, end, 'y', 'y')
	n.Symbol(start, c, 2)
	n.Bytes(c, end, 'x', 'x')
	n.Symbol(start, p, 5)
	n.Bytes(p, end, 'x', 'x')
	n.Symbol(start, q, 6)
	n.Bytes(q, end, 'x', 'x')
	n.Bytes(start, d, 'z', 'z')
	n.Symbol(d, end, 3)
	n.Symbol(start, end, 7)
	n.Bytes(start, w, 'w', 'w')
	n.Symbol(w, end, 8)
	n.Symbol(start, f, 4)
	n.Bytes(f, end, 'q', 'q')
	n.Symbol(start, trap, 9)
	n.Bytes(trap, trap, 't', 't')
	return &n, start, end
}

func TestSymbolEdges(t *testing.T) {
	n, start, end := symbolNFA()
	det, err := Determinize(n, start, []int{end}, 100)
	require.NoError(t, err)
	checkWellFormed(t, det)

	syms := func(d *DFA, s int32) []int32 {
		var out []int32
		for _, c := range d.Calls[s] {
			out = append(out, c.Sym)
		}
		return out
	}
	assert.Equal(t, []int32{1, 2, 4, 5, 6, 7, 9}, syms(det, det.Start))
	t1 := det.NextSymbol(det.Start, 1)
	assert.True(t, det.Final[det.Next(t1, 'x')] && det.Final[det.Next(t1, 'y')], "1 leads to the union of both targets")
	assert.Equal(t, int32(-1), det.NextSymbol(det.Start, 3))
	assert.Equal(t, int32(-1), det.NextSymbol(-1, 1))

	min := det.Minimize()
	checkMinimal(t, min)
	assert.True(t, equivalent(det, det.Start, min, min.Start))
	assert.Equal(t, []int32{1, 2, 4, 5, 6, 7}, syms(min, min.Start), "the call into the trap is dead")
	s := min.Start
	assert.Equal(t, min.NextSymbol(s, 2), min.NextSymbol(s, 5), "equivalent targets merge")
	assert.Equal(t, min.NextSymbol(s, 2), min.NextSymbol(s, 6))
	assert.NotEqual(t, min.NextSymbol(s, 1), min.NextSymbol(s, 2))
	assert.NotEqual(t, min.Next(s, 'z'), min.Next(s, 'w'), "states differing only in their symbol stay apart")
	// Start, {x y}, {x}, {q}, after z, after w, end.
	assert.Equal(t, 7, min.NumStates())

	for _, tc := range []struct {
		path []any
		want bool
	}{
		{[]any{1, "x"}, true}, {[]any{1, "y"}, true}, {[]any{2, "x"}, true}, {[]any{2, "y"}, false},
		{[]any{"z", 3}, true}, {[]any{"z"}, false}, {[]any{7}, true}, {[]any{"w", 8}, true},
		{[]any{"w", 3}, false}, {[]any{4, "q"}, true}, {[]any{9, "t"}, false}, {[]any{}, false},
	} {
		assert.Equal(t, tc.want, accepts(det, tc.path...), "%v", tc.path)
		assert.Equal(t, tc.want, accepts(min, tc.path...), "%v", tc.path)
	}
	assert.False(t, min.Match([]byte("x")), "Match ignores symbols")
}

func TestTrimAndCanReachFinal(t *testing.T) {
	n, start, end := symbolNFA()
	det, err := Determinize(n, start, []int{end}, 100)
	require.NoError(t, err)
	min := det.Minimize()

	all := func(int32) bool { return true }
	none := func(int32) bool { return false }
	only := func(ok ...int32) func(int32) bool {
		return func(s int32) bool {
			for _, o := range ok {
				if o == s {
					return true
				}
			}
			return false
		}
	}
	assert.True(t, min.CanReachFinal(nil))
	assert.True(t, min.CanReachFinal(all))
	assert.False(t, min.CanReachFinal(none), "every path needs a symbol")
	assert.True(t, min.CanReachFinal(only(3)))
	assert.False(t, min.CanReachFinal(only(9)))
	assert.False(t, det.CanReachFinal(only(9)), "the trap does not count")

	tr := min.Trim(only(1, 3))
	checkWellFormed(t, tr)
	assert.True(t, accepts(tr, 1, "y"))
	assert.True(t, accepts(tr, "z", 3))
	assert.False(t, accepts(tr, 2, "x"))
	// Start, after 1, after z, end: the rest cannot reach the end.
	assert.Equal(t, 4, tr.NumStates())
	for s := range tr.NumStates() {
		for _, c := range tr.Calls[s] {
			assert.Contains(t, []int32{1, 3}, c.Sym)
		}
	}
	assert.Equal(t, int32(-1), tr.Next(tr.Start, 'w'), "w only leads to a call of 8")
	checkMinimal(t, tr.Minimize())

	empty := min.Trim(none)
	assert.Equal(t, int32(-1), empty.Start)
	assert.Equal(t, 0, empty.NumStates())
	assert.False(t, empty.CanReachFinal(nil))
	assert.False(t, empty.Match(nil))

	// Trim on an unminimized DFA drops the trap and keeps the language.
	tr = det.Trim(nil)
	assert.True(t, equivalent(det, det.Start, tr, tr.Start))
	assert.Less(t, tr.NumStates(), det.NumStates())
}

// TestSymbolsInRuleBody builds a rule body the way pda does, a list
// "[" item ("," item)* where item is symbol 0, with a dead "]" edge.
func TestSymbolsInRuleBody(t *testing.T) {
	var n NFA
	start, end := n.NewState(), n.NewState()
	open, item, more := n.NewState(), n.NewState(), n.NewState()
	n.Bytes(start, open, '[', '[')
	n.Symbol(open, item, 0)
	n.Epsilon(item, end)
	n.Bytes(item, more, ',', ',')
	n.Symbol(more, item, 0)
	n.Bytes(end, n.NewState(), ']', ']')
	det, err := Determinize(&n, start, []int{end}, 100)
	require.NoError(t, err)
	min := det.Minimize()
	checkMinimal(t, min)
	assert.Equal(t, 3, min.NumStates(), "after [ and after , are alike")
	assert.True(t, accepts(min, "[", 0))
	assert.True(t, accepts(min, "[", 0, ",", 0, ",", 0))
	assert.False(t, accepts(min, "[", 0, ","))
	assert.False(t, accepts(min, "[", 0, "]"), "the ] leads to a state that cannot end")
	assert.Equal(t, "[", string(min.ForcedBytes(min.Start)))
	assert.Empty(t, min.ForcedBytes(min.Next(min.Start, '[')), "a symbol edge stops the forced path")
}
