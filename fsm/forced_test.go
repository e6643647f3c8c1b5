package fsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// walkBytes returns the state that prefix leads to from Start.
func walkBytes(d *DFA, prefix string) int32 {
	s := d.Start
	for i := 0; i < len(prefix); i++ {
		s = d.Next(s, prefix[i])
	}
	return s
}

func TestForcedBytes(t *testing.T) {
	tests := []struct {
		pattern string
		prefix  string // where to ask
		forced  string
	}{
		{`abc(d|e)`, "", "abc"},
		{`abc(d|e)`, "a", "bc"},
		{`abc(d|e)`, "abc", ""},
		{`abc(d|e)`, "abcd", ""}, // final
		{`abc`, "abc", ""},
		{`abc`, "x", ""}, // dead
		{`abc|abd`, "", "ab"},
		{`a*b`, "", ""},
		{`ab*`, "", "a"},
		{`ab+`, "", "ab"},
		{`(ab)+`, "ab", ""},
		{`(ab)+`, "aba", "b"},
		{`é`, "", "é"},
		{`é`, "\xc3", "\xa9"},
		{`[ée]`, "", ""},
		{`[\x{e9}-\x{eb}]`, "", "\xc3"}, // one lead byte, three continuations
		{`😀x`, "", "😀x"},
		{`true|false`, "", ""},
		{`true|false`, "t", "rue"},
		{`true|false`, "f", "alse"},
		{`"name":\s*`, "", `"name":`},
		{`{"a":(1|2),"b":3}`, "", `{"a":`},
		{`{"a":(1|2),"b":3}`, `{"a":1`, `,"b":3}`},
		{`(?i)ab`, "", ""},
		{`a{5}`, "", "aaaaa"},
		{`a{5}`, "aa", "aaa"},
		{`a{2,4}`, "", "aa"},
		{`a[^\x00-\x{10FFFF}]|bc`, "", "bc"}, // the dead branch does not count
		{``, "", ""},
	}
	for _, tt := range tests {
		d := mustMinimal(t, tt.pattern)
		s := walkBytes(d, tt.prefix)
		got := d.ForcedBytes(s)
		assert.Equal(t, tt.forced, string(got), "%q after %q", tt.pattern, tt.prefix)
		if s >= 0 && len(got) > 0 {
			// Every string accepted from s starts with the forced bytes,
			// and following them leads to a live state.
			assert.True(t, d.CanReachFinal(nil))
			end := s
			for _, b := range got {
				end = d.Next(end, b)
			}
			require.GreaterOrEqual(t, end, int32(0))
		}
	}
}

// TestForcedBytesUnminimized asks a DFA with a dead but present state: the
// branch into it does not count, with or without the table.
func TestForcedBytesUnminimized(t *testing.T) {
	var n NFA
	start, m, end, trap := n.NewState(), n.NewState(), n.NewState(), n.NewState()
	n.Bytes(start, m, 'a', 'a')
	n.Bytes(m, end, 'b', 'b')
	n.Bytes(m, trap, 'c', 'c')
	n.Bytes(trap, trap, 'c', 'c')
	d, err := Determinize(&n, start, []int{end}, 10)
	require.NoError(t, err)
	assert.Equal(t, "ab", string(d.ForcedBytes(d.Start)))
	d.ComputeForced()
	assert.Equal(t, "ab", string(d.ForcedBytes(d.Start)))
	assert.Equal(t, "b", string(d.ForcedBytes(d.Next(d.Start, 'a'))))
	assert.Empty(t, d.ForcedBytes(walkBytes(d, "ac")))
	assert.Nil(t, d.ForcedBytes(-1))
	assert.Nil(t, d.ForcedBytes(int32(d.NumStates())))
}

func TestForcedBytesSymbols(t *testing.T) {
	var n NFA
	start, a, b, end := n.NewState(), n.NewState(), n.NewState(), n.NewState()
	n.Bytes(start, a, 'x', 'x')
	n.Bytes(a, b, 'y', 'y')
	n.Symbol(b, end, 1)
	n.Bytes(b, end, 'z', 'z')
	d, err := Determinize(&n, start, []int{end}, 10)
	require.NoError(t, err)
	min := d.Minimize()
	assert.Equal(t, "xy", string(min.ForcedBytes(min.Start)), "stops at the state with a symbol edge")
	assert.Empty(t, min.ForcedBytes(walkBytes(min, "xy")))
	// With the symbol unusable, Trim drops it and z becomes forced.
	tr := min.Trim(func(int32) bool { return false })
	assert.Equal(t, "xyz", string(tr.ForcedBytes(tr.Start)))
}

// TestForcedBytesShared checks that look-ups do not allocate and that a chain
// is stored once.
func TestForcedBytesShared(t *testing.T) {
	d := mustMinimal(t, `abcdefgh(x|y)`)
	allocs := testing.AllocsPerRun(100, func() {
		for s := range int32(d.NumStates()) {
			_ = d.ForcedBytes(s)
		}
	})
	assert.Zero(t, allocs)
	first := d.ForcedBytes(d.Start)
	second := d.ForcedBytes(d.Next(d.Start, 'a'))
	require.Equal(t, "abcdefgh", string(first))
	assert.Same(t, &first[1], &second[0], "suffixes share storage")
}

// TestNewPaths builds paths from successor lists directly: chains that
// merge share storage, and a loop is cut rather than followed forever.
func TestNewPaths(t *testing.T) {
	// 0 -a-> 1 -b-> 2 -c-> 3 (no successor); 4 -x-> 2; 5 -y-> 6 -z-> 5.
	next := []int32{1, 2, 3, -1, 2, 6, 5}
	by := []byte("abc-xyz")
	p := NewPaths(next, by)
	tests := []struct {
		s    int32
		want string
	}{{0, "abc"}, {1, "bc"}, {2, "c"}, {3, ""}, {4, "xc"}}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(p.Bytes(tt.s)), "node %d", tt.s)
	}
	assert.LessOrEqual(t, len(p.Bytes(5)), 2, "a loop is cut")
	assert.Nil(t, p.Bytes(-1))
	assert.Nil(t, p.Bytes(7))
	assert.Empty(t, NewPaths(nil, nil).Bytes(0))
}
