package fsm

import (
	"regexp"
	"regexp/syntax"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// build parses pattern with Perl flags and returns the NFA for it, its start
// and its final state.
func build(pattern string) (*NFA, int, int, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, 0, 0, err
	}
	var n NFA
	start, end := n.NewState(), n.NewState()
	if err := n.Regexp(start, end, re); err != nil {
		return nil, 0, 0, err
	}
	return &n, start, end, nil
}

// determinize returns the unminimized DFA for pattern.
func determinize(pattern string, maxStates int) (*DFA, error) {
	n, start, end, err := build(pattern)
	if err != nil {
		return nil, err
	}
	return Determinize(n, start, []int{end}, maxStates)
}

// mustMinimal returns the minimized DFA for pattern.
func mustMinimal(t testing.TB, pattern string) *DFA {
	t.Helper()
	d, err := determinize(pattern, 100000)
	require.NoError(t, err, pattern)
	return d.Minimize()
}

// oracle returns Go's answer to "does pattern fully match s", restricted to
// valid UTF-8 (Go's regexp reads an invalid byte as U+FFFD; fsm never
// matches invalid UTF-8).
func oracle(t testing.TB, pattern string) func(string) bool {
	t.Helper()
	re, err := regexp.Compile(`^(?:` + pattern + `)$`)
	require.NoError(t, err, pattern)
	return func(s string) bool { return utf8.ValidString(s) && re.MatchString(s) }
}

// equivalent reports whether state p of a and state q of b accept the same
// strings of bytes and symbols; -1 stands for the dead state.
func equivalent(a *DFA, p int32, b *DFA, q int32) bool {
	liveA, liveB := coReachable(a), coReachable(b)
	norm := func(d *DFA, live []bool, s int32) int32 {
		if s < 0 || !live[s] {
			return -1
		}
		return s
	}
	// One byte per pair of classes is enough.
	var reps []byte
	seenClass := map[[2]uint8]bool{}
	for c := range 256 {
		k := [2]uint8{a.Classes[c], b.Classes[c]}
		if !seenClass[k] {
			seenClass[k] = true
			reps = append(reps, byte(c))
		}
	}
	type pair struct{ p, q int32 }
	start := pair{norm(a, liveA, p), norm(b, liveB, q)}
	seen := map[pair]bool{start: true}
	work := []pair{start}
	push := func(x pair) {
		if !seen[x] {
			seen[x] = true
			work = append(work, x)
		}
	}
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		fa := x.p >= 0 && a.Final[x.p]
		fb := x.q >= 0 && b.Final[x.q]
		if fa != fb {
			return false
		}
		for _, c := range reps {
			push(pair{norm(a, liveA, a.Next(x.p, c)), norm(b, liveB, b.Next(x.q, c))})
		}
		syms := map[int32]bool{}
		if x.p >= 0 {
			for _, c := range a.Calls[x.p] {
				syms[c.Sym] = true
			}
		}
		if x.q >= 0 {
			for _, c := range b.Calls[x.q] {
				syms[c.Sym] = true
			}
		}
		for sym := range syms {
			push(pair{norm(a, liveA, a.NextSymbol(x.p, sym)), norm(b, liveB, b.NextSymbol(x.q, sym))})
		}
	}
	return true
}

// coReachable returns, per state of d, whether it can reach a final state.
func coReachable(d *DFA) []bool {
	w := new(workspace)
	w.load(d, nil)
	return w.coReachable(d, nil)
}

// checkWellFormed checks the structural invariants of a DFA.
func checkWellFormed(t testing.TB, d *DFA) {
	t.Helper()
	n := d.NumStates()
	require.GreaterOrEqual(t, d.NumClasses, 1)
	require.Len(t, d.Trans, n*d.NumClasses)
	require.Len(t, d.Calls, n)
	if n == 0 {
		require.Equal(t, int32(-1), d.Start)
	} else {
		require.True(t, d.Start >= 0 && int(d.Start) < n, "start %d", d.Start)
	}
	for b := range 256 {
		if int(d.Classes[b]) >= d.NumClasses {
			t.Fatalf("byte %#x in class %d of %d", b, d.Classes[b], d.NumClasses)
		}
	}
	for i, next := range d.Trans {
		if next < -1 || int(next) >= n {
			t.Fatalf("Trans[%d] = %d with %d states", i, next, n)
		}
	}
	for s, cs := range d.Calls {
		for i, c := range cs {
			if c.To < 0 || int(c.To) >= n {
				t.Fatalf("state %d calls %d into %d", s, c.Sym, c.To)
			}
			if i > 0 && cs[i-1].Sym >= c.Sym {
				t.Fatalf("state %d: calls not sorted, one per symbol: %v", s, cs)
			}
		}
	}
}

// checkMinimal checks that every state of d is reachable and live and that no
// two states are equivalent.
func checkMinimal(t testing.TB, d *DFA) {
	t.Helper()
	checkWellFormed(t, d)
	n := d.NumStates()
	useful := new(workspace).useful(d, nil)
	for s := range n {
		if !useful[s] {
			t.Fatalf("state %d is useless", s)
		}
	}
	if n > 80 {
		return
	}
	// Table filling (Moore), independent of Minimize's Hopcroft: mark the
	// pairs some string tells apart. All states are live, so a transition
	// to -1 against one to a state tells apart too.
	k := d.NumClasses
	dist := make([]bool, n*n)
	apart := func(x, y int32) bool {
		if x < 0 || y < 0 {
			return x != y
		}
		return dist[int(x)*n+int(y)]
	}
	for changed := true; changed; {
		changed = false
		for p := range n {
			for q := range n {
				if p == q || dist[p*n+q] {
					continue
				}
				differ := d.Final[p] != d.Final[q]
				for c := 0; c < k && !differ; c++ {
					differ = apart(d.Trans[p*k+c], d.Trans[q*k+c])
				}
				for _, cs := range [2][]Call{d.Calls[p], d.Calls[q]} {
					for _, c := range cs {
						differ = differ || apart(d.NextSymbol(int32(p), c.Sym), d.NextSymbol(int32(q), c.Sym))
					}
				}
				if differ {
					dist[p*n+q], changed = true, true
				}
			}
		}
	}
	for p := range n {
		for q := p + 1; q < n; q++ {
			if !dist[p*n+q] {
				t.Fatalf("states %d and %d are equivalent", p, q)
			}
		}
	}
}
