package jsonschema

import (
	"encoding/binary"
	"errors"
	"fmt"
	"regexp/syntax"
	"sort"
	"strings"
	"unicode"

	"github.com/reinlm/rein/grammar"
)

// This file holds small automata over decoded characters (code points), for
// the string constraints a single regex cannot carry: intersections of a
// pattern with a format or with length bounds, complements (not pattern, a
// key that is none of the declared names, a key that matches no pattern of
// patternProperties). Results are turned back into expressions over the
// canonical JSON spelling by state elimination.

// runeDFA is a deterministic automaton over code points. Every state's edges
// are sorted, disjoint ranges; a missing range goes to an implicit dead state.
type runeDFA struct {
	edges  [][]runeEdge
	accept []bool
}

type runeEdge struct {
	lo, hi rune
	to     int
}

// maxDFAStates bounds every automaton built here.
const maxDFAStates = 4000

var errAutomatonSize = errors.New("string automaton too large")

// universe is every code point a JSON string can hold (no surrogates).
var universe = []grammar.RuneRange{{Lo: 0, Hi: 0xD7FF}, {Lo: 0xE000, Hi: unicode.MaxRune}}

// nfa is a Thompson automaton over code point ranges.
type nfa struct {
	eps   [][]int
	edges [][]runeEdge
	final int
}

func (n *nfa) state() (int, error) {
	if len(n.eps) >= 8*maxDFAStates {
		return 0, errAutomatonSize
	}
	n.eps = append(n.eps, nil)
	n.edges = append(n.edges, nil)
	return len(n.eps) - 1, nil
}

// regexDFA builds the automaton of a regex with no anchors left.
func regexDFA(re *syntax.Regexp) (*runeDFA, error) {
	n := &nfa{}
	start, err := n.state()
	if err != nil {
		return nil, err
	}
	end, err := n.build(re, start)
	if err != nil {
		return nil, err
	}
	n.final = end
	return n.determinize()
}

func (n *nfa) addRanges(from int, rs []grammar.RuneRange) (int, error) {
	to, err := n.state()
	if err != nil {
		return 0, err
	}
	for _, r := range intersectRanges(grammar.NormalizeRanges(rs), universe) {
		n.edges[from] = append(n.edges[from], runeEdge{r.Lo, r.Hi, to})
	}
	return to, nil
}

func (n *nfa) build(re *syntax.Regexp, from int) (int, error) {
	switch re.Op {
	case syntax.OpNoMatch:
		return n.state()
	case syntax.OpEmptyMatch:
		return from, nil
	case syntax.OpLiteral:
		cur := from
		for _, r := range re.Rune {
			rs := []grammar.RuneRange{{Lo: r, Hi: r}}
			if re.Flags&syntax.FoldCase != 0 {
				rs = foldRanges(r)
			}
			var err error
			if cur, err = n.addRanges(cur, rs); err != nil {
				return 0, err
			}
		}
		return cur, nil
	case syntax.OpCharClass:
		var rs []grammar.RuneRange
		for i := 0; i+1 < len(re.Rune); i += 2 {
			rs = append(rs, grammar.RuneRange{Lo: re.Rune[i], Hi: re.Rune[i+1]})
		}
		return n.addRanges(from, rs)
	case syntax.OpAnyChar:
		return n.addRanges(from, []grammar.RuneRange{{Lo: 0, Hi: unicode.MaxRune}})
	case syntax.OpAnyCharNotNL:
		return n.addRanges(from, []grammar.RuneRange{{Lo: 0, Hi: '\n' - 1}, {Lo: '\n' + 1, Hi: unicode.MaxRune}})
	case syntax.OpCapture:
		return n.build(re.Sub[0], from)
	case syntax.OpConcat:
		cur := from
		for _, s := range re.Sub {
			var err error
			if cur, err = n.build(s, cur); err != nil {
				return 0, err
			}
		}
		return cur, nil
	case syntax.OpAlternate:
		end, err := n.state()
		if err != nil {
			return 0, err
		}
		for _, s := range re.Sub {
			st, err := n.state()
			if err != nil {
				return 0, err
			}
			n.eps[from] = append(n.eps[from], st)
			e, err := n.build(s, st)
			if err != nil {
				return 0, err
			}
			n.eps[e] = append(n.eps[e], end)
		}
		return end, nil
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		mn, mx := repeatBounds(re)
		cur := from
		for i := 0; i < mn; i++ {
			var err error
			if cur, err = n.build(re.Sub[0], cur); err != nil {
				return 0, err
			}
		}
		if mx < 0 {
			loop, err := n.state()
			if err != nil {
				return 0, err
			}
			n.eps[cur] = append(n.eps[cur], loop)
			e, err := n.build(re.Sub[0], loop)
			if err != nil {
				return 0, err
			}
			n.eps[e] = append(n.eps[e], loop)
			return loop, nil
		}
		end, err := n.state()
		if err != nil {
			return 0, err
		}
		for i := mn; i < mx; i++ {
			n.eps[cur] = append(n.eps[cur], end)
			if cur, err = n.build(re.Sub[0], cur); err != nil {
				return 0, err
			}
		}
		n.eps[cur] = append(n.eps[cur], end)
		return end, nil
	}
	return 0, fmt.Errorf("%v is only supported at the start and end of the pattern", re.Op)
}

func (n *nfa) closure(set []int) []int {
	seen := map[int]bool{}
	var out []int
	stack := append([]int(nil), set...)
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
		stack = append(stack, n.eps[s]...)
	}
	sort.Ints(out)
	return out
}

func setKey(set []int) string {
	var b strings.Builder
	for _, s := range set {
		fmt.Fprintf(&b, "%d,", s)
	}
	return b.String()
}

func (n *nfa) determinize() (*runeDFA, error) {
	d := &runeDFA{}
	index := map[string]int{}
	var sets [][]int
	add := func(set []int) (int, error) {
		k := setKey(set)
		if i, ok := index[k]; ok {
			return i, nil
		}
		if len(sets) >= maxDFAStates {
			return 0, errAutomatonSize
		}
		index[k] = len(sets)
		sets = append(sets, set)
		acc := false
		for _, s := range set {
			acc = acc || s == n.final
		}
		d.edges = append(d.edges, nil)
		d.accept = append(d.accept, acc)
		return len(sets) - 1, nil
	}
	if _, err := add(n.closure([]int{0})); err != nil {
		return nil, err
	}
	for i := 0; i < len(sets); i++ {
		var all []runeEdge
		for _, s := range sets[i] {
			all = append(all, n.edges[s]...)
		}
		for _, seg := range segments(all) {
			var targets []int
			for _, e := range all {
				if e.lo <= seg.Lo && seg.Hi <= e.hi {
					targets = append(targets, e.to)
				}
			}
			to, err := add(n.closure(targets))
			if err != nil {
				return nil, err
			}
			d.edges[i] = append(d.edges[i], runeEdge{seg.Lo, seg.Hi, to})
		}
	}
	return d.minimize(), nil
}

// segments splits the ranges of edges into disjoint elementary segments
// covered by at least one edge.
func segments(edges []runeEdge) []grammar.RuneRange {
	var bounds []rune
	for _, e := range edges {
		bounds = append(bounds, e.lo, e.hi+1)
	}
	sort.Slice(bounds, func(i, j int) bool { return bounds[i] < bounds[j] })
	var out []grammar.RuneRange
	for i := 0; i+1 < len(bounds); i++ {
		lo, hi := bounds[i], bounds[i+1]-1
		if lo > hi {
			continue
		}
		for _, e := range edges {
			if e.lo <= lo && hi <= e.hi {
				out = append(out, grammar.RuneRange{Lo: lo, Hi: hi})
				break
			}
		}
	}
	return out
}

// String renders the automaton, as an identity for sharing rules.
func (d *runeDFA) String() string {
	var b strings.Builder
	for s, es := range d.edges {
		if d.accept[s] {
			b.WriteByte('*')
		}
		for _, e := range es {
			fmt.Fprintf(&b, "%x-%x>%d,", e.lo, e.hi, e.to)
		}
		b.WriteByte(';')
	}
	return b.String()
}

// next returns the state reached from s on r, or -1.
func (d *runeDFA) next(s int, r rune) int {
	for _, e := range d.edges[s] {
		if e.lo <= r && r <= e.hi {
			return e.to
		}
	}
	return -1
}

// literalsDFA accepts exactly the given strings.
func literalsDFA(words []string) *runeDFA {
	d := &runeDFA{edges: [][]runeEdge{nil}, accept: []bool{false}}
	for _, w := range words {
		s := 0
		for _, r := range w {
			t := d.next(s, r)
			if t < 0 {
				t = len(d.edges)
				d.edges = append(d.edges, nil)
				d.accept = append(d.accept, false)
				d.edges[s] = append(d.edges[s], runeEdge{r, r, t})
			}
			s = t
		}
		d.accept[s] = true
	}
	for i := range d.edges {
		sort.Slice(d.edges[i], func(a, b int) bool { return d.edges[i][a].lo < d.edges[i][b].lo })
	}
	return d
}

// lengthDFA accepts strings of length in [min, max] (max < 0: unbounded).
func lengthDFA(min, max int) (*runeDFA, error) {
	top := max
	if max < 0 {
		top = min
	}
	if top >= maxDFAStates {
		return nil, errAutomatonSize
	}
	d := &runeDFA{}
	for i := 0; i <= top; i++ {
		d.accept = append(d.accept, i >= min)
		var es []runeEdge
		to := i + 1
		if i == top {
			to = -1
			if max < 0 {
				to = i
			}
		}
		if to >= 0 {
			for _, u := range universe {
				es = append(es, runeEdge{u.Lo, u.Hi, to})
			}
		}
		d.edges = append(d.edges, es)
	}
	return d, nil
}

// complement returns the automaton of every string d rejects.
func (d *runeDFA) complement() *runeDFA {
	n := len(d.edges)
	out := &runeDFA{edges: make([][]runeEdge, n+1), accept: make([]bool, n+1)}
	for s := 0; s <= n; s++ {
		var es []runeEdge
		if s < n {
			es = d.edges[s]
			out.accept[s] = !d.accept[s]
		} else {
			out.accept[s] = true
		}
		// Fill the gaps of the universe with the dead state n.
		var filled []runeEdge
		for _, u := range universe {
			next := u.Lo
			for _, e := range es {
				if e.hi < u.Lo || e.lo > u.Hi {
					continue
				}
				if e.lo > next {
					filled = append(filled, runeEdge{next, e.lo - 1, n})
				}
				filled = append(filled, e)
				next = e.hi + 1
			}
			if next <= u.Hi {
				filled = append(filled, runeEdge{next, u.Hi, n})
			}
		}
		out.edges[s] = filled
	}
	return out.minimize()
}

// intersect returns the product automaton of d and e.
func (d *runeDFA) intersect(e *runeDFA) (*runeDFA, error) {
	if len(d.edges)*len(e.edges) > 16*maxDFAStates {
		return nil, errAutomatonSize
	}
	type pair struct{ a, b int }
	index := map[pair]int{{0, 0}: 0}
	queue := []pair{{0, 0}}
	out := &runeDFA{edges: [][]runeEdge{nil}, accept: []bool{d.accept[0] && e.accept[0]}}
	for i := 0; i < len(queue); i++ {
		p := queue[i]
		for _, x := range d.edges[p.a] {
			for _, y := range e.edges[p.b] {
				lo, hi := max(x.lo, y.lo), min(x.hi, y.hi)
				if lo > hi {
					continue
				}
				q := pair{x.to, y.to}
				t, ok := index[q]
				if !ok {
					if len(queue) >= maxDFAStates {
						return nil, errAutomatonSize
					}
					t = len(queue)
					index[q] = t
					queue = append(queue, q)
					out.edges = append(out.edges, nil)
					out.accept = append(out.accept, d.accept[q.a] && e.accept[q.b])
				}
				out.edges[i] = append(out.edges[i], runeEdge{lo, hi, t})
			}
		}
		sort.Slice(out.edges[i], func(a, b int) bool { return out.edges[i][a].lo < out.edges[i][b].lo })
	}
	return out.minimize(), nil
}

// isEmpty reports whether d accepts nothing.
func (d *runeDFA) isEmpty() bool {
	for _, a := range d.accept {
		if a {
			return false
		}
	}
	return true
}

// minimize trims states that cannot reach acceptance and merges equivalent
// states (Moore's partition refinement).
func (d *runeDFA) minimize() *runeDFA {
	n := len(d.edges)
	// Live states: those that can reach an accepting one.
	live := make([]bool, n)
	for changed := true; changed; {
		changed = false
		for s := 0; s < n; s++ {
			if live[s] {
				continue
			}
			if d.accept[s] {
				live[s], changed = true, true
				continue
			}
			for _, e := range d.edges[s] {
				if live[e.to] {
					live[s], changed = true, true
					break
				}
			}
		}
	}
	if !live[0] {
		return &runeDFA{edges: [][]runeEdge{nil}, accept: []bool{false}}
	}
	// Reachable states.
	reach := make([]bool, n)
	reach[0] = true
	for stack := []int{0}; len(stack) > 0; {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range d.edges[s] {
			if !reach[e.to] {
				reach[e.to] = true
				stack = append(stack, e.to)
			}
		}
	}
	class := make([]int, n)
	for s := range class {
		switch {
		case !live[s] || !reach[s]:
			class[s] = -1
		case d.accept[s]:
			class[s] = 1
		}
	}
	// Moore's refinement costs a round per distinguishable depth: large
	// automata (long counters) are only trimmed.
	for round := 0; n <= 600 || round == 0; round++ {
		if n > 600 {
			// Trim only: every live reachable state is its own class.
			for s := range class {
				if class[s] >= 0 {
					class[s] = s
				}
			}
			break
		}
		sigs := map[string]int{}
		next := make([]int, n)
		var buf []byte
		for s := 0; s < n; s++ {
			if class[s] < 0 {
				next[s] = -1
				continue
			}
			buf = binary.AppendVarint(buf[:0], int64(class[s]))
			for _, e := range mergeEdges(d.edges[s], class) {
				buf = binary.AppendVarint(buf, int64(e.lo))
				buf = binary.AppendVarint(buf, int64(e.hi))
				buf = binary.AppendVarint(buf, int64(e.to))
			}
			k := string(buf)
			id, ok := sigs[k]
			if !ok {
				id = len(sigs)
				sigs[k] = id
			}
			next[s] = id
		}
		if sameCount(class, next) {
			class = next
			break
		}
		class = next
	}
	// Renumber with the start state first.
	ids := map[int]int{class[0]: 0}
	order := []int{0}
	for s := 0; s < n; s++ {
		if class[s] >= 0 {
			if _, ok := ids[class[s]]; !ok {
				ids[class[s]] = len(order)
				order = append(order, s)
			}
		}
	}
	out := &runeDFA{edges: make([][]runeEdge, len(order)), accept: make([]bool, len(order))}
	for i, s := range order {
		out.accept[i] = d.accept[s]
		for _, e := range mergeEdges(d.edges[s], class) {
			out.edges[i] = append(out.edges[i], runeEdge{e.lo, e.hi, ids[e.to]})
		}
	}
	return out
}

// mergeEdges maps edge targets through class, drops dead ones and merges
// adjacent ranges with the same target.
func mergeEdges(es []runeEdge, class []int) []runeEdge {
	var out []runeEdge
	for _, e := range es {
		t := class[e.to]
		if t < 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].to == t && out[n-1].hi+1 == e.lo {
			out[n-1].hi = e.hi
			continue
		}
		out = append(out, runeEdge{e.lo, e.hi, t})
	}
	return out
}

func sameCount(a, b []int) bool {
	count := func(x []int) int {
		m := map[int]bool{}
		for _, v := range x {
			m[v] = true
		}
		return len(m)
	}
	return count(a) == count(b)
}

// maxEliminated bounds the expression state elimination may build on one
// edge, and maxEliminationWork the sum of the sizes of all the edges it
// builds: without the second bound, an automaton of a few thousand states
// (a multipleOf remainder automaton) builds millions of large edges before
// one of them trips the first.
const (
	maxEliminated      = 20000
	maxEliminationWork = 1 << 21
)

// dfaExpr turns d into an expression over the canonical spellings of its
// characters, by state elimination. It returns nil for the empty language,
// and an error wrapping errJSAutomatonSize when an edge would exceed
// maxEliminated nodes.
func (c *compiler) dfaExpr(d *runeDFA) (*grammar.Expr, error) {
	return c.dfaExprWithin(d, maxEliminated, maxEliminationWork)
}

// dfaExprWithin is dfaExpr with a bound of limit nodes on every edge built
// and of maxWork on the sum of their sizes.
// The expression nodes it counts are returned to the grammar's budget when
// it fails, since the caller falls back to another form.
func (c *compiler) dfaExprWithin(d *runeDFA, limit, maxWork int) (e *grammar.Expr, err error) {
	if d.isEmpty() {
		return nil, nil
	}
	before := c.exprSize
	defer func() {
		if err != nil {
			c.exprSize = before
		}
	}()
	work := 0
	n := len(d.edges)
	S, F := n, n+1
	type edge map[int]*grammar.Expr
	out := make([]edge, n+2)
	in := make([]map[int]bool, n+2)
	for i := range out {
		out[i] = edge{}
		in[i] = map[int]bool{}
	}
	// size holds the tree size of every edge's expression (shared subtrees
	// count each time they occur: that is what the automaton compiler sees).
	size := map[*grammar.Expr]int{}
	sizeOf := func(e *grammar.Expr) int {
		if n, ok := size[e]; ok {
			return n
		}
		return exprSize(e)
	}
	add := func(p, q int, e *grammar.Expr) {
		n := sizeOf(e)
		if old, ok := out[p][q]; ok {
			n += sizeOf(old) + 1
			e = grammar.Or(old, e)
		}
		size[e] = n
		out[p][q] = e
		in[q][p] = true
	}
	add(S, 0, grammar.Eps())
	for s := 0; s < n; s++ {
		byTarget := map[int][]grammar.RuneRange{}
		var targets []int
		for _, e := range d.edges[s] {
			if _, ok := byTarget[e.to]; !ok {
				targets = append(targets, e.to)
			}
			byTarget[e.to] = append(byTarget[e.to], grammar.RuneRange{Lo: e.lo, Hi: e.hi})
		}
		for _, t := range targets {
			add(s, t, c.charSet(grammar.NormalizeRanges(byTarget[t])))
		}
		if d.accept[s] {
			add(s, F, grammar.Eps())
		}
	}
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	for left := n; left > 0; left-- {
		if err := c.tick(1 + n/checkEvery); err != nil {
			return nil, err
		}
		// Eliminate the state with the fewest paths through it.
		best, bestCost := -1, 0
		for s := 0; s < n; s++ {
			if !alive[s] {
				continue
			}
			cost := len(in[s]) * len(out[s])
			if best < 0 || cost <= bestCost {
				best, bestCost = s, cost
			}
		}
		k := best
		alive[k] = false
		var loop *grammar.Expr
		if l, ok := out[k][k]; ok {
			loop = grammar.Rep(l, 0, -1)
		}
		for p := range in[k] {
			if p == k {
				continue
			}
			a := out[p][k]
			for q, b := range out[k] {
				if q == k {
					continue
				}
				parts := []*grammar.Expr{a}
				n := sizeOf(a) + sizeOf(b) + 1
				if loop != nil {
					parts = append(parts, loop)
					n += sizeOf(loop.Subs[0]) + 1
				}
				work += n
				if n > limit || work > maxWork {
					return nil, errAutomatonSize
				}
				if err := c.tick(1); err != nil {
					return nil, err
				}
				e := c.cat(append(parts, b)...)
				size[e] = n
				add(p, q, e)
			}
			delete(out[p], k)
		}
		for q := range out[k] {
			delete(in[q], k)
		}
		out[k] = nil
		in[k] = nil
	}
	e, ok := out[S][F]
	if !ok {
		return nil, nil
	}
	return e, nil
}

func exprSize(e *grammar.Expr) int {
	n := 1
	for _, s := range e.Subs {
		n += exprSize(s)
	}
	return n
}

// searchDFA returns the automaton of the strings in which re (a pattern or
// format, anchors at its ends) matches.
func searchDFA(re *syntax.Regexp) (*runeDFA, error) {
	alts, err := splitAnchors(re)
	if err != nil {
		return nil, err
	}
	var subs []*syntax.Regexp
	for _, a := range alts {
		parts := []*syntax.Regexp{}
		if !a.start {
			parts = append(parts, anyStar())
		}
		parts = append(parts, a.re)
		if !a.end {
			parts = append(parts, anyStar())
		}
		subs = append(subs, &syntax.Regexp{Op: syntax.OpConcat, Sub: parts})
	}
	whole := subs[0]
	if len(subs) > 1 {
		whole = &syntax.Regexp{Op: syntax.OpAlternate, Sub: subs}
	}
	return regexDFA(whole)
}

// stringAutomaton compiles the contents of a string under several character
// constraints at once, through automata. Its errors are errJSAutomatonSize,
// a *Error, or the reason a pattern cannot be expressed; compileString
// reports them.
func (c *compiler) stringAutomaton(s *schema, parts []stringPart, excluded []string, minLen, maxLen int) (*grammar.Expr, error) {
	fail := func(err error) (*grammar.Expr, error) { return nil, err }
	d, err := lengthDFA(minLen, maxLen)
	if err != nil {
		return fail(err)
	}
	for _, p := range parts {
		pd, err := searchDFA(p.re)
		if err != nil {
			return fail(err)
		}
		if d, err = d.intersect(pd); err != nil {
			return fail(err)
		}
	}
	for _, np := range s.notPatterns {
		jp, err := c.pattern(np, "not")
		if err != nil {
			return nil, err
		}
		pd, err := searchDFA(jp.re)
		if err != nil {
			return fail(err)
		}
		if d, err = d.intersect(pd.complement()); err != nil {
			return fail(err)
		}
	}
	if len(excluded) > 0 {
		if d, err = d.intersect(literalsDFA(excluded).complement()); err != nil {
			return fail(err)
		}
	}
	return c.dfaExpr(d)
}

// stringDFA returns the automaton of the strings branch s accepts (its
// string constraints only: length, patterns, known formats, enum, exclusions).
func (c *compiler) stringDFA(s *schema) (*runeDFA, error) {
	if s.hasEnum {
		var words []string
		for _, v := range s.enum {
			if v.kind != kindString {
				continue
			}
			if v.lone {
				// The automaton reads characters; a lone surrogate is none.
				return nil, c.unsupportedE(s.enumPtr, "enum", "a string with a lone surrogate cannot be matched here")
			}
			ok, err := c.validate(s, v)
			if err != nil {
				return nil, err
			}
			if ok {
				words = append(words, v.str)
			}
		}
		return literalsDFA(words), nil
	}
	parts, err := c.stringParts(s)
	if err != nil {
		return nil, err
	}
	d, err := lengthDFA(s.minLen, s.maxLen)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		pd, err := searchDFA(p.re)
		if err != nil {
			return nil, errAutomatonSize
		}
		if d, err = d.intersect(pd); err != nil {
			return nil, err
		}
	}
	for _, np := range s.notPatterns {
		jp, err := c.pattern(np, "not")
		if err != nil {
			return nil, err
		}
		pd, err := searchDFA(jp.re)
		if err != nil {
			return nil, errAutomatonSize
		}
		if d, err = d.intersect(pd.complement()); err != nil {
			return nil, err
		}
	}
	var excluded []string
	for _, v := range s.notVals {
		if v.kind == kindString {
			excluded = append(excluded, v.str)
		}
	}
	if len(excluded) > 0 {
		if d, err = d.intersect(literalsDFA(excluded).complement()); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// unsupportedE is unsupported for callers that have no value to return in
// Lenient mode: it returns errJSIgnore there, which callers treat as "drop
// the constraint".
func (c *compiler) unsupportedE(ptr, kw, format string, args ...any) error {
	if err := c.unsupported(ptr, kw, format, args...); err != nil {
		return err
	}
	return errIgnore
}

var errIgnore = errors.New("constraint ignored")
