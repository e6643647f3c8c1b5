package jsonschema

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode"

	"github.com/reinlm/rein/fsm"
	"github.com/reinlm/rein/grammar"
)

// Objects. Declared properties come in declared order, each optional unless
// required; undeclared keys ("additional" ones, with the value schema that
// patternProperties/additionalProperties give them) follow. The separators
// are placed by a small automaton over (next declared property, properties
// written so far), so optional properties can be skipped without leaving a
// dangling comma; its states become rules only where they are shared and
// large, keeping every rule's automaton small. Undeclared keys never spell a
// declared name (their values would then be checked against the wrong
// schema); keys use the canonical spelling so that this exclusion is exact.

// objItem is one declared property of an object branch.
type objItem struct {
	name     string
	kv       *grammar.Expr // "name" ws ":" ws value; nil when the property is forbidden
	required bool
}

// extra is one region of undeclared keys: the key contents and the value.
type extra struct {
	key   *grammar.Expr
	value *grammar.Expr
}

func (c *compiler) compileObject(s *schema) (*grammar.Expr, error) {
	return c.objectWith(s, nil)
}

// maxUndeclaredWitnesses is how many keys asked for by negations an object
// may have to find among its undeclared keys: the tail that finds them has a
// state for each set of them found so far.
const maxUndeclaredWitnesses = 5

// objectWith compiles the object of s, whose undeclared keys include, for
// each of wits, one key as it asks (a key may serve several).
func (c *compiler) objectWith(s *schema, wits []keyWitness) (*grammar.Expr, error) {
	if s.maxProps >= 0 && s.minProps > s.maxProps {
		return nil, nil
	}
	if len(s.keyOutside) > 0 {
		// A key outside a set of names, with any value.
		s = s.clone()
		for _, ko := range s.keyOutside {
			s.witnesses = append(s.witnesses, keyWitness{names: ko.names, ptr: ko.ptr, kw: "additionalProperties"})
		}
		s.keyOutside = nil
	}
	if len(s.witnesses) > 0 {
		if wits == nil {
			if err := c.witnessChoices(s); err != nil {
				return nil, err
			}
		}
		return c.objectWitness(s, wits)
	}
	if len(wits) > 0 && c.opts.Order == OrderAny {
		if err := c.unsupported(wits[0].ptr, wits[0].kw, "a key asked for by a negation (of patternProperties, additionalProperties or propertyNames) cannot be enforced with properties in any order"); err != nil {
			return nil, err
		}
		wits = nil
	}
	ws := c.ws
	colon := c.cat(ws, grammar.Lit(":"), ws)
	// Declared properties, then required names declared nowhere.
	props := append([]prop(nil), s.props...)
	for _, r := range s.required {
		if s.prop(r) < 0 {
			cj, err := c.groupConj(s, r)
			if err != nil {
				return nil, err
			}
			props = append(props, prop{name: r, conj: cj})
		}
	}
	names := make([]string, len(props))
	items := make([]objItem, 0, len(props))
	for i, p := range props {
		names[i] = p.name
		item := objItem{name: p.name, required: s.isRequired(p.name)}
		ok := true
		if !s.propNames.isTrue() {
			var err error
			if ok, err = c.validateConj(s.propNames, &node{kind: kindString, str: p.name}); err != nil {
				return nil, err
			}
		}
		if ok && !p.conj.isFalse() {
			v, err := c.valueRef(p.conj, ruleName(s.ptr+"/properties/"+escapePointer(p.name)))
			if err != nil {
				return nil, err
			}
			if v != nil {
				item.kv = c.cat(grammar.Lit(quote(p.name)), colon, v)
			}
		}
		if item.kv == nil && item.required {
			return nil, nil
		}
		items = append(items, item)
	}
	extras, err := c.objectExtras(s, names, nil)
	if errors.Is(err, errIgnore) {
		// Lenient: undeclared keys take any value.
		extras, err = c.objectExtras(&schema{}, names, nil)
	}
	if err != nil {
		return nil, err
	}
	var alts []*grammar.Expr
	for _, x := range extras {
		alts = append(alts, c.cat(x.key, colon, x.value))
	}
	others := c.or(alts...)
	switch c.opts.Order {
	case OrderAny:
		return c.objectAnyOrder(s, items, others)
	case OrderAuto:
		if len(wits) == 0 {
			if e, ok, err := c.objectAnyExact(s, items, others); err != nil || ok {
				return e, err
			}
		}
	}
	// serving[m]: an undeclared key that serves the witnesses in the set m
	// (nil: no key can).
	var serving []*grammar.Expr
	if len(wits) > 0 {
		serving = make([]*grammar.Expr, 1<<len(wits))
		for m := 1; m < len(serving); m++ {
			var ws []keyWitness
			for i, w := range wits {
				if m&(1<<i) != 0 {
					ws = append(ws, w)
				}
			}
			wx, err := c.objectExtras(s, names, ws)
			if err != nil {
				return nil, err
			}
			alts = alts[:0]
			for _, x := range wx {
				alts = append(alts, c.cat(x.key, colon, x.value))
			}
			serving[m] = c.or(alts...)
		}
	}
	return c.objectDeclared(s, items, others, serving)
}

// objectWitness compiles the object of s, which asks for keys as its
// witnesses say: the first one is a declared property (one alternative
// each) or an undeclared key (added to wits); the others are resolved the
// same way in turn. More than maxUndeclaredWitnesses among the undeclared
// keys are an error.
func (c *compiler) objectWitness(s *schema, wits []keyWitness) (*grammar.Expr, error) {
	w := s.witnesses[0]
	var alts []*grammar.Expr
	seen := map[string]bool{}
	names := make([]string, 0, len(s.props)+len(s.required))
	for _, p := range s.props {
		names = append(names, p.name)
	}
	names = append(names, s.required...)
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		ok, err := c.witnessKey(w, name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		t := s.clone()
		t.witnesses = t.witnesses[1:]
		if !t.isRequired(name) {
			t.required = append(t.required, name)
		}
		if i := t.prop(name); i >= 0 {
			t.props[i].conj = t.props[i].conj.and(w.value...)
		} else {
			cj, err := c.groupConj(t, name)
			if err != nil {
				return nil, err
			}
			t.props = append(t.props, prop{name: name, conj: cj.and(w.value...)})
		}
		e, err := c.objectWith(t, wits)
		if err != nil {
			return nil, err
		}
		alts = append(alts, e)
	}
	t := s.clone()
	t.witnesses = t.witnesses[1:]
	if len(wits) < maxUndeclaredWitnesses {
		wits = append(wits[:len(wits):len(wits)], w)
	} else if err := c.unsupported(w.ptr, w.kw, "more than %d keys asked for by negations (of patternProperties, additionalProperties or propertyNames) among the undeclared keys cannot be enforced", maxUndeclaredWitnesses); err != nil {
		return nil, err
	}
	e, err := c.objectWith(t, wits)
	if err != nil {
		return nil, err
	}
	return c.or(append(alts, e)...), nil
}

// witnessChoices bounds the objects objectWitness compiles for s, one per
// choice of a declared property or the undeclared keys for each witness,
// by Limits.Alternatives.
func (c *compiler) witnessChoices(s *schema) error {
	names := make([]string, 0, len(s.props)+len(s.required))
	for _, p := range s.props {
		names = append(names, p.name)
	}
	names = append(names, s.required...)
	slices.Sort(names)
	names = slices.Compact(names)
	n := 1
	for _, w := range s.witnesses {
		choices := 1
		for _, name := range names {
			ok, err := c.witnessKey(w, name)
			if err != nil {
				return err
			}
			if ok {
				choices++
			}
		}
		if n *= choices; n > c.opts.Limits.Alternatives {
			return c.limitf(w.ptr, w.kw, "the keys asked for by negations can be declared properties in more ways than Limits.Alternatives (%d)", c.opts.Limits.Alternatives)
		}
	}
	return nil
}

// witnessKey reports whether key is one w asks for.
func (c *compiler) witnessKey(w keyWitness, key string) (bool, error) {
	if _, in := slices.BinarySearch(w.names, key); in {
		return false, nil
	}
	if w.pat != nil {
		if ok, err := c.patternMatch(*w.pat, key); err != nil || !ok {
			return false, err
		}
	}
	for _, l := range w.notPats {
		if ok, err := c.patternMatch(l, key); err != nil || ok {
			return false, err
		}
	}
	if len(w.keys) > 0 {
		return c.validateConj(w.keys, &node{kind: kindString, str: key})
	}
	return true, nil
}

// witnessDFA returns the automaton of the undeclared keys w asks for.
func (c *compiler) witnessDFA(w *keyWitness, declared []string) (*fsm.RuneDFA, error) {
	d := complement(literalsDFA(append(append([]string(nil), declared...), w.names...)))
	and := func(e *fsm.RuneDFA) error {
		var err error
		if d, err = c.intersect(d, e); err != nil {
			return c.automatonTooLarge(w.ptr, w.kw, "the key a negation asks for", err)
		}
		return nil
	}
	pats := w.notPats
	if w.pat != nil {
		pats = append([]loc{*w.pat}, pats...)
	}
	for i, l := range pats {
		jp, err := c.pattern(l, "patternProperties")
		if err != nil {
			return nil, err
		}
		e, err := c.searchDFA(jp.re)
		if err != nil {
			return nil, c.automatonTooLarge(l.ptr, "patternProperties", fmt.Sprintf("pattern %q", l.val), err)
		}
		if i > 0 || w.pat == nil {
			e = complement(e)
		}
		if err := and(e); err != nil {
			return nil, err
		}
	}
	if len(w.keys) > 0 {
		e, ok, err := c.propertyNamesDFA(&schema{propNames: w.keys, ptr: w.ptr})
		if err != nil {
			return nil, err
		}
		if ok {
			if err := and(e); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

// objectExtras returns the regions of undeclared keys and their values;
// with wits, only the keys every one of them asks for, with values that
// satisfy their values too.
func (c *compiler) objectExtras(s *schema, declared []string, wits []keyWitness) ([]extra, error) {
	var wd *fsm.RuneDFA
	for i := range wits {
		d, err := c.witnessDFA(&wits[i], declared)
		if err != nil {
			return nil, err
		}
		if wd == nil {
			wd = d
		} else if wd, err = c.intersect(wd, d); err != nil {
			return nil, c.automatonTooLarge(wits[i].ptr, wits[i].kw, "the key several negations ask for", err)
		}
		if wd.IsEmpty() {
			return nil, nil
		}
	}
	// Keys also restricted by propertyNames.
	var pn *fsm.RuneDFA
	if !s.propNames.isTrue() {
		d, ok, err := c.propertyNamesDFA(s)
		if err != nil {
			return nil, err
		}
		if ok {
			pn = d
		}
	}
	var pats []patProp
	for _, g := range s.groups {
		pats = append(pats, g.pats...)
	}
	if len(pats) == 0 && pn == nil && wd == nil {
		// One region: every key but the declared ones.
		var conj conj
		for _, g := range s.groups {
			conj = conj.and(g.addl...)
		}
		if conj.isFalse() {
			return nil, nil
		}
		v, err := c.valueRef(conj, ruleName(s.ptr+"/additionalProperties"))
		if err != nil || v == nil {
			return nil, err
		}
		key, err := c.keyRule("key:"+strings.Join(declared, "\x00"), func() (*grammar.Expr, error) { return c.keyExcluding(s.ptr, declared) })
		if err != nil {
			return nil, err
		}
		return []extra{{key, v}}, nil
	}
	if len(pats) > 8 {
		return nil, c.unsupportedE(s.ptr, "patternProperties", "more than 8 patterns on one object cannot be combined")
	}
	// Regions by the subset of patterns that match the key.
	var dfas []*fsm.RuneDFA
	for _, pp := range pats {
		jp, err := c.pattern(pp.pat, "patternProperties")
		if err != nil {
			return nil, err
		}
		d, err := c.searchDFA(jp.re)
		if errors.Is(err, errAutomatonSize) {
			return nil, c.automatonTooLarge(pp.pat.ptr, "patternProperties", fmt.Sprintf("pattern %q", pp.pat.val), err)
		}
		if err != nil {
			return nil, c.unsupportedE(pp.pat.ptr, "patternProperties", "pattern %q: %v", pp.pat.val, err)
		}
		dfas = append(dfas, d)
	}
	base := complement(literalsDFA(declared))
	if wd != nil {
		base = wd
	}
	if pn != nil {
		var err error
		if base, err = c.intersect(base, pn); err != nil {
			return nil, c.automatonTooLarge(s.ptr, "propertyNames", "the key constraints", err)
		}
	}
	var out []extra
	for mask := 0; mask < 1<<len(pats); mask++ {
		region := base
		var err error
		for i, d := range dfas {
			if mask&(1<<i) == 0 {
				d = complement(d)
			}
			if region, err = c.intersect(region, d); err != nil {
				return nil, c.automatonTooLarge(s.ptr, "patternProperties", "the key regions", err)
			}
			if region.IsEmpty() {
				break
			}
		}
		if region.IsEmpty() {
			continue
		}
		// The value schema: for every group, the schemas of its matching
		// patterns, or its additionalProperties when none matches.
		var conj conj
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
		for _, w := range wits {
			conj = conj.and(w.value...)
		}
		if conj.isFalse() {
			continue
		}
		v, err := c.valueRef(conj, ruleName(s.ptr+"/patternProperties"))
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		key, err := c.keyRule(dfaKey(region), func() (*grammar.Expr, error) { return c.dfaExpr(region) })
		if err != nil {
			if errors.Is(err, errAutomatonSize) {
				return nil, c.automatonTooLarge(s.ptr, "patternProperties", "the key pattern", err)
			}
			return nil, err
		}
		out = append(out, extra{key, v})
	}
	return out, nil
}

// keyRule returns a call to the rule of a quoted key whose contents body
// builds, shared by every object with the same key language (id).
func (c *compiler) keyRule(id string, body func() (*grammar.Expr, error)) (*grammar.Expr, error) {
	if r, ok := c.keyRules[id]; ok {
		return grammar.Call(r), nil
	}
	e, err := body()
	if err != nil || e == nil {
		return nil, err
	}
	r, err := c.newRule("key", c.cat(grammar.Lit(`"`), e, grammar.Lit(`"`)))
	if err != nil {
		return nil, err
	}
	// Every object with a key meets its start, whose classification is
	// derived apart from every other key's (mask/derive.go).
	c.rules[r].Prepare = true
	c.keyRules[id] = r
	return grammar.Call(r), nil
}

// propertyNamesDFA returns the automaton of the key strings propertyNames
// allows (ok false: it constrains nothing).
func (c *compiler) propertyNamesDFA(s *schema) (*fsm.RuneDFA, bool, error) {
	bs, err := c.conjDNF(s.propNames, s.ptr)
	if err != nil {
		return nil, false, err
	}
	var union *fsm.RuneDFA // as the complement of the union, built by intersection
	for _, b := range bs {
		if b.types&jtString == 0 {
			continue
		}
		d, err := c.stringDFA(b)
		if err != nil {
			if errors.Is(err, errAutomatonSize) {
				return nil, false, c.automatonTooLarge(s.ptr, "propertyNames", "the key constraints", err)
			}
			return nil, false, err
		}
		nd := complement(d)
		if union == nil {
			union = nd
		} else if union, err = c.intersect(union, nd); err != nil {
			return nil, false, c.automatonTooLarge(s.ptr, "propertyNames", "the key constraints", err)
		}
	}
	if union == nil {
		return literalsDFA(nil), true, nil
	}
	return complement(union), true, nil
}

// keyExcluding matches the contents of any key except the given names: a
// trie of the names in which every other character leads to "anything".
// The continuations are shared rules, and the subtrees of large tries rules
// of their own, so that thousands of names stay small automata.
func (c *compiler) keyExcluding(ptr string, names []string) (*grammar.Expr, error) {
	// Names come from properties, whose keys the scan bounded, but also
	// from required and the like, which are strings: bound them as keys
	// before they cost a trie node per character.
	for _, n := range names {
		if len(n) > c.opts.Limits.SchemaKeyBytes {
			return nil, c.limitf(ptr, "", "a property name of %d bytes is longer than Limits.SchemaKeyBytes (%d)", len(n), c.opts.Limits.SchemaKeyBytes)
		}
	}
	type node struct {
		end      bool
		children map[rune]*node
		order    []rune
		size     int
		height   int // nesting of expr, below the rules it calls
		expr     *grammar.Expr
	}
	root := &node{children: map[rune]*node{}}
	for _, n := range names {
		cur := root
		for _, r := range n {
			next, ok := cur.children[r]
			if !ok {
				// Every trie node becomes expression nodes: count it
				// before it is made.
				if err := c.count(4); err != nil {
					return nil, err
				}
				next = &node{children: map[rune]*node{}}
				cur.children[r] = next
				cur.order = append(cur.order, r)
			}
			cur = next
		}
		cur.end = true
	}
	// The nodes in post-order (children before their parent), walked with
	// an explicit stack: names may be as long as Limits.SchemaStringBytes.
	var post []*node
	stack := []*node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		post = append(post, n)
		for _, r := range n.order {
			stack = append(stack, n.children[r])
		}
	}
	for i, j := 0, len(post)-1; i < j; i, j = i+1, j-1 {
		post[i], post[j] = post[j], post[i]
	}
	for _, n := range post {
		n.size = 1
		for _, r := range n.order {
			n.size += n.children[r].size
		}
	}
	total := root.size
	rest, err := c.sharedRule("key-rest", func() *grammar.Expr { return grammar.Rep(c.charSet(universe), 0, -1) })
	if err != nil {
		return nil, err
	}
	nonASCII := intersectRanges(universe, []grammar.RuneRange{{Lo: 0x80, Hi: unicode.MaxRune}})
	nonASCIIRest, err := c.sharedRule("key-rest-nonascii", func() *grammar.Expr { return c.cat(c.charSet(nonASCII), rest) })
	if err != nil {
		return nil, err
	}
	for _, n := range post {
		if len(n.order) == 0 && !n.end {
			n.expr = c.opt(c.cat(c.charSet(universe), rest))
			continue
		}
		var alts []*grammar.Expr
		if !n.end {
			alts = append(alts, grammar.Eps())
		}
		ascii := []grammar.RuneRange{{Lo: 0, Hi: 0x7F}}
		others := nonASCII
		for _, r := range n.order {
			ascii = subtractRange(ascii, r)
			others = subtractRange(others, r)
		}
		if e := c.charSet(ascii); e != nil {
			alts = append(alts, c.cat(e, rest))
		}
		if len(others) == len(nonASCII) && others[0] == nonASCII[0] {
			alts = append(alts, nonASCIIRest)
		} else if e := c.charSet(others); e != nil {
			alts = append(alts, c.cat(e, rest))
		}
		for _, r := range n.order {
			child := n.children[r]
			e := child.expr
			child.expr = nil
			// Large subtrees, and long chains (a long name), become rules
			// of their own, so that no rule's expression is deep.
			if total > 1000 && child.size > 100 && len(child.order) > 1 || child.height >= 64 {
				r, err := c.newRule("key-part", e)
				if err != nil {
					return nil, err
				}
				e = grammar.Call(r)
			} else {
				n.height = max(n.height, child.height+1)
			}
			alts = append(alts, c.cat(c.charSet([]grammar.RuneRange{{Lo: r, Hi: r}}), e))
		}
		n.expr = c.or(alts...)
	}
	return root.expr, nil
}

// sharedRule returns a call to the rule named name, made once with body.
func (c *compiler) sharedRule(name string, body func() *grammar.Expr) (*grammar.Expr, error) {
	if r, ok := c.escRules[name]; ok {
		return grammar.Call(r), nil
	}
	r, err := c.newRule(name, grammar.Eps())
	if err != nil {
		return nil, err
	}
	c.escRules[name] = r
	c.rules[r].Body = body()
	return grammar.Call(r), nil
}

func subtractRange(rs []grammar.RuneRange, x rune) []grammar.RuneRange {
	var out []grammar.RuneRange
	for _, r := range rs {
		if x < r.Lo || x > r.Hi {
			out = append(out, r)
			continue
		}
		if r.Lo < x {
			out = append(out, grammar.RuneRange{Lo: r.Lo, Hi: x - 1})
		}
		if x < r.Hi {
			out = append(out, grammar.RuneRange{Lo: x + 1, Hi: r.Hi})
		}
	}
	return out
}

// objectDeclared assembles an object with declared properties in order;
// with serving (see witnessTail), its undeclared keys serve witnesses.
func (c *compiler) objectDeclared(s *schema, items []objItem, extra *grammar.Expr, serving []*grammar.Expr) (*grammar.Expr, error) {
	ws := c.ws
	sep := c.cat(ws, grammar.Lit(","), ws)
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
	if len(order) > 4*c.opts.Limits.Rules {
		return nil, c.limitf(s.ptr, "maxProperties", "the property counts need more states than 4 × Limits.Rules (%d)", 4*c.opts.Limits.Rules)
	}
	var witnessTail func(k int) *grammar.Expr
	if serving != nil {
		var err error
		if witnessTail, err = c.witnessTails(s.ptr, minP, maxP, extra, serving, sep); err != nil {
			return nil, err
		}
	}
	built := map[state]*grammar.Expr{}
	// order is a post-order: successors first.
	for _, st := range order {
		var e *grammar.Expr
		if st.i == n {
			var err error
			if witnessTail != nil {
				e = witnessTail(st.k)
			} else if e, err = c.objectTail(st.k, minP, maxP, extra, sep); err != nil {
				return nil, err
			}
			if st.k == 0 && e != nil {
				// The empty object is written apart, so that it does not
				// allow two whitespace runs in a row.
				e = nonEmpty(e)
			}
		} else {
			it := items[st.i]
			lead := it.kv
			if st.k > 0 {
				lead = c.cat(sep, it.kv)
			}
			var emit, skip *grammar.Expr
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
		// Shared states become rules (at every 8th property, or always
		// when counting), and so does every 8th state of a long chain, so
		// that no rule holds more than a few properties' worth.
		boundary := st.i > 0 && st.i%8 == 0
		if e != nil && (boundary && (indeg[st] >= 2 || n > 16) || indeg[st] >= 2 && st.k >= 2) && exprSize(e) > 24 {
			r, err := c.newRule(ruleName(s.ptr)+"-props", e)
			if err != nil {
				return nil, err
			}
			e = grammar.Call(r)
		}
		built[st] = e
	}
	body := built[state{0, 0}]
	if body == nil {
		if serving != nil {
			return nil, nil
		}
		for _, it := range items {
			if it.required {
				return nil, nil
			}
		}
		if minP > 0 {
			return nil, nil
		}
		return c.cat(grammar.Lit("{"), ws, grammar.Lit("}")), nil
	}
	if minP > 0 || serving != nil {
		return c.cat(grammar.Lit("{"), ws, body, ws, grammar.Lit("}")), nil
	}
	obj := c.cat(grammar.Lit("{"), ws, body, ws, grammar.Lit("}"))
	emptyOK := minP == 0
	for _, it := range items {
		emptyOK = emptyOK && !it.required
	}
	if emptyOK {
		obj = c.or(obj, c.cat(grammar.Lit("{"), ws, grammar.Lit("}")))
	}
	return obj, nil
}

// witnessTails returns the undeclared keys after k declared ones, by k,
// when they must serve every witness: serving[m] is a key that serves the
// witnesses in the set m. The keys are read by an automaton over (the set
// served so far, the properties written so far); any key may serve none
// (others), so a key that serves a set is also read as serving any part of
// it, and the tail is exactly the key sequences whose served sets cover
// every witness and whose length keeps the count within minP and maxP. The
// count is kept up to maxP, or up to minP when there is no maxP; its states
// past 24 nodes become rules, which several states call.
func (c *compiler) witnessTails(ptr string, minP, maxP int, others *grammar.Expr, serving []*grammar.Expr, sep *grammar.Expr) (func(k int) *grammar.Expr, error) {
	all := len(serving) - 1
	last := minP
	if maxP >= 0 {
		last = maxP
	}
	if (last+1)*len(serving) > 4*c.opts.Limits.Rules {
		return nil, c.limitf(ptr, "minProperties", "the keys asked for by negations and the property counts need more states than 4 × Limits.Rules (%d)", 4*c.opts.Limits.Rules)
	}
	rest := grammar.Eps()
	if others != nil {
		rest = c.rep(c.cat(sep, others), 0, -1)
	}
	// after[n][t]: the keys, each after a separator, once n properties are
	// written and the set t is served.
	after := make([][]*grammar.Expr, last+1)
	for n := last; n >= 0; n-- {
		after[n] = make([]*grammar.Expr, len(serving))
		next := after[min(n+1, last)]
		counted := n < last || maxP >= 0
		for t := all; t >= 0; t-- {
			var alts []*grammar.Expr
			if t == all && n >= minP {
				alts = append(alts, grammar.Eps())
			}
			if maxP < 0 || n < maxP {
				if counted {
					alts = append(alts, c.cat(sep, others, next[t]))
				}
				for m := 1; m <= all; m++ {
					if m&t == 0 {
						alts = append(alts, c.cat(sep, serving[m], next[t|m]))
					}
				}
			}
			e := c.or(alts...)
			if !counted {
				// Any number of further keys: the others repeat in place.
				e = c.cat(rest, e)
			}
			if e != nil && counted && exprSize(e) > 24 {
				r, err := c.newRule(ruleName(ptr)+"-witness", e)
				if err != nil {
					return nil, err
				}
				e = grammar.Call(r)
			}
			after[n][t] = e
		}
	}
	return func(k int) *grammar.Expr {
		if k > 0 {
			return after[min(k, last)][0]
		}
		if maxP == 0 {
			return nil
		}
		// The first key has no separator before it.
		next := after[min(1, last)]
		alts := []*grammar.Expr{c.cat(others, next[0])}
		for m := 1; m <= all; m++ {
			alts = append(alts, c.cat(serving[m], next[m]))
		}
		return c.or(alts...)
	}, nil
}

// objectTail is the undeclared keys after the declared ones, k properties
// having been written.

func (c *compiler) objectTail(k, minP, maxP int, extra, sep *grammar.Expr) (*grammar.Expr, error) {
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
		return grammar.Eps(), nil
	}
	if k > 0 {
		return c.bigRepeat(c.cat(sep, extra), lo, hi, "properties")
	}
	if hi == 0 {
		return grammar.Eps(), nil
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

// nonEmpty returns e without its empty match, for the shapes objectTail
// builds: an optional part, or a part that cannot match empty.
func nonEmpty(e *grammar.Expr) *grammar.Expr {
	switch {
	case e.Op == grammar.OpEmpty:
		return nil
	case e.Op == grammar.OpRepeat && e.Min == 0 && e.Max == 1:
		return e.Subs[0]
	}
	return e
}

// objectAnyOrder assembles an object whose properties may come in any
// order. Required properties are tracked with one state per subset of them
// already written; optional and undeclared ones may appear anywhere (an
// optional property is not prevented from appearing twice).
func (c *compiler) objectAnyOrder(s *schema, items []objItem, extra *grammar.Expr) (*grammar.Expr, error) {
	if s.minProps > 0 || s.maxProps >= 0 {
		if err := c.unsupported(s.ptr, "minProperties", "property counts cannot be enforced with properties in any order"); err != nil {
			return nil, err
		}
	}
	ws := c.ws
	sep := c.cat(ws, grammar.Lit(","), ws)
	var req []*grammar.Expr
	var opt []*grammar.Expr
	for _, it := range items {
		switch {
		case it.kv == nil:
		case it.required:
			req = append(req, it.kv)
		default:
			opt = append(opt, it.kv)
		}
	}
	if len(req) > c.opts.Limits.AnyOrderRequired {
		return nil, c.limitf(s.ptr, "required", "%d required properties in any order, more than Limits.AnyOrderRequired (%d)", len(req), c.opts.Limits.AnyOrderRequired)
	}
	if len(req) > 20 || 1<<len(req) > c.opts.Limits.Rules {
		return nil, c.limitf(s.ptr, "required", "%d required properties in any order need %d rules, more than Limits.Rules (%d)", len(req), 1<<min(len(req), 62), c.opts.Limits.Rules)
	}
	free := c.or(append(append([]*grammar.Expr(nil), opt...), extra)...)
	full := 1<<len(req) - 1
	rules := make([]int, full+1)
	for m := range rules {
		r, err := c.newRule(fmt.Sprintf("%s-any%d", ruleName(s.ptr), m), grammar.Eps())
		if err != nil {
			return nil, err
		}
		rules[m] = r
	}
	// Rule m: the rest after at least one property, the required ones in m written.
	for m := 0; m <= full; m++ {
		var alts []*grammar.Expr
		if m == full {
			alts = append(alts, grammar.Eps())
		}
		if free != nil {
			alts = append(alts, c.cat(sep, free, grammar.Call(rules[m])))
		}
		for i, kv := range req {
			if m&(1<<i) == 0 {
				alts = append(alts, c.cat(sep, kv, grammar.Call(rules[m|1<<i])))
			}
		}
		body := c.or(alts...)
		if body == nil {
			body = &grammar.Expr{Op: grammar.OpAlt}
		}
		c.rules[rules[m]].Body = body
	}
	var first []*grammar.Expr
	if free != nil {
		first = append(first, c.cat(free, grammar.Call(rules[0])))
	}
	for i, kv := range req {
		first = append(first, c.cat(kv, grammar.Call(rules[1<<i])))
	}
	body := c.or(first...)
	if full == 0 {
		return c.cat(grammar.Lit("{"), ws, c.opt(c.cat(body, ws)), grammar.Lit("}")), nil
	}
	if body == nil {
		return nil, nil
	}
	return c.cat(grammar.Lit("{"), ws, body, ws, grammar.Lit("}")), nil
}

// objectAnyExact assembles, for OrderAuto, an object whose declared
// properties may come in any order, each at most once, with undeclared keys
// anywhere among them: a rule per set of declared properties written, which
// knows what may still come and whether the object may close (required
// properties written, minProperties and maxProperties met). So it is kept
// to objects of at most Limits.AnyOrderProperties declared properties, and
// to grammars with rules to spare; ok false leaves the object in declared
// order, as are objects whose property counts also count undeclared keys.
func (c *compiler) objectAnyExact(s *schema, items []objItem, extra *grammar.Expr) (e *grammar.Expr, ok bool, err error) {
	var kvs []*grammar.Expr
	var names []string
	req := 0
	for _, it := range items {
		if it.kv == nil {
			continue
		}
		if it.required {
			req |= 1 << len(kvs)
		}
		kvs = append(kvs, it.kv)
		names = append(names, it.name)
	}
	n := len(kvs)
	minP, maxP := s.minProps, s.maxProps
	if n < 2 || n > c.opts.Limits.AnyOrderProperties || (minP > 0 || maxP >= 0) && extra != nil ||
		len(c.rules)+1<<n+n > c.opts.Limits.Rules/2 {
		return nil, false, nil
	}
	full := 1<<n - 1
	canAdd := func(m int) bool { return maxP < 0 || bits.OnesCount(uint(m)) < maxP }
	end := func(m int) bool { return m&req == req && bits.OnesCount(uint(m)) >= minP }
	// live[m]: the object can still close once the set m is written.
	live := make([]bool, full+1)
	for m := full; m >= 0; m-- {
		live[m] = end(m)
		for i := 0; i < n && !live[m] && canAdd(m); i++ {
			live[m] = m&(1<<i) == 0 && live[m|1<<i]
		}
	}
	if !live[0] {
		return nil, true, nil
	}
	// used[m]: some document reaches the set m after at least one property.
	used := make([]bool, full+1)
	used[0] = extra != nil
	for m := 1; m <= full; m++ {
		for i := 0; i < n && !used[m]; i++ {
			p := m &^ (1 << i)
			used[m] = m&(1<<i) != 0 && live[m] && (p == 0 || used[p]) && canAdd(p)
		}
	}
	base := ruleName(s.ptr)
	kvRule := make([]*grammar.Expr, n)
	for i, kv := range kvs {
		r, err := c.newRule(base+"-"+ruleName("/"+escapePointer(names[i])), kv)
		if err != nil {
			return nil, false, err
		}
		kvRule[i] = grammar.Call(r)
	}
	rules := make([]*grammar.Expr, full+1)
	for m, u := range used {
		switch {
		case m == full && extra == nil:
			rules[m] = grammar.Eps() // nothing may follow
		case u:
			r, err := c.newRule(fmt.Sprintf("%s-any%d", base, m), grammar.Eps())
			if err != nil {
				return nil, false, err
			}
			rules[m] = grammar.Call(r)
		}
	}
	ws := c.ws
	sep := c.cat(ws, grammar.Lit(","), ws)
	// next(m): one more declared property, then the rest.
	next := func(m int) *grammar.Expr {
		var alts []*grammar.Expr
		for i := 0; i < n && canAdd(m); i++ {
			if t := m | 1<<i; t != m && live[t] {
				alts = append(alts, c.cat(kvRule[i], rules[t]))
			}
		}
		return c.or(alts...)
	}
	for m, u := range used {
		if !u || rules[m].Op != grammar.OpRef {
			continue
		}
		var rest *grammar.Expr
		if more := next(m); more != nil {
			rest = c.cat(sep, more)
		}
		if end(m) {
			rest = c.opt(rest)
		}
		if extra != nil {
			rest = c.cat(c.rep(c.cat(sep, extra), 0, -1), rest)
		}
		c.rules[rules[m].Rule].Body = rest
	}
	first := next(0)
	if extra != nil {
		first = c.or(first, c.cat(extra, rules[0]))
	}
	body := c.cat(first, ws)
	if end(0) {
		body = c.opt(body)
	}
	return c.cat(grammar.Lit("{"), ws, body, grammar.Lit("}")), true, nil
}
