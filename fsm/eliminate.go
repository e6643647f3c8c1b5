package fsm

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"regexp/syntax"
	"slices"
)

// Defaults of RegexpLimits.
const (
	DefaultMaxRegexpNodes = 20000
	DefaultMaxRegexpWork  = 1 << 21
)

// RegexpLimits bounds RuneDFA.ToRegexp. State elimination can build
// expressions exponential in the number of states, so it counts what it
// builds: the nodes of each edge's expression, shared subexpressions counted
// each time they occur (the size of the tree a consumer that expands the
// expression sees), and the sum of those sizes over all edges built.
type RegexpLimits struct {
	MaxStates int // useful states to eliminate; <= 0: DefaultMaxStates
	MaxNodes  int // nodes of any one edge's expression; <= 0: DefaultMaxRegexpNodes
	MaxWork   int // nodes of all edges built; <= 0: DefaultMaxRegexpWork

	// LeafSize, when set, gives the size of the character class on an
	// edge (inclusive lo, hi pairs) in place of 1, for a caller that writes
	// a class as an expression of several nodes.
	LeafSize func(pairs []rune) int
}

// ToRegexp returns an expression that matches exactly the strings d
// accepts, by state elimination: the useful states are removed one by one,
// fewest paths through first, each path p→k→q becoming the edge
// p→q labelled a·b*·c, parallel edges joined by alternation.
//
// Its leaves are character classes (OpCharClass, or OpLiteral for a single
// code point) and empty matches; the rest is OpConcat, OpAlternate (of two
// subexpressions, nested) and OpStar. Subexpressions are shared between
// nodes, so the result is a DAG; walk it with a memo. The empty language is
// OpNoMatch.
//
// Passing a bound of lim is an error wrapping ErrTooLarge; it stops once ctx
// ends, with an error wrapping ctx.Err().
func (d *RuneDFA) ToRegexp(ctx context.Context, lim RegexpLimits) (*syntax.Regexp, error) {
	if lim.MaxStates <= 0 {
		lim.MaxStates = DefaultMaxStates
	}
	if lim.MaxNodes <= 0 {
		lim.MaxNodes = DefaultMaxRegexpNodes
	}
	if lim.MaxWork <= 0 {
		lim.MaxWork = DefaultMaxRegexpWork
	}
	stop := newStopper(ctx)
	if err := stop.check(); err != nil {
		return nil, err
	}
	w := getWorkspace()
	alive := slices.Clone(w.useful(d.asDFA(), nil))
	w.put()
	if d.Start < 0 || !alive[d.Start] {
		return &syntax.Regexp{Op: syntax.OpNoMatch}, nil
	}
	left := 0
	for _, a := range alive {
		if a {
			left++
		}
	}
	if left > lim.MaxStates {
		return nil, fmt.Errorf("%w: state elimination over %d states, more than %d", ErrTooLarge, left, lim.MaxStates)
	}

	e := eliminator{
		n:    int32(d.NumStates()),
		size: map[*syntax.Regexp]int{},
		eps:  &syntax.Regexp{Op: syntax.OpEmptyMatch},
	}
	n := e.n
	S, F := n, n+1
	e.out = make([]map[int32]*syntax.Regexp, n+2)
	e.in = make([]map[int32]struct{}, n+2)
	for i := range e.out {
		e.out[i] = map[int32]*syntax.Regexp{}
		e.in[i] = map[int32]struct{}{}
	}
	e.size[e.eps] = 1
	e.add(S, d.Start, e.eps)
	var edges []RuneEdge
	var targets []int32
	byTarget := map[int32][]rune{}
	for s := range n {
		if !alive[s] {
			continue
		}
		edges = d.AppendEdges(edges[:0], s)
		targets = targets[:0]
		clear(byTarget)
		for _, x := range edges {
			if !alive[x.To] {
				continue
			}
			if _, ok := byTarget[x.To]; !ok {
				targets = append(targets, x.To)
			}
			byTarget[x.To] = append(byTarget[x.To], x.Lo, x.Hi)
		}
		for _, t := range targets {
			pairs := byTarget[t]
			leaf := &syntax.Regexp{Op: syntax.OpCharClass, Rune: pairs}
			if len(pairs) == 2 && pairs[0] == pairs[1] {
				leaf = &syntax.Regexp{Op: syntax.OpLiteral, Rune: pairs[:1]}
			}
			e.size[leaf] = 1
			if lim.LeafSize != nil {
				e.size[leaf] = lim.LeafSize(pairs)
			}
			e.add(s, t, leaf)
		}
		if d.Final[s] {
			e.add(s, F, e.eps)
		}
	}

	work := 0
	var ps, qs []int32
	for ; left > 0; left-- {
		// Eliminate the state with the fewest paths through it (the last
		// one of the cheapest).
		k, best := int32(-1), 0
		for s := range n {
			if !alive[s] {
				continue
			}
			if cost := len(e.in[s]) * len(e.out[s]); k < 0 || cost <= best {
				k, best = s, cost
			}
		}
		alive[k] = false
		var loop *syntax.Regexp
		loopSize := 0
		if l, ok := e.out[k][k]; ok {
			loop = &syntax.Regexp{Op: syntax.OpStar, Sub: []*syntax.Regexp{l}}
			loopSize = e.size[l] + 1
			e.size[loop] = loopSize
		}
		ps = sortedKeys(ps, e.in[k], k)
		qs = sortedKeys(qs, e.out[k], k)
		for _, p := range ps {
			a := e.out[p][k]
			for _, q := range qs {
				b := e.out[k][q]
				size := e.size[a] + e.size[b] + 1 + loopSize
				work += size
				if size > lim.MaxNodes {
					return nil, fmt.Errorf("%w: state elimination builds an expression of more than %d nodes", ErrTooLarge, lim.MaxNodes)
				}
				if work > lim.MaxWork {
					return nil, fmt.Errorf("%w: state elimination builds more than %d nodes in all", ErrTooLarge, lim.MaxWork)
				}
				if err := stop.at(work); err != nil {
					return nil, err
				}
				e.add(p, q, e.concat(size, a, loop, b))
			}
			delete(e.out[p], k)
		}
		for q := range e.out[k] {
			delete(e.in[q], k)
		}
		e.out[k], e.in[k] = nil, nil
	}
	if r, ok := e.out[S][F]; ok {
		return r, nil
	}
	return &syntax.Regexp{Op: syntax.OpNoMatch}, nil
}

// eliminator holds the edges of a state elimination: states 0 to n-1 of
// the automaton, n a new start and n+1 a new final state.
type eliminator struct {
	n    int32
	out  []map[int32]*syntax.Regexp // out[p][q]: the expression on edge p→q
	in   []map[int32]struct{}       // in[q]: the p with an edge p→q
	size map[*syntax.Regexp]int     // tree size of every expression built
	eps  *syntax.Regexp
}

// add joins r to the edge p→q.
func (e *eliminator) add(p, q int32, r *syntax.Regexp) {
	if old, ok := e.out[p][q]; ok {
		n := e.size[old] + e.size[r] + 1
		r = &syntax.Regexp{Op: syntax.OpAlternate, Sub: []*syntax.Regexp{old, r}}
		e.size[r] = n
	}
	e.out[p][q] = r
	e.in[q][p] = struct{}{}
}

// concat returns a·loop·b (loop may be nil) of the given size, flattening
// concatenations and dropping empty matches.
func (e *eliminator) concat(size int, parts ...*syntax.Regexp) *syntax.Regexp {
	var subs []*syntax.Regexp
	for _, p := range parts {
		switch {
		case p == nil || p.Op == syntax.OpEmptyMatch:
		case p.Op == syntax.OpConcat:
			subs = append(subs, p.Sub...)
		default:
			subs = append(subs, p)
		}
	}
	switch len(subs) {
	case 0:
		return e.eps
	case 1:
		return subs[0]
	}
	r := &syntax.Regexp{Op: syntax.OpConcat, Sub: subs}
	e.size[r] = size
	return r
}

// sortedKeys returns the keys of m other than skip, sorted, in dst's storage.
func sortedKeys[V any](dst []int32, m map[int32]V, skip int32) []int32 {
	dst = dst[:0]
	for k := range maps.Keys(m) {
		if k != skip {
			dst = append(dst, k)
		}
	}
	slices.SortFunc(dst, cmp.Compare[int32])
	return dst
}
