package grammar

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// RemoveLeftRecursion returns a grammar that matches what g matches and in
// which no rule can reach a call to itself before matching anything, or g
// itself when it has no such left recursion. Package pda compiles rules
// into automata that cannot run a left-recursive rule, so it calls this
// first for a grammar that has one.
//
// The rules of each cycle of left calls are rewritten in turn (Paull's
// algorithm, on the IR): a rule's alternatives that start with a call to
// an earlier rule of the cycle get that rule's alternatives in its place,
// and then a rule r ::= r a1 | ... | r an | b1 | ... | bm becomes
// r ::= (b1 | ... | bm) (a1 | ... | an)*. Groups, repetitions of at least
// one, and optional or starred prefixes that do not match the empty string
// themselves are opened up to find the calls at the left. The language does
// not change; the rewritten rules keep their names. A left call behind a
// prefix that may match the empty string in another way (a nullable rule,
// %text, a regex matching "") is an error wrapping ErrUnsupported, and a
// rewrite that would grow past Limits.ExprNodes new expression nodes is an
// error wrapping ErrLimit.
func RemoveLeftRecursion(g *Grammar, lim Limits) (*Grammar, error) {
	return RemoveLeftRecursionContext(context.Background(), g, lim)
}

// RemoveLeftRecursionContext is RemoveLeftRecursion that stops once ctx
// ends, with an error wrapping ctx.Err(), within a few thousand steps.
func RemoveLeftRecursionContext(ctx context.Context, g *Grammar, lim Limits) (*Grammar, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	lim = lim.WithDefaults()
	x := &leftRec{g: g, budget: lim.ExprNodes, ctx: ctx}
	x.nullable = rulesNullable(g)
	left := make([][]int, len(g.Rules))
	for r := range g.Rules {
		x.firstRefs(g.Rules[r].Body, func(c int) { left[r] = append(left[r], c) })
	}
	cycles := cyclicComponents(left)
	if len(cycles) == 0 {
		return g, nil
	}
	out := &Grammar{Rules: slices.Clone(g.Rules), Root: g.Root}
	x.g = out
	for _, cycle := range cycles {
		if err := x.rewrite(cycle); err != nil {
			return nil, err
		}
	}
	return out, nil
}

type leftRec struct {
	g        *Grammar
	nullable []bool
	in       map[int]int // the rules of the cycle being rewritten -> their order
	budget   int         // expression nodes the rewrite may still make
	ctx      context.Context
	steps    int
}

// rulesNullable reports, per rule, whether it matches the empty string.
func rulesNullable(g *Grammar) []bool {
	n := make([]bool, len(g.Rules))
	for changed := true; changed; {
		changed = false
		for r, rule := range g.Rules {
			if !n[r] && exprNullable(rule.Body, n) {
				n[r], changed = true, true
			}
		}
	}
	return n
}

func exprNullable(e *Expr, rules []bool) bool {
	switch e.Op {
	case OpEmpty, OpText:
		return true
	case OpSeq:
		for _, s := range e.Subs {
			if !exprNullable(s, rules) {
				return false
			}
		}
		return true
	case OpAlt:
		for _, s := range e.Subs {
			if exprNullable(s, rules) {
				return true
			}
		}
		return false
	case OpRepeat:
		return e.Min == 0 || exprNullable(e.Subs[0], rules)
	case OpRef:
		return rules[e.Rule]
	case OpRegex:
		re, err := regexp.Compile(`^(?:` + e.Regexp.String() + `)$`)
		return err != nil || re.MatchString("")
	}
	return false // bytes, classes, tokens
}

// firstRefs calls add with each rule e may call before matching anything
// and reports whether e matches the empty string.
func (x *leftRec) firstRefs(e *Expr, add func(int)) bool {
	switch e.Op {
	case OpRef:
		add(e.Rule)
		return x.nullable[e.Rule]
	case OpSeq:
		for _, s := range e.Subs {
			if !x.firstRefs(s, add) {
				return false
			}
		}
		return true
	case OpAlt:
		any := false
		for _, s := range e.Subs {
			if x.firstRefs(s, add) {
				any = true
			}
		}
		return any
	case OpRepeat:
		return x.firstRefs(e.Subs[0], add) || e.Min == 0
	}
	return exprNullable(e, x.nullable)
}

// reachesCycle reports whether the sequence seq may call a rule of the
// cycle before matching anything.
func (x *leftRec) reachesCycle(seq []*Expr) bool {
	found := false
	for _, e := range seq {
		if !x.firstRefs(e, func(r int) { _, ok := x.in[r]; found = found || ok }) || found {
			break
		}
	}
	return found
}

// cyclicComponents returns the strongly connected components of the graph
// edges that hold a cycle (more than one rule, or a rule with an edge to
// itself), each sorted. Tarjan's algorithm on an explicit stack.
func cyclicComponents(edges [][]int) [][]int {
	n := len(edges)
	index, low := make([]int, n), make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var out [][]int
	type frame struct{ v, next int }
	next := 0
	for root := range n {
		if index[root] >= 0 {
			continue
		}
		calls := []frame{{v: root}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			if f.next < len(edges[f.v]) {
				w := edges[f.v][f.next]
				f.next++
				switch {
				case index[w] < 0:
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					calls = append(calls, frame{v: w})
				case onStack[w]:
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				u := calls[len(calls)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			var comp []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			if len(comp) > 1 || slices.Contains(edges[v], v) {
				slices.Sort(comp)
				out = append(out, comp)
			}
		}
	}
	return out
}

// rewrite removes the left recursion of one cycle of rules.
func (x *leftRec) rewrite(cycle []int) error {
	x.in = make(map[int]int, len(cycle))
	for i, r := range cycle {
		x.in[r] = i
	}
	alts := make(map[int][][]*Expr, len(cycle))
	for i, r := range cycle {
		cur, err := x.expand([][]*Expr{{x.g.Rules[r].Body}}, r)
		if err != nil {
			return err
		}
		// Calls at the left to earlier rules of the cycle get those
		// rules' (rewritten) alternatives in their place, until none is
		// left: each round moves the first calls to later rules.
		for round := 0; ; round++ {
			var next [][]*Expr
			changed := false
			for _, a := range cur {
				if j, ok := x.leftCall(a); ok && x.in[j] < i {
					for _, b := range alts[j] {
						next = append(next, concat(b, a[1:]))
					}
					changed = true
					continue
				}
				next = append(next, a)
			}
			if !changed {
				break
			}
			if round > len(cycle) {
				return fmt.Errorf("the left recursion of rule %q does not come apart (%w)", x.g.Rules[r].Name, ErrUnsupported)
			}
			var err error
			if cur, err = x.expand(next, r); err != nil {
				return err
			}
		}
		// r ::= r a1 | ... | b1 | ...  becomes  r ::= (b1 | ...) (a1 | ...)*
		var base, tails [][]*Expr
		for _, a := range cur {
			if j, ok := x.leftCall(a); ok && j == r {
				tails = append(tails, a[1:])
			} else {
				base = append(base, a)
			}
		}
		alts[r] = base
		body := orOf(base)
		if len(tails) > 0 {
			if err := x.spend(r, 2+len(tails)); err != nil {
				return err
			}
			body = Cat(body, Rep(orOf(tails), 0, -1))
			if alts[r], err = x.expand([][]*Expr{{body}}, r); err != nil {
				return err
			}
		}
		x.g.Rules[r].Body = body
	}
	return nil
}

// leftCall returns the rule of the cycle that the alternative a starts
// with a call to.
func (x *leftRec) leftCall(a []*Expr) (int, bool) {
	if len(a) == 0 || a[0].Op != OpRef {
		return 0, false
	}
	_, ok := x.in[a[0].Rule]
	return a[0].Rule, ok
}

// expand opens up the start of each alternative (a sequence) until it
// starts with a call to a rule of the cycle, or with something that cannot
// reach one before matching anything.
func (x *leftRec) expand(work [][]*Expr, r int) ([][]*Expr, error) {
	var out [][]*Expr
	for len(work) > 0 {
		s := work[len(work)-1]
		work = work[:len(work)-1]
		if err := x.spend(r, len(s)); err != nil {
			return nil, err
		}
		if len(s) == 0 {
			out = append(out, s)
			continue
		}
		f, rest := s[0], s[1:]
		if !x.reachesCycle(s[:1]) && !(exprNullable(f, x.nullable) && x.reachesCycle(rest)) {
			out = append(out, s) // nothing of the cycle at the left
			continue
		}
		switch {
		case f.Op == OpSeq:
			work = append(work, concat(f.Subs, rest))
		case f.Op == OpAlt:
			for _, sub := range f.Subs {
				work = append(work, concat([]*Expr{sub}, rest))
			}
		case f.Op == OpEmpty:
			work = append(work, rest)
		case f.Op == OpRef && !x.nullable[f.Rule]:
			out = append(out, s) // a call of the cycle
		case f.Op == OpRef:
			if _, in := x.in[f.Rule]; in && !x.reachesCycle(rest) {
				out = append(out, s) // a call of the cycle, whose rest cannot call one at the left
				continue
			}
			return nil, fmt.Errorf("rule %q calls itself behind %s, which may match the empty string (%w)", x.g.Rules[r].Name, describeExpr(f, x.g), ErrUnsupported)
		case f.Op == OpRepeat && !exprNullable(f.Subs[0], x.nullable):
			// x{m,n} rest  ->  x x{m-1,n-1} rest  (and rest when m is 0)
			sub, hi := f.Subs[0], f.Max
			if hi > 0 {
				hi--
			}
			if f.Max != 0 {
				work = append(work, concat([]*Expr{sub, Rep(sub, max(f.Min-1, 0), hi)}, rest))
			}
			if f.Min == 0 {
				work = append(work, rest)
			}
		default:
			return nil, fmt.Errorf("rule %q calls itself behind %s, which may match the empty string (%w)", x.g.Rules[r].Name, describeExpr(f, x.g), ErrUnsupported)
		}
	}
	slices.Reverse(out)
	return out, nil
}

// spend counts n new expression nodes against the rewrite's budget.
func (x *leftRec) spend(r, n int) error {
	if x.steps++; x.steps%1024 == 0 {
		if err := x.ctx.Err(); err != nil {
			return fmt.Errorf("grammar: removing left recursion: %w", err)
		}
	}
	if x.budget -= n; x.budget < 0 {
		return fmt.Errorf("removing the left recursion of rule %q makes more than Limits.ExprNodes expression nodes (%w)", x.g.Rules[r].Name, ErrLimit)
	}
	return nil
}

func concat(a, b []*Expr) []*Expr {
	return append(append(make([]*Expr, 0, len(a)+len(b)), a...), b...)
}

// orOf is the alternation of the sequences alts.
func orOf(alts [][]*Expr) *Expr {
	parts := make([]*Expr, len(alts))
	for i, a := range alts {
		parts[i] = Cat(a...)
	}
	return Or(parts...)
}

// describeExpr names e for an error: a rule by name, else its GBNF.
func describeExpr(e *Expr, g *Grammar) string {
	if e.Op == OpRef {
		return fmt.Sprintf("rule %q", g.Rules[e.Rule].Name)
	}
	s := e.String()
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strings.TrimSpace(s)
}
