package fsm

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMinimizeStateCounts(t *testing.T) {
	tests := []struct {
		pattern string
		states  int
	}{
		{`(a|b)*abb`, 4},
		{`a*`, 1},
		{`a+`, 2},
		{`a?`, 2},
		{`(a|b)*`, 1},
		{`abc`, 4},
		{`a{3}`, 4},
		{`a{2,4}`, 5},
		{`a{2,}`, 3},
		{`(ab|ac)`, 3},
		{`ab|cd`, 4},
		{`abc|abd|xbc`, 6},
		{`[ab]*a[ab]`, 4},
		{`[ab]*a[ab]{2}`, 4 + 1 + 2 + 1},
		{`(a|b)*a(a|b){3}`, 16},
		{`(aa)*`, 2},
		{`(aa)*|(aaa)*`, 6},
		{`(a*b*)*`, 1},
		{``, 1},
		{`[^\x00-\x{10FFFF}]`, 0},
		{`a[^\x00-\x{10FFFF}]`, 0},
		{`é|è`, 3},
		{`[\x{80}-\x{7FF}]`, 3},
		{`(true|false)`, 8}, // "tru" and "fals" merge
		{`-?(0|[1-9][0-9]*)`, 4},
	}
	for _, tt := range tests {
		det, err := determinize(tt.pattern, 10000)
		require.NoError(t, err)
		min := det.Minimize()
		assert.Equal(t, tt.states, min.NumStates(), tt.pattern)
		checkMinimal(t, min)
		assert.True(t, equivalent(det, det.Start, min, min.Start), tt.pattern)
		if tt.states > 0 {
			assert.Equal(t, int32(0), min.Start, "states are numbered from Start")
		}
		again := min.Minimize()
		assert.Equal(t, min.NumStates(), again.NumStates(), "Minimize is idempotent")
		assert.Equal(t, min.Trans, again.Trans, "breadth-first numbering is canonical")
	}
}

// TestMinimizeEquivalent checks every pattern of the match table: the
// minimized DFA accepts what the determinized one does, has no two
// equivalent states, and has no more byte classes than needed.
func TestMinimizeEquivalent(t *testing.T) {
	for _, tt := range matchTests {
		det, err := determinize(tt.pattern, 100000)
		require.NoError(t, err)
		min := det.Minimize()
		assert.LessOrEqual(t, min.NumStates(), det.NumStates())
		assert.True(t, equivalent(det, det.Start, min, min.Start), tt.pattern)
		checkMinimal(t, min)
		checkClassesMinimal(t, min)
	}
}

// checkClassesMinimal checks that no two byte classes of d lead every state
// to the same place.
func checkClassesMinimal(t testing.TB, d *DFA) {
	t.Helper()
	k := d.NumClasses
	for a := range k {
		for b := a + 1; b < k; b++ {
			same := true
			for s := range d.NumStates() {
				if d.Trans[s*k+a] != d.Trans[s*k+b] {
					same = false
					break
				}
			}
			require.False(t, same && d.NumStates() > 0, "classes %d and %d are alike", a, b)
		}
	}
	seen := make([]bool, k)
	for b := range 256 {
		seen[d.Classes[b]] = true
	}
	for c := range k {
		require.True(t, seen[c], "class %d has no byte", c)
	}
}

func TestMinimizeDropsDeadStates(t *testing.T) {
	// start -a-> x -b-> end, start -a-> trap, trap -c-> trap: the trap state
	// survives determinization inside {x, trap} but not minimization.
	var n NFA
	start, x, end, trap, island := n.NewState(), n.NewState(), n.NewState(), n.NewState(), n.NewState()
	n.Bytes(start, x, 'a', 'a')
	n.Bytes(x, end, 'b', 'b')
	n.Bytes(start, trap, 'z', 'z')
	n.Bytes(trap, trap, 'c', 'c')
	n.Bytes(island, end, 'q', 'q')
	det, err := Determinize(&n, start, []int{end}, 100)
	require.NoError(t, err)
	assert.Equal(t, 4, det.NumStates())
	min := det.Minimize()
	assert.Equal(t, 3, min.NumStates())
	assert.Equal(t, int32(-1), min.Next(min.Start, 'z'))
	checkMinimal(t, min)
}

func TestDeterminizeEmpty(t *testing.T) {
	var n NFA
	start, end := n.NewState(), n.NewState()
	d, err := Determinize(&n, start, []int{end}, 10)
	require.NoError(t, err)
	assert.Equal(t, int32(-1), d.Start)
	assert.Equal(t, 0, d.NumStates())
	assert.False(t, d.Match(nil))
	assert.False(t, d.CanReachFinal(nil))
	assert.Equal(t, int32(-1), d.Minimize().Start)
	assert.Equal(t, int32(-1), d.Trim(nil).Start)
	assert.Empty(t, d.ForcedBytes(d.Start))

	// The start state itself final: the empty string only.
	d, err = Determinize(&n, start, []int{start}, 10)
	require.NoError(t, err)
	assert.True(t, d.Match(nil))
	assert.False(t, d.Match([]byte{0}))
	assert.Equal(t, 1, d.NumClasses)
}

func TestDeterminizeBadArguments(t *testing.T) {
	var n NFA
	n.NewState()
	_, err := Determinize(&n, 1, nil, 10)
	assert.Error(t, err)
	_, err = Determinize(&n, -1, nil, 10)
	assert.Error(t, err)
	_, err = Determinize(&n, 0, []int{3}, 10)
	assert.Error(t, err)
	assert.Panics(t, func() { n.Bytes(0, 1, 'a', 'a') }, "an edge to a state that does not exist is a bug")
}

func TestDeterminizeTooLarge(t *testing.T) {
	// The DFA of "the 21st byte from the end is a" needs 2^21 states.
	d, err := determinize(`(a|b)*a(a|b){20}`, 1000)
	require.ErrorIs(t, err, ErrTooLarge)
	require.ErrorIs(t, err, ErrTooManyStates, "the caller's bound, not a fixed one")
	assert.Nil(t, d)
	assert.Contains(t, err.Error(), "more than 1000 DFA states")

	_, err = determinize(`(a|b)*a(a|b){8}`, 1000)
	require.NoError(t, err, "2^9 states fit")
	_, err = determinize(`(a|b)*a(a|b){9}`, 1000)
	require.ErrorIs(t, err, ErrTooLarge, "2^10 states do not")

	// maxStates <= 0 means DefaultMaxStates.
	_, err = determinize(`(a|b)*a(a|b){20}`, 0)
	require.ErrorIs(t, err, ErrTooLarge)
}

func TestByteClasses(t *testing.T) {
	d, err := determinize(`[a-f]x|[d-z]y`, 100)
	require.NoError(t, err)
	// Boundaries at a, d, g, x, y, z+1 (plus 0): [0-`] [a-c] [d-f] [g-w] x y z [{-ff].
	assert.Equal(t, 8, d.NumClasses)
	for _, r := range [][2]byte{{'a', 'c'}, {'d', 'f'}, {'g', 'w'}, {'{', 0xFF}} {
		for b := r[0]; b < r[1]; b++ {
			assert.Equal(t, d.Classes[r[0]], d.Classes[b+1])
		}
	}
	// Minimize merges what behaves alike: [0-`{-ff], [a-c], [d-f], [g-wz], x, y.
	min := d.Minimize()
	assert.Equal(t, 6, min.NumClasses)
	assert.Equal(t, min.Classes['g'], min.Classes['z'])
	assert.Equal(t, min.Classes[0], min.Classes[0xFF])
	assert.Equal(t, uint8(0), min.Classes[0])
}

// TestMinimalDFA checks that MinimalDFAContext gives what Determinize and
// Minimize give, and that a DFA it returned stays as it was while later
// constructions reuse the working memory it was built in.
func TestMinimalDFA(t *testing.T) {
	type built struct {
		name      string
		got, want *DFA
	}
	var all []built
	add := func(name string, n *NFA, start, end int) {
		det, err := Determinize(n, start, []int{end}, 100000)
		require.NoError(t, err, name)
		got, err := MinimalDFAContext(context.Background(), n, start, []int{end}, 100000)
		require.NoError(t, err, name)
		all = append(all, built{name, got, det.Minimize()})
	}
	for _, tt := range matchTests {
		n, start, end, err := build(tt.pattern)
		require.NoError(t, err)
		add(tt.pattern, n, start, end)
	}
	n, start, end := symbolNFA()
	add("symbols", n, start, end)
	// Again, in the other order, so that each reuses storage a larger or
	// smaller one grew.
	for i := len(matchTests) - 1; i >= 0; i-- {
		n, start, end, err := build(matchTests[i].pattern)
		require.NoError(t, err)
		add(matchTests[i].pattern, n, start, end)
	}
	for _, b := range all {
		assert.Equal(t, b.want, b.got, b.name)
	}

	_, err := MinimalDFAContext(context.Background(), n, start, []int{end}, 3)
	assert.ErrorIs(t, err, ErrTooManyStates)
	_, err = MinimalDFAContext(context.Background(), n, -1, []int{end}, 0)
	assert.Error(t, err)
}
