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
	var err error
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

// arrayContains handles contains (with minContains) for arrays without
// prefixItems and without bounds other than what the contains counts imply.
func (c *compiler) arrayContains(s *schema, prefix []*grammar.Expr, rest *grammar.Expr, minI, maxI int, sep *grammar.Expr) (*grammar.Expr, error) {
	if len(s.contains) > 1 && len(prefix) == 0 && rest != nil && minI <= 1 && maxI < 0 {
		if e, ok, err := c.arrayContainsAll(s, rest, sep); err != nil || ok {
			return e, err
		}
	}
	if len(s.contains) > 1 || len(prefix) > 0 || rest == nil {
		if err := c.unsupported(s.contains[0].ptr, "contains", "contains together with prefixItems, items false or another contains cannot be enforced"); err != nil {
			return nil, err
		}
		return c.arrayList(prefix, rest, max(minI, 1), maxI, sep)
	}
	ct := s.contains[0]
	k, m := ct.min, ct.max
	if m >= 0 && m < k {
		return nil, nil
	}
	if minI > max(k, 1) || maxI >= 0 {
		if err := c.unsupported(ct.ptr, "contains", "contains together with minItems/maxItems cannot be enforced"); err != nil {
			return nil, err
		}
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
