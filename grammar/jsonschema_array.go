package grammar

// Arrays: prefixItems (or the array form of items) position by position,
// then items (additionalItems) for the rest, within minItems..maxItems.
// contains is "any items, then one that also matches contains, then any
// items", repeated minContains times; maxContains needs the negation of the
// contains schema.

func (c *schemaCompiler) compileArray(s *jsSchema) (*Expr, error) {
	minI, maxI := s.minItems, s.maxItems
	if maxI >= 0 && minI > maxI {
		return nil, nil
	}
	for _, u := range s.unique {
		if maxI >= 0 && maxI <= 1 {
			continue
		}
		if err := c.unsupported(u.ptr, u.kw, "%s", u.msg); err != nil {
			return nil, err
		}
	}
	ws := c.ws
	sep := c.cat(ws, Lit(","), ws)
	var prefix []*Expr
	for i, p := range s.prefix {
		if maxI >= 0 && i >= maxI {
			break
		}
		v, err := c.valueRef(p, jsRuleName(s.ptr+"/prefixItems"))
		if err != nil {
			return nil, err
		}
		if v == nil {
			maxI = i
			break
		}
		prefix = append(prefix, v)
	}
	var rest *Expr
	if maxI < 0 || maxI > len(prefix) {
		if len(prefix) == len(s.prefix) {
			var err error
			if rest, err = c.valueRef(s.items, jsRuleName(s.ptr+"/items")); err != nil {
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
	var list *Expr // at least one element
	var err error
	if len(s.contains) > 0 {
		list, err = c.arrayContains(s, prefix, rest, minI, maxI, sep)
		if err != nil {
			return nil, err
		}
		if list == nil && minI > 0 {
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
		return c.cat(Lit("["), ws, Lit("]")), nil
	case list == nil:
		return nil, nil
	case minI == 0 && !s.containsRequired():
		return c.cat(Lit("["), ws, c.opt(c.cat(list, ws)), Lit("]")), nil
	}
	return c.cat(Lit("["), ws, list, ws, Lit("]")), nil
}

func (s *jsSchema) containsRequired() bool {
	for _, ct := range s.contains {
		if ct.min > 0 {
			return true
		}
	}
	return false
}

// arrayList matches between minI (>= 1) and maxI (< 0: unbounded) elements,
// prefix[i] at position i and rest after them.
func (c *schemaCompiler) arrayList(prefix []*Expr, rest *Expr, minI, maxI int, sep *Expr) (*Expr, error) {
	if maxI == 0 {
		return nil, nil
	}
	n := len(prefix)
	// The tail after the prefix (or the whole list when there is none).
	var tail *Expr
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
		tail = Eps()
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
func (c *schemaCompiler) arrayContains(s *jsSchema, prefix []*Expr, rest *Expr, minI, maxI int, sep *Expr) (*Expr, error) {
	if len(s.contains) > 1 || len(prefix) > 0 || rest == nil {
		if err := c.unsupported(s.contains[0].ptr, "contains", "contains together with prefixItems, items false or another contains cannot be enforced"); err != nil {
			return nil, err
		}
		return c.arrayList(prefix, rest, max(minI, 1), maxI, sep)
	}
	ct := s.contains[0]
	if ct.max >= 0 {
		if err := c.unsupported(ct.ptr, "maxContains", "maxContains cannot be enforced"); err != nil {
			return nil, err
		}
	}
	k := ct.min
	if k == 0 {
		return c.arrayList(nil, rest, max(minI, 1), maxI, sep)
	}
	if minI > k || maxI >= 0 {
		if err := c.unsupported(ct.ptr, "contains", "contains together with minItems/maxItems cannot be enforced"); err != nil {
			return nil, err
		}
	}
	if k > 64 {
		return nil, c.limitf(ct.ptr, "minContains", "%d is above the limit of 64", k)
	}
	both, err := c.valueRef(s.items.and(ct.conj...), jsRuleName(ct.ptr+"/contains"))
	if err != nil || both == nil {
		return nil, err
	}
	// (I ,)* C ( , (I ,)* C ){k-1} ( , I )*
	pre := Rep(c.cat(rest, sep), 0, -1)
	parts := []*Expr{pre, both}
	for i := 1; i < k; i++ {
		parts = append(parts, sep, pre, both)
	}
	parts = append(parts, Rep(c.cat(sep, rest), 0, -1))
	return c.cat(parts...), nil
}
