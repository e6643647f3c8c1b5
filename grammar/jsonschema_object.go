package grammar

import "fmt"

// Objects. Declared properties come in declared order, each optional unless
// required; undeclared keys ("additional" ones, with the value schema that
// patternProperties/additionalProperties give them) follow. The separators
// are placed by a small automaton over (next declared property, properties
// written so far), so optional properties can be skipped without leaving a
// dangling comma; its states become rules only where they are shared and
// large, keeping every rule's automaton small. Undeclared keys never spell a
// declared name (their values would then be checked against the wrong
// schema); keys use the canonical spelling so that this exclusion is exact.

// jsObjItem is one declared property of an object branch.
type jsObjItem struct {
	name     string
	kv       *Expr // "name" ws ":" ws value; nil when the property is forbidden
	required bool
}

// jsExtra is one region of undeclared keys: the key contents and the value.
type jsExtra struct {
	key   *Expr
	value *Expr
}

func (c *schemaCompiler) compileObject(s *jsSchema) (*Expr, error) {
	if s.maxProps >= 0 && s.minProps > s.maxProps {
		return nil, nil
	}
	ws := c.ws
	colon := c.cat(ws, Lit(":"), ws)
	// Declared properties, then required names declared nowhere.
	props := append([]jsProp(nil), s.props...)
	for _, r := range s.required {
		if s.prop(r) < 0 {
			cj, err := c.groupConj(s, r)
			if err != nil {
				return nil, err
			}
			props = append(props, jsProp{r, cj})
		}
	}
	names := make([]string, len(props))
	items := make([]jsObjItem, 0, len(props))
	for i, p := range props {
		names[i] = p.name
		item := jsObjItem{name: p.name, required: s.isRequired(p.name)}
		ok := true
		if !s.propNames.isTrue() {
			var err error
			if ok, err = c.validateConj(s.propNames, &jsNode{kind: jsString, str: p.name}); err != nil {
				return nil, err
			}
		}
		if ok && !p.conj.isFalse() {
			v, err := c.valueRef(p.conj, jsRuleName(s.ptr+"/properties/"+jsEscapePointer(p.name)))
			if err != nil {
				return nil, err
			}
			if v != nil {
				item.kv = c.cat(Lit(jsQuote(p.name)), colon, v)
			}
		}
		if item.kv == nil && item.required {
			return nil, nil
		}
		items = append(items, item)
	}
	extras, err := c.objectExtras(s, names)
	if err != nil {
		return nil, err
	}
	var extra *Expr
	var alts []*Expr
	for _, x := range extras {
		alts = append(alts, c.cat(Lit(`"`), x.key, Lit(`"`), colon, x.value))
	}
	extra = c.or(alts...)
	if c.opts.Order == OrderAny {
		return c.objectAnyOrder(s, items, extra)
	}
	return c.objectDeclared(s, items, extra)
}

// objectExtras returns the regions of undeclared keys and their values.
func (c *schemaCompiler) objectExtras(s *jsSchema, declared []string) ([]jsExtra, error) {
	// Keys also restricted by propertyNames.
	var pn *jsRDFA
	if !s.propNames.isTrue() {
		d, ok, err := c.propertyNamesDFA(s)
		if err != nil {
			return nil, err
		}
		if ok {
			pn = d
		}
	}
	var pats []jsPatProp
	for _, g := range s.groups {
		pats = append(pats, g.pats...)
	}
	if len(pats) == 0 && pn == nil {
		// One region: every key but the declared ones.
		var conj jsConj
		for _, g := range s.groups {
			conj = conj.and(g.addl...)
		}
		if conj.isFalse() {
			return nil, nil
		}
		v, err := c.valueRef(conj, jsRuleName(s.ptr+"/additionalProperties"))
		if err != nil || v == nil {
			return nil, err
		}
		return []jsExtra{{c.keyExcluding(declared), v}}, nil
	}
	if len(pats) > 8 {
		return nil, c.unsupportedE(s.ptr, "patternProperties", "more than 8 patterns on one object cannot be combined")
	}
	// Regions by the subset of patterns that match the key.
	var dfas []*jsRDFA
	for _, pp := range pats {
		jp, err := c.pattern(pp.pat, "patternProperties")
		if err != nil {
			return nil, err
		}
		d, err := jsSearchDFA(jp.re)
		if err != nil {
			return nil, c.unsupportedE(pp.pat.ptr, "patternProperties", "pattern %q: %v", pp.pat.val, err)
		}
		dfas = append(dfas, d)
	}
	base := jsLiteralsDFA(declared).complement()
	if pn != nil {
		var err error
		if base, err = base.intersect(pn); err != nil {
			return nil, c.unsupportedE(s.ptr, "propertyNames", "%v", err)
		}
	}
	var out []jsExtra
	for mask := 0; mask < 1<<len(pats); mask++ {
		region := base
		var err error
		for i, d := range dfas {
			if mask&(1<<i) == 0 {
				d = d.complement()
			}
			if region, err = region.intersect(d); err != nil {
				return nil, c.unsupportedE(s.ptr, "patternProperties", "%v", err)
			}
			if region.isEmpty() {
				break
			}
		}
		if region.isEmpty() {
			continue
		}
		// The value schema: for every group, the schemas of its matching
		// patterns, or its additionalProperties when none matches.
		var conj jsConj
		k := 0
		for _, g := range s.groups {
			matched := false
			for _, pp := range g.pats {
				if mask&(1<<k) != 0 {
					matched = true
					conj = conj.and(pp.conj...)
				}
				k++
			}
			if !matched {
				conj = conj.and(g.addl...)
			}
		}
		if conj.isFalse() {
			continue
		}
		v, err := c.valueRef(conj, jsRuleName(s.ptr+"/patternProperties"))
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		key, err := c.dfaExpr(region)
		if err != nil {
			return nil, c.unsupportedE(s.ptr, "patternProperties", "the key pattern needs too large an expression")
		}
		out = append(out, jsExtra{key, v})
	}
	return out, nil
}

// propertyNamesDFA returns the automaton of the key strings propertyNames
// allows (ok false: it constrains nothing).
func (c *schemaCompiler) propertyNamesDFA(s *jsSchema) (*jsRDFA, bool, error) {
	bs, err := c.conjDNF(s.propNames, s.ptr)
	if err != nil {
		return nil, false, err
	}
	var union *jsRDFA // as the complement of the union, built by intersection
	for _, b := range bs {
		if b.types&jtString == 0 {
			continue
		}
		var d *jsRDFA
		if b.hasEnum {
			var words []string
			for _, v := range b.enum {
				if v.kind == jsString {
					if ok, err := c.validate(b, v); err != nil {
						return nil, false, err
					} else if ok {
						words = append(words, v.str)
					}
				}
			}
			d = jsLiteralsDFA(words)
		} else {
			parts, err := c.stringParts(b)
			if err != nil {
				return nil, false, err
			}
			if d, err = jsLengthDFA(b.minLen, b.maxLen); err != nil {
				return nil, false, c.unsupportedE(s.ptr, "propertyNames", "%v", err)
			}
			for _, p := range parts {
				pd, err := jsSearchDFA(p.re)
				if err == nil {
					d, err = d.intersect(pd)
				}
				if err != nil {
					return nil, false, c.unsupportedE(s.ptr, "propertyNames", "%v", err)
				}
			}
			for _, v := range b.notVals {
				if v.kind == jsString {
					if d, err = d.intersect(jsLiteralsDFA([]string{v.str}).complement()); err != nil {
						return nil, false, c.unsupportedE(s.ptr, "propertyNames", "%v", err)
					}
				}
			}
		}
		nd := d.complement()
		if union == nil {
			union = nd
		} else if union, err = union.intersect(nd); err != nil {
			return nil, false, c.unsupportedE(s.ptr, "propertyNames", "%v", err)
		}
	}
	if union == nil {
		return jsLiteralsDFA(nil), true, nil
	}
	return union.complement(), true, nil
}

// keyExcluding matches the contents of any key except the given names.
func (c *schemaCompiler) keyExcluding(names []string) *Expr {
	type node struct {
		end      bool
		children map[rune]*node
		order    []rune
	}
	root := &node{children: map[rune]*node{}}
	for _, n := range names {
		cur := root
		for _, r := range n {
			next, ok := cur.children[r]
			if !ok {
				next = &node{children: map[rune]*node{}}
				cur.children[r] = next
				cur.order = append(cur.order, r)
			}
			cur = next
		}
		cur.end = true
	}
	anyRest := Rep(c.charSet(jsUniverse), 0, -1)
	var build func(n *node) *Expr
	build = func(n *node) *Expr {
		if len(n.order) == 0 && !n.end {
			return anyRest
		}
		var alts []*Expr
		if !n.end {
			alts = append(alts, Eps())
		}
		others := jsUniverse
		for _, r := range n.order {
			others = jsSubtractRange(others, r)
		}
		if e := c.charSet(others); e != nil {
			alts = append(alts, c.cat(e, anyRest))
		}
		for _, r := range n.order {
			alts = append(alts, c.cat(c.charSet([]RuneRange{{r, r}}), build(n.children[r])))
		}
		return c.or(alts...)
	}
	return build(root)
}

func jsSubtractRange(rs []RuneRange, x rune) []RuneRange {
	var out []RuneRange
	for _, r := range rs {
		if x < r.Lo || x > r.Hi {
			out = append(out, r)
			continue
		}
		if r.Lo < x {
			out = append(out, RuneRange{r.Lo, x - 1})
		}
		if x < r.Hi {
			out = append(out, RuneRange{x + 1, r.Hi})
		}
	}
	return out
}

// objectDeclared assembles an object with declared properties in order.
func (c *schemaCompiler) objectDeclared(s *jsSchema, items []jsObjItem, extra *Expr) (*Expr, error) {
	ws := c.ws
	sep := c.cat(ws, Lit(","), ws)
	n := len(items)
	minP, maxP := s.minProps, s.maxProps
	capC := max(minP, 1)
	if maxP >= 0 {
		capC = maxP
	}
	inc := func(k int) int {
		if maxP < 0 && k >= capC {
			return capC
		}
		return k + 1
	}
	type state struct{ i, k int }
	// In-degrees of the states reachable from (0, 0).
	indeg := map[state]int{}
	var order []state
	seen := map[state]bool{}
	var visit func(st state)
	visit = func(st state) {
		if seen[st] {
			return
		}
		seen[st] = true
		if st.i < n {
			it := items[st.i]
			var next []state
			if it.kv != nil && (maxP < 0 || st.k < maxP) {
				next = append(next, state{st.i + 1, inc(st.k)})
			}
			if !it.required {
				next = append(next, state{st.i + 1, st.k})
			}
			if len(next) == 2 && next[0] == next[1] {
				next = next[:1]
			}
			for _, t := range next {
				indeg[t]++
				visit(t)
			}
		}
		order = append(order, st)
	}
	visit(state{0, 0})
	if len(order) > 4*c.opts.MaxRules {
		return nil, c.limitf(s.ptr, "maxProperties", "the property counts need more than %d states", 4*c.opts.MaxRules)
	}
	built := map[state]*Expr{}
	// order is a post-order: successors first.
	for _, st := range order {
		var e *Expr
		if st.i == n {
			var err error
			if e, err = c.objectTail(st.k, minP, maxP, extra, sep); err != nil {
				return nil, err
			}
		} else {
			it := items[st.i]
			lead := it.kv
			if st.k > 0 {
				lead = c.cat(sep, it.kv)
			}
			var emit, skip *Expr
			var emitTo, skipTo state
			canEmit := it.kv != nil && (maxP < 0 || st.k < maxP)
			if canEmit {
				emitTo = state{st.i + 1, inc(st.k)}
				emit = built[emitTo]
			}
			if !it.required {
				skipTo = state{st.i + 1, st.k}
				skip = built[skipTo]
			}
			switch {
			case canEmit && !it.required && emitTo == skipTo:
				e = c.cat(c.opt(lead), emit)
			case canEmit && !it.required:
				e = c.or(c.cat(lead, emit), skip)
			case canEmit:
				e = c.cat(lead, emit)
			case !it.required:
				e = skip
			}
		}
		if e != nil && indeg[st] >= 2 && (st.k >= 2 || st.i%8 == 0) && jsExprSize(e) > 24 {
			r, err := c.newRule(jsRuleName(s.ptr)+"-props", e)
			if err != nil {
				return nil, err
			}
			e = Call(r)
		}
		built[st] = e
	}
	body := built[state{0, 0}]
	if body == nil {
		return nil, nil
	}
	if minP > 0 {
		return c.cat(Lit("{"), ws, body, ws, Lit("}")), nil
	}
	if jsNullable(body) {
		return c.cat(Lit("{"), ws, c.opt(c.cat(body, ws)), Lit("}")), nil
	}
	return c.cat(Lit("{"), ws, body, ws, Lit("}")), nil
}

// objectTail is the undeclared keys after the declared ones, k properties
// having been written.
func (c *schemaCompiler) objectTail(k, minP, maxP int, extra, sep *Expr) (*Expr, error) {
	lo := max(0, minP-k)
	hi := -1
	if maxP >= 0 {
		hi = maxP - k
		if hi < 0 {
			return nil, nil
		}
	}
	if extra == nil {
		if lo > 0 {
			return nil, nil
		}
		return Eps(), nil
	}
	if k > 0 {
		return c.bigRepeat(c.cat(sep, extra), lo, hi, "properties")
	}
	if hi == 0 {
		return Eps(), nil
	}
	restHi := -1
	if hi > 0 {
		restHi = hi - 1
	}
	rest, err := c.bigRepeat(c.cat(sep, extra), max(lo-1, 0), restHi, "properties")
	if err != nil {
		return nil, err
	}
	one := c.cat(extra, rest)
	if lo == 0 {
		return c.opt(one), nil
	}
	return one, nil
}

// jsNullable reports whether e can match the empty string (rules are
// assumed not to).
func jsNullable(e *Expr) bool {
	switch e.Kind {
	case Empty:
		return true
	case Bytes, Class, Ref, Regex:
		return false
	case Seq:
		for _, s := range e.Subs {
			if !jsNullable(s) {
				return false
			}
		}
		return true
	case Alt:
		for _, s := range e.Subs {
			if jsNullable(s) {
				return true
			}
		}
		return false
	case Repeat:
		return e.Min == 0 || jsNullable(e.Subs[0])
	}
	return false
}

// objectAnyOrder assembles an object whose properties may come in any
// order. Required properties are tracked with one state per subset of them
// already written; optional and undeclared ones may appear anywhere (an
// optional property is not prevented from appearing twice).
func (c *schemaCompiler) objectAnyOrder(s *jsSchema, items []jsObjItem, extra *Expr) (*Expr, error) {
	if s.minProps > 0 || s.maxProps >= 0 {
		if err := c.unsupported(s.ptr, "minProperties", "property counts cannot be enforced with properties in any order"); err != nil {
			return nil, err
		}
	}
	ws := c.ws
	sep := c.cat(ws, Lit(","), ws)
	var req []*Expr
	var opt []*Expr
	for _, it := range items {
		switch {
		case it.kv == nil:
		case it.required:
			req = append(req, it.kv)
		default:
			opt = append(opt, it.kv)
		}
	}
	if len(req) > c.opts.MaxAnyOrderRequired {
		return nil, c.limitf(s.ptr, "required", "%d required properties in any order, more than the limit of %d", len(req), c.opts.MaxAnyOrderRequired)
	}
	free := c.or(append(append([]*Expr(nil), opt...), extra)...)
	full := 1<<len(req) - 1
	rules := make([]int, full+1)
	for m := range rules {
		r, err := c.newRule(fmt.Sprintf("%s-any%d", jsRuleName(s.ptr), m), Eps())
		if err != nil {
			return nil, err
		}
		rules[m] = r
	}
	// Rule m: the rest after at least one property, the required ones in m written.
	for m := 0; m <= full; m++ {
		var alts []*Expr
		if m == full {
			alts = append(alts, Eps())
		}
		if free != nil {
			alts = append(alts, c.cat(sep, free, Call(rules[m])))
		}
		for i, kv := range req {
			if m&(1<<i) == 0 {
				alts = append(alts, c.cat(sep, kv, Call(rules[m|1<<i])))
			}
		}
		body := c.or(alts...)
		if body == nil {
			body = &Expr{Kind: Alt}
		}
		c.rules[rules[m]].Body = body
	}
	var first []*Expr
	if free != nil {
		first = append(first, c.cat(free, Call(rules[0])))
	}
	for i, kv := range req {
		first = append(first, c.cat(kv, Call(rules[1<<i])))
	}
	body := c.or(first...)
	if full == 0 {
		return c.cat(Lit("{"), ws, c.opt(c.cat(body, ws)), Lit("}")), nil
	}
	if body == nil {
		return nil, nil
	}
	return c.cat(Lit("{"), ws, body, ws, Lit("}")), nil
}
