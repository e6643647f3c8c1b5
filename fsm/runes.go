package fsm

import (
	"context"
	"fmt"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// RuneEdge is a transition of a RuneDFA state: the code points Lo to Hi,
// inclusive, lead to state To.
type RuneEdge struct {
	Lo, Hi rune
	To     int32
}

// RuneDFA is a deterministic finite automaton over code points rather than
// bytes: it reads decoded characters, for constraints on the contents of a
// string (its length in characters, its complement) that a byte automaton
// cannot state simply. Its states are numbered from 0 to NumStates()-1; -1
// stands for the dead state.
//
// Code points are read through classes, like bytes in a DFA: the range
// [0, U+10FFFF] is cut into runs, run i being the code points from Bounds[i]
// to Bounds[i+1]-1 (the last run ends at U+10FFFF), and Classes[i] is the
// class of run i. All code points of one class lead every state to the same
// next state, so the transition table has one column per class.
//
// A RuneDFA is not modified by its methods and is safe for concurrent use.
type RuneDFA struct {
	Start      int32   // the start state, -1 if the language is empty
	Final      []bool  // per state: accepting
	Bounds     []rune  // the first code point of each run, increasing from 0
	Classes    []int32 // per run: its class
	NumClasses int     // number of classes, at least 1
	Trans      []int32 // Trans[s*NumClasses+class]: next state, or -1
}

// ScalarValues returns the code points UTF-8 can encode, and so a JSON
// string can hold, as inclusive lo, hi pairs: every one but the surrogates.
// It is the usual universe of Complement.
func ScalarValues() []rune { return []rune{0, 0xD7FF, 0xE000, utf8.MaxRune} }

// emptyRuneDFA accepts nothing.
func emptyRuneDFA() *RuneDFA {
	return &RuneDFA{Start: -1, Bounds: []rune{0}, Classes: []int32{0}, NumClasses: 1}
}

// NumStates returns the number of states.
func (d *RuneDFA) NumStates() int { return len(d.Final) }

// class returns the class of r, or -1 outside [0, U+10FFFF].
func (d *RuneDFA) class(r rune) int32 {
	if r < 0 || r > utf8.MaxRune {
		return -1
	}
	i, found := slices.BinarySearch(d.Bounds, r)
	if !found {
		i--
	}
	return d.Classes[i]
}

// Next returns the state that code point r leads s to, or -1. Next(-1, r)
// is -1.
func (d *RuneDFA) Next(s int32, r rune) int32 {
	c := d.class(r)
	if s < 0 || c < 0 {
		return -1
	}
	return d.Trans[int(s)*d.NumClasses+int(c)]
}

// Match reports whether d accepts the code points of s, read as a range
// loop reads them (a byte that is not valid UTF-8 reads as U+FFFD).
func (d *RuneDFA) Match(s string) bool {
	st := d.Start
	for _, r := range s {
		if st = d.Next(st, r); st < 0 {
			return false
		}
	}
	return st >= 0 && d.Final[st]
}

// IsEmpty reports whether d accepts no string.
func (d *RuneDFA) IsEmpty() bool {
	if d.Start < 0 {
		return true
	}
	seen := make([]bool, d.NumStates())
	seen[d.Start] = true
	stack := []int32{d.Start}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if d.Final[s] {
			return false
		}
		for _, t := range d.Trans[int(s)*d.NumClasses : (int(s)+1)*d.NumClasses] {
			if t >= 0 && !seen[t] {
				seen[t] = true
				stack = append(stack, t)
			}
		}
	}
	return true
}

// AppendEdges appends the transitions of state s to dst, as sorted, disjoint
// ranges, adjacent ranges with the same target merged, and returns it.
func (d *RuneDFA) AppendEdges(dst []RuneEdge, s int32) []RuneEdge {
	row := d.Trans[int(s)*d.NumClasses : (int(s)+1)*d.NumClasses]
	first := len(dst)
	for i, lo := range d.Bounds {
		t := row[d.Classes[i]]
		if t < 0 {
			continue
		}
		hi := rune(utf8.MaxRune)
		if i+1 < len(d.Bounds) {
			hi = d.Bounds[i+1] - 1
		}
		if k := len(dst); k > first && dst[k-1].To == t && dst[k-1].Hi+1 == lo {
			dst[k-1].Hi = hi
			continue
		}
		dst = append(dst, RuneEdge{lo, hi, t})
	}
	return dst
}

// NewRuneDFA returns the automaton with the given states, state 0 being the
// start: final[s] says whether s accepts and edges[s] lists its transitions,
// whose ranges must not overlap (they need not be sorted). Code points
// outside [0, U+10FFFF] are ignored. With no states, the language is empty.
func NewRuneDFA(final []bool, edges [][]RuneEdge) (*RuneDFA, error) {
	n := len(final)
	if len(edges) != n {
		return nil, fmt.Errorf("fsm: %d states with edges for %d", n, len(edges))
	}
	if n == 0 {
		return emptyRuneDFA(), nil
	}
	cuts := []rune{0}
	for _, es := range edges {
		for _, e := range es {
			if int(e.To) < 0 || int(e.To) >= n {
				return nil, fmt.Errorf("fsm: edge to state %d out of range [0,%d)", e.To, n)
			}
			lo, hi := max(e.Lo, 0), min(e.Hi, utf8.MaxRune)
			if lo <= hi {
				cuts = append(cuts, lo, hi+1)
			}
		}
	}
	d := runsOf(cuts)
	d.Start = 0
	d.Final = slices.Clone(final)
	d.Trans = newTable(n * d.NumClasses)
	for s, es := range edges {
		row := d.Trans[s*d.NumClasses : (s+1)*d.NumClasses]
		for _, e := range es {
			lo, hi := max(e.Lo, 0), min(e.Hi, utf8.MaxRune)
			if lo > hi {
				continue
			}
			for c := d.class(lo); c < int32(len(d.Bounds)) && d.Bounds[c] <= hi; c++ {
				if row[c] >= 0 && row[c] != e.To {
					return nil, fmt.Errorf("fsm: state %d has overlapping edges at U+%04X", s, d.Bounds[c])
				}
				row[c] = e.To
			}
		}
	}
	return d, nil
}

// runsOf returns a RuneDFA with no states whose runs start at the given cut
// points (in any order, repeated or past U+10FFFF; 0 must be one), one class
// per run.
func runsOf(cuts []rune) *RuneDFA {
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	for len(cuts) > 1 && cuts[len(cuts)-1] > utf8.MaxRune {
		cuts = cuts[:len(cuts)-1]
	}
	classes := make([]int32, len(cuts))
	for i := range classes {
		classes[i] = int32(i)
	}
	return &RuneDFA{Start: -1, Bounds: cuts, Classes: classes, NumClasses: len(cuts)}
}

// newTable returns a transition table of n entries, all -1.
func newTable(n int) []int32 {
	t := make([]int32, n)
	for i := range t {
		t[i] = -1
	}
	return t
}

// asDFA views d as a byte-alphabet DFA of the same table, for the algorithms
// that read classes only (Minimize's refinement, usefulness).
func (d *RuneDFA) asDFA() *DFA {
	return &DFA{Start: d.Start, Final: d.Final, NumClasses: d.NumClasses, Trans: d.Trans, Calls: make([][]Call, d.NumStates())}
}

// Minimize returns the RuneDFA with the fewest states that accepts the same
// strings, numbered in breadth-first order from Start (which is 0), without
// states that cannot be reached or cannot reach a final state, and with the
// fewest classes: runs that every state treats alike share one class and
// adjacent runs of one class are merged. It is DFA.Minimize's algorithm.
func (d *RuneDFA) Minimize() *RuneDFA {
	m, _ := d.MinimizeContext(context.Background())
	return m
}

// MinimizeContext is Minimize that stops once ctx ends, with an error
// wrapping ctx.Err().
func (d *RuneDFA) MinimizeContext(ctx context.Context) (*RuneDFA, error) {
	stop := newStopper(ctx)
	if err := stop.check(); err != nil {
		return nil, err
	}
	w := getWorkspace()
	defer w.put()
	t := d.asDFA()
	reps, newOf, err := w.minimal(t, &stop)
	if err != nil {
		return nil, err
	}
	if reps == nil {
		return emptyRuneDFA(), nil
	}
	units := slices.Clone(d.Classes)
	m := w.buildTable(t, reps, newOf, units)
	out := &RuneDFA{Start: 0, Final: m.Final, NumClasses: m.NumClasses, Trans: m.Trans}
	for i, c := range units {
		if k := len(out.Classes); k > 0 && out.Classes[k-1] == c {
			continue
		}
		out.Bounds = append(out.Bounds, d.Bounds[i])
		out.Classes = append(out.Classes, c)
	}
	return out, nil
}

// Complement returns the automaton of the strings of code points in universe
// that d rejects. universe holds inclusive lo, hi pairs, like
// syntax.Regexp.Rune (ScalarValues for the strings UTF-8 can encode); code
// points outside it occur in no accepted string of the result. The result is
// minimal.
func (d *RuneDFA) Complement(universe []rune) *RuneDFA {
	in := normalizeRunes(nil, universe)
	cuts := slices.Clone(d.Bounds)
	for _, r := range in {
		cuts = append(cuts, r.lo, r.hi+1)
	}
	out := runsOf(cuts)
	n, k := d.NumStates(), out.NumClasses
	// inside[c]: run c lies in the universe. old[c]: its class in d.
	inside := make([]bool, k)
	old := make([]int32, k)
	j := 0
	for c, lo := range out.Bounds {
		for j < len(in) && in[j].hi < lo {
			j++
		}
		inside[c] = j < len(in) && in[j].lo <= lo
		old[c] = d.class(lo)
	}
	// State n is the sink: every string that leaves d ends there.
	out.Final = make([]bool, n+1)
	out.Trans = newTable((n + 1) * k)
	for s := range n + 1 {
		out.Final[s] = s == n || !d.Final[s]
		row := out.Trans[s*k : (s+1)*k]
		for c := range row {
			if !inside[c] {
				continue
			}
			t := int32(n)
			if s < n {
				if u := d.Trans[s*d.NumClasses+int(old[c])]; u >= 0 {
					t = u
				}
			}
			row[c] = t
		}
	}
	out.Start = d.Start
	if out.Start < 0 {
		out.Start = int32(n)
	}
	return out.Minimize()
}

// Intersect returns the minimal automaton of the strings both d and e accept,
// by the product construction from the start states. More than maxStates
// product states (DefaultMaxStates if it is <= 0) is an error wrapping
// ErrTooLarge; it stops once ctx ends, with an error wrapping ctx.Err().
func (d *RuneDFA) Intersect(ctx context.Context, e *RuneDFA, maxStates int) (*RuneDFA, error) {
	if maxStates <= 0 {
		maxStates = DefaultMaxStates
	}
	stop := newStopper(ctx)
	if err := stop.check(); err != nil {
		return nil, err
	}
	if d.Start < 0 || e.Start < 0 {
		return emptyRuneDFA(), nil
	}
	// The product's runs cut wherever either's do; its classes are the
	// pairs of classes that occur.
	out := runsOf(append(slices.Clone(d.Bounds), e.Bounds...))
	type pair struct{ a, b int32 }
	classOf := map[pair]int32{}
	var pairs []pair
	for i, lo := range out.Bounds {
		p := pair{d.class(lo), e.class(lo)}
		c, ok := classOf[p]
		if !ok {
			c = int32(len(pairs))
			classOf[p] = c
			pairs = append(pairs, p)
		}
		out.Classes[i] = c
	}
	k := len(pairs)
	out.NumClasses = k
	index := map[pair]int32{{d.Start, e.Start}: 0}
	queue := []pair{{d.Start, e.Start}}
	for i := 0; i < len(queue); i++ {
		if err := stop.at(i * k); err != nil {
			return nil, err
		}
		p := queue[i]
		out.Final = append(out.Final, d.Final[p.a] && e.Final[p.b])
		for _, cp := range pairs {
			x := d.Trans[int(p.a)*d.NumClasses+int(cp.a)]
			y := e.Trans[int(p.b)*e.NumClasses+int(cp.b)]
			if x < 0 || y < 0 {
				out.Trans = append(out.Trans, -1)
				continue
			}
			q := pair{x, y}
			t, ok := index[q]
			if !ok {
				if len(queue) >= maxStates {
					return nil, fmt.Errorf("%w: intersection has more than %d states", ErrTooLarge, maxStates)
				}
				t = int32(len(queue))
				index[q] = t
				queue = append(queue, q)
			}
			out.Trans = append(out.Trans, t)
		}
	}
	out.Start = 0
	return out.MinimizeContext(ctx)
}

// RuneLength returns the automaton of the strings of min to max code points
// from universe (inclusive lo, hi pairs; max < 0: no upper bound). It has
// max+1 states, or min+1 without an upper bound: more than maxStates
// (DefaultMaxStates if it is <= 0) is an error wrapping ErrTooLarge. With
// max < min, the language is empty.
func RuneLength(universe []rune, min, max, maxStates int) (*RuneDFA, error) {
	if maxStates <= 0 {
		maxStates = DefaultMaxStates
	}
	top := max
	if max < 0 {
		top = min
	}
	if min < 0 || top < min {
		return emptyRuneDFA(), nil
	}
	if top >= maxStates {
		return nil, fmt.Errorf("%w: a length automaton needs %d states, more than %d", ErrTooLarge, top+1, maxStates)
	}
	in := normalizeRunes(nil, universe)
	d := &RuneDFA{Bounds: []rune{0}, Classes: []int32{0}, NumClasses: 2}
	for _, r := range in {
		if r.lo == 0 {
			d.Classes[0] = 1
		} else {
			d.Bounds, d.Classes = append(d.Bounds, r.lo), append(d.Classes, 1)
		}
		if r.hi < utf8.MaxRune {
			d.Bounds, d.Classes = append(d.Bounds, r.hi+1), append(d.Classes, 0)
		}
	}
	d.Final = make([]bool, top+1)
	d.Trans = newTable(2 * (top + 1))
	for i := range top + 1 {
		d.Final[i] = i >= min
		switch {
		case i < top:
			d.Trans[2*i+1] = int32(i + 1)
		case max < 0:
			d.Trans[2*i+1] = int32(i)
		}
	}
	return d, nil
}

// RuneLiterals returns the minimal automaton that accepts exactly the given
// strings, read as a range loop reads them. More than maxStates states
// (DefaultMaxStates if it is <= 0) is an error wrapping ErrTooLarge.
func RuneLiterals(words []string, maxStates int) (*RuneDFA, error) {
	n := &runeNFA{}
	start := n.NewState()
	var finals []int
	for _, w := range words {
		cur := int32(start)
		for _, r := range w {
			next := int32(n.NewState())
			n.oneRune(cur, next, r)
			cur = next
		}
		finals = append(finals, int(cur))
	}
	d, err := n.determinize(context.Background(), start, finals, maxStates)
	if err != nil {
		return nil, err
	}
	return d.Minimize(), nil
}

// RuneRegexp returns the minimal automaton of the full matches of re, as
// NFA.Regexp defines them, over code points rather than their UTF-8
// encodings: surrogates and values past U+10FFFF never match. Its NFA may
// have 8×maxStates states and its DFA maxStates (DefaultMaxStates if it is
// <= 0); past either it is an error wrapping ErrTooLarge. It stops once ctx
// ends, with an error wrapping ctx.Err().
func RuneRegexp(ctx context.Context, re *syntax.Regexp, maxStates int) (*RuneDFA, error) {
	if maxStates <= 0 {
		maxStates = DefaultMaxStates
	}
	n := &runeNFA{}
	from, to := n.NewState(), n.NewState()
	c := regexpCompiler{n: n, limit: 8 * maxStates}
	if err := c.compile(re, int32(from), int32(to), true, true); err != nil {
		return nil, err
	}
	d, err := n.determinize(ctx, from, []int{to}, maxStates)
	if err != nil {
		return nil, err
	}
	return d.MinimizeContext(ctx)
}

// RuneConcat returns the minimal automaton of the strings xy where a accepts
// x and b accepts y, within maxStates states (DefaultMaxStates if it is
// <= 0; past it, an error wrapping ErrTooLarge). It stops once ctx ends,
// with an error wrapping ctx.Err().
func RuneConcat(ctx context.Context, a, b *RuneDFA, maxStates int) (*RuneDFA, error) {
	if a.Start < 0 || b.Start < 0 {
		return emptyRuneDFA(), nil
	}
	n := &runeNFA{}
	var edges []RuneEdge
	add := func(d *RuneDFA) int {
		base := n.states
		n.states += d.NumStates()
		for s := range int32(d.NumStates()) {
			edges = d.AppendEdges(edges[:0], s)
			for _, e := range edges {
				n.edges = append(n.edges, runeEdge{int32(base) + s, int32(base) + e.To, e.Lo, e.Hi, byteEdge})
			}
		}
		return base
	}
	ba, bb := add(a), add(b)
	var finals []int
	for s, f := range a.Final {
		if f {
			n.Epsilon(ba+s, bb+int(b.Start))
		}
	}
	for s, f := range b.Final {
		if f {
			finals = append(finals, bb+s)
		}
	}
	d, err := n.determinize(ctx, ba+int(a.Start), finals, maxStates)
	if err != nil {
		return nil, err
	}
	return d.MinimizeContext(ctx)
}

// runeNFA is an NFA whose edges read one code point from a range, or
// nothing. RuneRegexp and RuneLiterals build one and determinize it with
// the subset construction of Determinize.
type runeNFA struct {
	states int
	edges  []runeEdge
}

type runeEdge struct {
	from, to int32
	lo, hi   rune
	kind     edgeKind // byteEdge (a code-point range here) or epsilonEdge
}

func (n *runeNFA) NewState() int {
	n.states++
	return n.states - 1
}

func (n *runeNFA) NumStates() int { return n.states }

func (n *runeNFA) Epsilon(from, to int) {
	if from != to {
		n.edges = append(n.edges, runeEdge{from: int32(from), to: int32(to), kind: epsilonEdge})
	}
}

// Runes adds edges that read one code point of pairs, surrogates excepted.
func (n *runeNFA) Runes(from, to int, pairs []rune) {
	for _, r := range normalizeRunes(nil, pairs) {
		if r.lo < 0xD800 {
			n.edges = append(n.edges, runeEdge{int32(from), int32(to), r.lo, min(r.hi, 0xD7FF), byteEdge})
		}
		if r.hi > 0xDFFF {
			n.edges = append(n.edges, runeEdge{int32(from), int32(to), max(r.lo, 0xE000), r.hi, byteEdge})
		}
	}
}

func (n *runeNFA) oneRune(from, to int32, r rune) {
	n.edges = append(n.edges, runeEdge{from, to, r, r, byteEdge})
}

// determinize is Determinize for code points: the classes are the runs
// between the points where some edge's range starts or ends.
func (n *runeNFA) determinize(ctx context.Context, start int, finals []int, maxStates int) (*RuneDFA, error) {
	if maxStates <= 0 {
		maxStates = DefaultMaxStates
	}
	stop := newStopper(ctx)
	if err := stop.check(); err != nil {
		return nil, err
	}
	cuts := []rune{0}
	for _, e := range n.edges {
		if e.kind == byteEdge {
			cuts = append(cuts, e.lo, e.hi+1)
		}
	}
	out := runsOf(cuts)
	class := func(r rune) int32 {
		i, _ := slices.BinarySearch(out.Bounds, r)
		return int32(i)
	}
	b := builderPool.Get().(*subsetBuilder)
	d := &DFA{Start: -1, NumClasses: out.NumClasses}
	loadEdges(b, d, n.states, finals, maxStates, n.edges, func(e *runeEdge) (edgeKind, int32, int32, classEdge) {
		if e.kind != byteEdge {
			return e.kind, e.from, 0, classEdge{to: e.to}
		}
		return e.kind, e.from, 0, classEdge{class(e.lo), class(e.hi+1) - 1, e.to}
	})
	b.stop = stop
	_, err := b.run(int32(start))
	b.release()
	if err != nil {
		return nil, err
	}
	out.Start, out.Final, out.Trans = d.Start, d.Final, d.Trans
	return out, nil
}
