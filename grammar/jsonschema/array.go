package jsonschema

import "github.com/reinlm/rein/grammar"

// Arrays: prefixItems (or the array form of items) position by position,
// then items (additionalItems) for the rest, within minItems..maxItems.
// contains is "any items, then one that also matches contains, then any
// items", repeated minContains times; maxContains needs the negation of the
// contains schema.

func (c *compiler) compileArray(s *schema) (*grammar.Expr, error) {
	minI, maxI := s.minItems, s.maxItems
	if maxI >= 0 && minI > maxI {
		return nil, nil
	}
	var unique *grammar.UniqueItems
	if len(s.unique) > 0 && (maxI < 0 || maxI > 1) {
		u, distinct, err := c.uniqueItems(s)
		if err != nil {
			return nil, err
		}
		if distinct >= 0 && minI > distinct {
			return nil, nil // fewer distinct values than items required
		}
		unique = u
	}
	e, err := c.arrayBody(s, minI, maxI)
	if err != nil || e == nil || unique == nil {
		return e, err
	}
	// The matcher checks that items are distinct where a rule marked
	// Unique reads the array (from its "[").
	r, err := c.newRule(ruleName(s.ptr)+"-unique", e)
	if err != nil {
		return nil, err
	}
	c.rules[r].Unique = unique
	return grammar.Call(r), nil
}

// arrayBody compiles the array of s with between minI and maxI items.
func (c *compiler) arrayBody(s *schema, minI, maxI int) (*grammar.Expr, error) {
	ws := c.ws
	sep := c.cat(ws, grammar.Lit(","), ws)
	var prefix []*grammar.Expr
	for i, p := range s.prefix {
		if maxI >= 0 && i >= maxI {
			break
		}
		v, err := c.valueRef(p, ruleName(s.ptr+"/prefixItems"))
		if err != nil {
			return nil, err
		}
		if v == nil {
			maxI = i
			break
		}
		prefix = append(prefix, v)
	}
	var rest *grammar.Expr
	if maxI < 0 || maxI > len(prefix) {
		if len(prefix) == len(s.prefix) {
			var err error
			if rest, err = c.valueRef(s.items, ruleName(s.ptr+"/items")); err != nil {
				return nil, err
			}
		}
		if rest == nil {
			maxI = len(prefix)
		}
	}
	if minI > len(prefix) && rest == nil {
		return nil, nil
	}
	var list *grammar.Expr // at least one element
	s, minI, err := c.containsByItems(s, minI)
	if err != nil || s == nil || maxI >= 0 && minI > maxI {
		return nil, err
	}
	if len(s.contains) > 0 {
		list, err = c.arrayContains(s, prefix, rest, minI, maxI, sep)
		if err != nil {
			return nil, err
		}
		if list == nil && (minI > 0 || s.containsRequired()) {
			return nil, nil
		}
	} else {
		list, err = c.arrayList(prefix, rest, max(minI, 1), maxI, sep)
		if err != nil {
			return nil, err
		}
	}
	switch {
	case list == nil && minI == 0:
		return c.cat(grammar.Lit("["), ws, grammar.Lit("]")), nil
	case list == nil:
		return nil, nil
	case minI == 0 && !s.containsRequired():
		return c.cat(grammar.Lit("["), ws, c.opt(c.cat(list, ws)), grammar.Lit("]")), nil
	}
	return c.cat(grammar.Lit("["), ws, list, ws, grammar.Lit("]")), nil
}

// containsByItems drops the contains that items decide, without prefixItems:
// a contains whose schema no item can match allows no array (nil) when it
// asks for an element, and one that every item matches (the negation of a
// schema no item matches, as negating another array's items gives) is
// minItems. It returns s, changed on a copy, and the new minItems.
func (c *compiler) containsByItems(s *schema, minI int) (*schema, int, error) {
	if len(s.prefix) > 0 || len(s.contains) == 0 {
		return s, minI, nil
	}
	items, err := c.conjDNF(s.items, s.ptr)
	if err != nil {
		return nil, 0, err
	}
	var keep []contains
	for _, ct := range s.contains {
		if ct.max >= 0 {
			keep = append(keep, ct)
			continue
		}
		negated := len(ct.conj) == 1 && len(ct.conj[0].neg) > 0
		against := ct.conj
		if negated {
			against = ct.conj[0].neg
		}
		d, err := c.conjDNF(against, ct.ptr)
		if err != nil {
			return nil, 0, err
		}
		apart, err := c.disjointSets(items, d, 0)
		if err != nil {
			return nil, 0, err
		}
		switch {
		case !apart:
			keep = append(keep, ct)
		case negated:
			// Every item matches the contains schema.
			minI = max(minI, ct.min)
		case ct.min > 0:
			// No item matches it.
			return nil, 0, nil
		}
	}
	if len(keep) < len(s.contains) {
		s = s.clone()
		s.contains = keep
	}
	return s, minI, nil
}

func (s *schema) containsRequired() bool {
	for _, ct := range s.contains {
		if ct.min > 0 {
			return true
		}
	}
	return false
}

// arrayList matches between minI (>= 1) and maxI (< 0: unbounded) elements,
// prefix[i] at position i and rest after them.
func (c *compiler) arrayList(prefix []*grammar.Expr, rest *grammar.Expr, minI, maxI int, sep *grammar.Expr) (*grammar.Expr, error) {
	if maxI == 0 {
		return nil, nil
	}
	n := len(prefix)
	// The tail after the prefix (or the whole list when there is none).
	var tail *grammar.Expr
	if rest != nil && (maxI < 0 || maxI > n) {
		lo := max(minI-n, 0)
		hi := -1
		if maxI >= 0 {
			hi = maxI - n
		}
		var err error
		if n == 0 {
			restHi := -1
			if hi > 0 {
				restHi = hi - 1
			}
			r, err := c.bigRepeat(c.cat(sep, rest), max(lo-1, 0), restHi, "items")
			if err != nil {
				return nil, err
			}
			return c.cat(rest, r), nil
		}
		if tail, err = c.bigRepeat(c.cat(sep, rest), lo, hi, "items"); err != nil {
			return nil, err
		}
	} else if n == 0 || minI > n {
		return nil, nil
	} else {
		tail = grammar.Eps()
	}
	// The prefix, from the last element back: element i is required when i < minI.
	e := tail
	for i := n - 1; i >= 0; i-- {
		el := prefix[i]
		if i > 0 {
			el = c.cat(sep, el)
		}
		if i < minI || i == 0 {
			e = c.cat(el, e)
		} else {
			e = c.opt(c.cat(el, e))
		}
	}
	return e, nil
}

// arrayContains handles contains (with minContains and maxContains): one
// contains alone in an array without prefixItems or item bounds as an
// expression, the rest by arrayContainsAll or arrayContainsCounted.
func (c *compiler) arrayContains(s *schema, prefix []*grammar.Expr, rest *grammar.Expr, minI, maxI int, sep *grammar.Expr) (*grammar.Expr, error) {
	if len(s.contains) > 1 && len(prefix) == 0 && rest != nil && minI <= 1 && maxI < 0 {
		if e, ok, err := c.arrayContainsAll(s, rest, sep); err != nil || ok {
			return e, err
		}
	}
	ct := s.contains[0]
	k, m := ct.min, ct.max
	if m >= 0 && m < k {
		return nil, nil
	}
	if len(s.contains) > 1 || len(prefix) > 0 || rest == nil || minI > max(k, 1) || maxI >= 0 {
		e, ok, err := c.arrayContainsCounted(s, len(prefix), rest != nil, minI, maxI, sep)
		if err != nil || ok {
			return e, err
		}
		msg := "contains together with minItems/maxItems cannot be enforced"
		if len(s.contains) > 1 || len(prefix) > 0 || rest == nil {
			msg = "contains together with prefixItems, items false or another contains cannot be enforced"
		}
		if err := c.unsupported(ct.ptr, "contains", "%s", msg); err != nil {
			return nil, err
		}
		return c.arrayList(prefix, rest, max(minI, 1), maxI, sep)
	}
	if k > c.opts.Limits.Repeat || m > c.opts.Limits.Repeat {
		return nil, c.limitf(ct.ptr, "minContains", "a count above Limits.Repeat (%d)", c.opts.Limits.Repeat)
	}
	// Elements are C (items and contains) or N (items, and not contains
	// when maxContains counts them; any item otherwise). Lists with k to m
	// C elements: N* (C N*){k,m}, written with separators before each
	// element but the first.
	C, err := c.valueRef(s.items.and(ct.conj...), ruleName(ct.ptr+"/contains"))
	if err != nil {
		return nil, err
	}
	N := rest
	if m >= 0 {
		if N, err = c.valueRef(s.items.and(c.negation(ct.conj)), ruleName(ct.ptr+"/not-contains")); err != nil {
			return nil, err
		}
	}
	tail := func(a, b int) (*grammar.Expr, error) {
		if b >= 0 && b < a {
			return nil, nil
		}
		sn := c.rep(c.cat(sep, N), 0, -1)
		if N == nil {
			sn = grammar.Eps()
		}
		reps, err := c.bigRepeat(c.cat(c.cat(sep, C), sn), a, b, "contains")
		if err != nil {
			return nil, err
		}
		return c.cat(sn, reps), nil
	}
	var alts []*grammar.Expr
	if N != nil {
		t, err := tail(k, m)
		if err != nil {
			return nil, err
		}
		alts = append(alts, c.cat(N, t))
	}
	if C != nil && m != 0 {
		b := -1
		if m > 0 {
			b = m - 1
		}
		t, err := tail(max(k-1, 0), b)
		if err != nil {
			return nil, err
		}
		alts = append(alts, c.cat(C, t))
	}
	return c.or(alts...), nil
}

// arrayContainsAll handles several contains, each asking for at least one
// element (what negating items of oneOf alternatives gives): one rule per
// set of contains already satisfied, each element moving to a larger set.
// ok is false when a count other than "at least one" is asked for.
func (c *compiler) arrayContainsAll(s *schema, rest, sep *grammar.Expr) (*grammar.Expr, bool, error) {
	var cts []contains
	for _, ct := range s.contains {
		switch {
		case ct.max >= 0 || ct.min > 1:
			return nil, false, nil
		case ct.min == 1:
			cts = append(cts, ct)
		}
	}
	if len(cts) > 3 {
		return nil, false, nil
	}
	full := 1<<len(cts) - 1
	// Elements matching the contains of each non-empty subset.
	elems := make([]*grammar.Expr, full+1)
	elems[0] = rest
	for set := 1; set <= full; set++ {
		cj := s.items
		for i, ct := range cts {
			if set&(1<<i) != 0 {
				cj = cj.and(ct.conj...)
			}
		}
		e, err := c.valueRef(cj, ruleName(s.ptr+"/contains"))
		if err != nil {
			return nil, false, err
		}
		elems[set] = e
	}
	rules := make([]int, full+1)
	for st := range rules {
		r, err := c.newRule(ruleName(s.ptr)+"-contains", grammar.Eps())
		if err != nil {
			return nil, false, err
		}
		rules[st] = r
	}
	// Rule st: the rest of the list after an element, the contains in st
	// satisfied so far.
	step := func(st int, lead *grammar.Expr) []*grammar.Expr {
		var alts []*grammar.Expr
		for set, e := range elems {
			if e != nil {
				alts = append(alts, c.cat(lead, e, grammar.Call(rules[st|set])))
			}
		}
		return alts
	}
	for st := 0; st <= full; st++ {
		alts := step(st, sep)
		if st == full {
			alts = append(alts, grammar.Eps())
		}
		body := c.or(alts...)
		if body == nil {
			body = &grammar.Expr{Op: grammar.OpAlt}
		}
		c.rules[rules[st]].Body = body
	}
	return c.or(step(0, grammar.Eps())...), true, nil
}

// Bounds of arrayContainsCounted: the contains it tells apart per element
// (each element is one of 2^n kinds), and the states it walks.
const (
	maxCountedContains = 3
	maxContainsStates  = 512
)

// arrayContainsCounted handles what the expression of arrayContains cannot:
// several contains, prefixItems, items false and minItems/maxItems beside
// them. It walks an automaton whose state is the position (up to the last
// one that matters) and, per contains, the elements matched so far (up to
// minContains, or maxContains + 1 where that is bounded); each state is a
// rule, and each element takes the item schema of its position and, per
// contains, that schema or (where maxContains counts) its negation. ok is
// false when there are more contains or states than the bounds above.
func (c *compiler) arrayContainsCounted(s *schema, nPrefix int, hasRest bool, minI, maxI int, sep *grammar.Expr) (*grammar.Expr, bool, error) {
	cts := s.contains
	if len(cts) > maxCountedContains {
		return nil, false, nil
	}
	for _, ct := range cts {
		if ct.min > c.opts.Limits.Repeat || ct.max > c.opts.Limits.Repeat {
			return nil, false, c.limitf(ct.ptr, "minContains", "a count above Limits.Repeat (%d)", c.opts.Limits.Repeat)
		}
		if ct.max >= 0 && ct.max < ct.min {
			return nil, true, nil
		}
	}
	// Positions past last behave alike (unless maxItems bounds them).
	last := max(nPrefix, minI)
	if maxI >= 0 {
		last = maxI
	}
	type state struct {
		pos    int
		counts [maxCountedContains]int
	}
	// The number of states is bounded by the product of the dimensions.
	states := last + 1
	for _, ct := range cts {
		if ct.max >= 0 {
			states *= ct.max + 1
		} else {
			states *= ct.min + 1
		}
		if states > maxContainsStates {
			return nil, false, nil
		}
	}
	accepting := func(st state) bool {
		if st.pos < minI {
			return false
		}
		for j, ct := range cts {
			if st.counts[j] < ct.min {
				return false
			}
		}
		return true
	}
	// elem returns the element of kind set (the contains it matches) at
	// position pos, nil when there is none.
	elemMemo := map[[2]int]*grammar.Expr{}
	elem := func(pos, set int) (*grammar.Expr, error) {
		slot := min(pos, nPrefix)
		if e, ok := elemMemo[[2]int{slot, set}]; ok {
			return e, nil
		}
		var cj conj
		switch {
		case pos < nPrefix:
			cj = s.prefix[pos]
		case hasRest:
			cj = s.items
		default:
			return nil, nil
		}
		for j, ct := range cts {
			if set&(1<<j) != 0 {
				cj = cj.and(ct.conj...)
			} else if ct.max >= 0 {
				cj = cj.and(c.negation(ct.conj))
			}
		}
		e, err := c.valueRef(cj, ruleName(s.ptr+"/contains"))
		elemMemo[[2]int{slot, set}] = e
		return e, err
	}
	rules := map[state]int{}
	var queue []state
	ruleOf := func(st state) (int, error) {
		if r, ok := rules[st]; ok {
			return r, nil
		}
		r, err := c.newRule(ruleName(s.ptr)+"-contains", grammar.Eps())
		if err != nil {
			return 0, err
		}
		rules[st] = r
		queue = append(queue, st)
		return r, nil
	}
	// step returns the elements that may follow in st, each led by lead
	// and followed by the call of the state it leads to.
	step := func(st state, lead *grammar.Expr) ([]*grammar.Expr, error) {
		if maxI >= 0 && st.pos >= maxI {
			return nil, nil
		}
		var alts []*grammar.Expr
		for set := 0; set < 1<<len(cts); set++ {
			next := state{pos: min(st.pos+1, last)}
			ok := true
			for j, ct := range cts {
				n := st.counts[j]
				if set&(1<<j) != 0 {
					switch {
					case ct.max >= 0 && n == ct.max:
						ok = false
					case ct.max < 0 && n == ct.min:
						// Already enough: the element need not be told
						// apart (the kind without j takes any item).
						ok = false
					default:
						n++
					}
				}
				next.counts[j] = n
			}
			if !ok {
				continue
			}
			e, err := elem(st.pos, set)
			if err != nil {
				return nil, err
			}
			if e == nil {
				continue
			}
			r, err := ruleOf(next)
			if err != nil {
				return nil, err
			}
			alts = append(alts, c.cat(lead, e, grammar.Call(r)))
		}
		return alts, nil
	}
	first, err := step(state{}, grammar.Eps())
	if err != nil {
		return nil, false, err
	}
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		alts, err := step(st, sep)
		if err != nil {
			return nil, false, err
		}
		if accepting(st) {
			alts = append(alts, grammar.Eps())
		}
		body := c.or(alts...)
		if body == nil {
			body = &grammar.Expr{Op: grammar.OpAlt}
		}
		c.rules[rules[st]].Body = body
	}
	return c.or(first...), true, nil
}
