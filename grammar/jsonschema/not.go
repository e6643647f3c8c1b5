package jsonschema

import (
	"errors"
	"math/big"
	"slices"

	"github.com/reinlm/rein/grammar"
)

// This file pushes negation (not, the else of if, the exactly-one of oneOf)
// down to the constraints where the negation is itself a constraint, and
// proves alternatives disjoint.

// checkNots reports negations that could not be pushed into constraints,
// unless an enum makes them checkable value by value.
func (c *compiler) checkNots(s *schema) error {
	if s.hasEnum {
		return nil
	}
	for _, n := range s.nots {
		ptr := s.ptr
		if len(n) > 0 {
			ptr = n[0].ptr
		}
		if err := c.unsupported(parentPointer(ptr), "not", "this negation cannot be expressed"); err != nil {
			return err
		}
	}
	s.nots = nil
	// An excluded object or array (not with a structured const or enum)
	// would need the grammar of every other object or array: refused,
	// unless the branch rejects the value anyway.
	excluded := s.notVals
	for _, v := range excluded {
		if v.kind != kindObject && v.kind != kindArray {
			continue
		}
		s.notVals = nil // judge the value without the exclusions
		ok, err := c.validate(s, v)
		s.notVals = excluded
		if err != nil {
			return err
		}
		if ok {
			if err := c.unsupported(v.ptr, "not", "excluding one object or array value cannot be expressed"); err != nil {
				return err
			}
		}
	}
	for _, is := range s.issues {
		if err := c.unsupported(is.ptr, is.kw, "%s", is.msg); err != nil {
			return err
		}
	}
	return nil
}

func parentPointer(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return ""
}

// excludeLiterals drops the null/true/false literals that not excludes.
func (c *compiler) excludeLiterals(s *schema, e *grammar.Expr, kind kind) (*grammar.Expr, error) {
	if len(s.notVals) == 0 {
		return e, nil
	}
	if kind == kindNull {
		for _, v := range s.notVals {
			if v.kind == kindNull {
				return nil, nil
			}
		}
		return e, nil
	}
	var alts []*grammar.Expr
	for _, b := range []bool{true, false} {
		excluded := false
		for _, v := range s.notVals {
			excluded = excluded || v.kind == kindBool && v.b == b
		}
		if !excluded {
			alts = append(alts, c.literal(&node{kind: kindBool, b: b}))
		}
	}
	return c.or(alts...), nil
}

// negateConj returns the branches of the complement of cj. It negates cj's
// normalized branches; where they are too many to negate, or one of them
// cannot be negated, it negates cj part by part instead (negateNode):
// ¬(A ∧ ¬B) is ¬A ∨ B whether or not B can be negated, and a union of
// negated parts grows as their sum, not their product.
func (c *compiler) negateConj(cj conj, ptr string) ([]*schema, bool, error) {
	neg, ok, err := c.negateNormalized(cj, ptr)
	if ok || err != nil && !errors.Is(err, grammar.ErrLimit) {
		return neg, ok, err
	}
	var parts []*schema
	for _, n := range cj {
		d, pok, perr := c.negateNode(n)
		if perr == nil && pok {
			parts, perr = c.union(parts, d, ptr)
		}
		if perr != nil || !pok {
			// The first way's answer stands.
			return nil, false, err
		}
	}
	return parts, true, nil
}

func (c *compiler) negateNormalized(cj conj, ptr string) ([]*schema, bool, error) {
	d, err := c.conjDNF(cj, ptr)
	if err != nil {
		return nil, false, err
	}
	return c.negateBranches(d, ptr)
}

// negateNode returns the branches of the complement of one schema node,
// found from its parts: a value fails the node when it fails its own
// keywords or one of its allOf, $ref or not subschemas, or every anyOf
// subschema. oneOf, if/then/else and dependencies are negated as wholes,
// and a node whose parts cannot be told apart (unevaluated keywords) is
// negated normalized.
func (c *compiler) negateNode(n *node) ([]*schema, bool, error) {
	if d, ok := c.negMemo[n.id]; ok {
		return d, true, nil
	}
	if n.neg != nil {
		d, err := c.conjDNF(n.neg, n.ptr)
		return d, err == nil, err
	}
	if n.kind == kindBool {
		if n.b {
			return nil, true, nil
		}
		return []*schema{universal()}, true, nil
	}
	if ref := n.get("$ref"); ref != nil && n.draft <= 7 && !c.inDNF[n.id] {
		// Before 2019-09, $ref replaces the whole schema.
		c.inDNF[n.id] = true
		defer delete(c.inDNF, n.id)
		return c.negateKeyword(n, "$ref", ref)
	}
	whole := n.kind != kindObject || c.inDNF[n.id] ||
		n.get("unevaluatedProperties") != nil || n.get("unevaluatedItems") != nil
	if whole {
		return c.negateNormalized(conj{n}, n.ptr)
	}
	c.inDNF[n.id] = true
	defer delete(c.inDNF, n.id)
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > c.opts.Limits.SchemaDepth {
		return nil, false, c.limitf(n.ptr, "", "subschemas nest deeper than Limits.SchemaDepth (%d)", c.opts.Limits.SchemaDepth)
	}
	base, err := c.readKeywords(n)
	if err != nil {
		return nil, false, err
	}
	out, ok, err := c.negateBranch(base)
	if err != nil || !ok {
		return nil, ok, err
	}
	for i, k := range n.keys {
		d, ok, err := c.negateKeyword(n, k, n.vals[i])
		if err == nil && ok {
			out, err = c.union(out, d, n.ptr)
		}
		if err != nil || !ok {
			return nil, ok, err
		}
	}
	c.negMemo[n.id] = out
	return out, true, nil
}

// negateKeyword returns the branches of the values that fail one
// combinator keyword of n (none for other keywords).
func (c *compiler) negateKeyword(n *node, k string, v *node) ([]*schema, bool, error) {
	switch k {
	case "$ref", "$dynamicRef", "$recursiveRef":
		target, err := c.refTarget(n, v, k)
		if err != nil || target == nil {
			return nil, err == nil, err
		}
		return c.negateNode(target)
	case "allOf", "anyOf":
		list, err := c.schemaList(n, v, k)
		if err != nil {
			return nil, false, err
		}
		var out []*schema
		if k == "anyOf" {
			out = []*schema{universal()}
		}
		for _, e := range list {
			d, ok, err := c.negateNode(e)
			if err != nil || !ok {
				return nil, ok, err
			}
			if k == "allOf" {
				out, err = c.union(out, d, n.ptr)
			} else {
				out, err = c.product(out, d, n.ptr)
			}
			if err != nil {
				return nil, false, err
			}
		}
		return out, true, nil
	case "not":
		d, err := c.nodeDNF(v)
		return d, err == nil, err
	case "oneOf", "if", "dependentRequired", "dependentSchemas", "dependencies":
		var d []*schema
		var err error
		switch k {
		case "oneOf":
			d, err = c.oneOfDNF(n, v, []*schema{universal()})
		case "if":
			d, err = c.ifDNF(n, v)
		default:
			d, err = c.dependenciesDNF(n, k, v)
		}
		if err != nil {
			return nil, false, err
		}
		return c.negateBranches(d, n.ptr)
	}
	return nil, true, nil
}

// negateBranches returns the branches of the complement of bs, or ok false
// when some constraint's negation cannot be expressed.
//
// The complement of a union is the product of the branches' complements,
// which grows as their sizes multiplied. Object branches that each require
// one property d and give it pairwise disjoint schemas C_k (a tagged union:
// "type": "Point", "type": "Polygon", ...) are negated by cases instead: a
// value fails them all when it is no object, lacks d, or has a d outside
// every C_k; or when its d is in C_k (so it fails every other branch) and
// it fails branch k. That is as many branches as the parts add up to.
func (c *compiler) negateBranches(bs []*schema, ptr string) ([]*schema, bool, error) {
	tagged, d, rest, err := c.taggedBranches(bs)
	if err != nil {
		return nil, false, err
	}
	out := []*schema{universal()}
	if tagged != nil {
		outside := universal()
		outside.ptr = ptr
		p := prop{name: d, shadow: true}
		for _, b := range tagged {
			cj, err := c.propConj(b, d)
			if err != nil {
				return nil, false, err
			}
			p.conj = append(p.conj, c.negation(cj))
		}
		outside.props = []prop{p}
		out = []*schema{outside}
		for _, b := range tagged {
			neg, ok, err := c.negateBranch(b)
			if err != nil || !ok {
				return nil, ok, err
			}
			cj, err := c.propConj(b, d)
			if err != nil {
				return nil, false, err
			}
			in := universal()
			in.ptr, in.types, in.required = ptr, jtObject, []string{d}
			in.props = []prop{{name: d, conj: cj, shadow: true}}
			cases, err := c.product([]*schema{in}, neg, ptr)
			if err != nil {
				return nil, false, err
			}
			if out, err = c.union(out, cases, ptr); err != nil {
				return nil, false, err
			}
		}
		bs = rest
	}
	for _, b := range bs {
		neg, ok, err := c.negateBranch(b)
		if err != nil || !ok {
			return nil, ok, err
		}
		if out, err = c.product(out, neg, ptr); err != nil {
			return nil, false, err
		}
		if len(out) == 0 {
			break
		}
	}
	return out, true, nil
}

// taggedBranches picks from bs the largest set of object branches that
// each require one property d and give it pairwise disjoint schemas (at
// least two, else none), and returns them, d, and the other branches.
func (c *compiler) taggedBranches(bs []*schema) (tagged []*schema, d string, rest []*schema, err error) {
	if len(bs) < 3 || len(bs) > 64 {
		// Two branches multiply into no more than the cases would; past
		// 64, finding the tag costs more than it may save.
		return nil, "", bs, nil
	}
	// The object values of a branch that also takes other types are tagged
	// apart from the rest.
	var split []*schema
	for _, b := range bs {
		if b.types&jtObject == 0 || b.types == jtObject || len(b.required) == 0 {
			split = append(split, b)
			continue
		}
		o, r := b.clone(), b.clone()
		o.types, r.types = jtObject, b.types&^jtObject
		split = append(split, o, r)
	}
	bs = split
	tried := map[string]bool{}
	for _, b := range bs {
		for _, name := range b.required {
			if tried[name] {
				continue
			}
			tried[name] = true
			var group []*schema
			var tags [][]*schema
			for _, x := range bs {
				if x.types != jtObject || !x.isRequired(name) {
					continue
				}
				cj, err := c.propConj(x, name)
				if err != nil {
					return nil, "", nil, err
				}
				if cj.isTrue() {
					continue
				}
				tag, err := c.conjDNF(cj, x.ptr)
				if err != nil {
					// Too large to judge: leave the branch out.
					continue
				}
				apart := true
				for _, t := range tags {
					if apart, err = c.disjointSets(tag, t, 0); err != nil {
						return nil, "", nil, err
					}
					if !apart {
						break
					}
				}
				if apart {
					group = append(group, x)
					tags = append(tags, tag)
				}
			}
			if len(group) > len(tagged) {
				tagged, d = group, name
			}
		}
	}
	if len(tagged) < 2 {
		return nil, "", bs, nil
	}
	for _, b := range bs {
		if !slices.Contains(tagged, b) {
			rest = append(rest, b)
		}
	}
	return tagged, d, rest, nil
}

// negateBranch returns the complement of one conjunctive branch as a union:
// a value fails s when its type is not allowed, or when one constraint of
// its type fails.
func (c *compiler) negateBranch(s *schema) ([]*schema, bool, error) {
	if len(s.issues) > 0 || len(s.unique) > 0 {
		return nil, false, nil
	}
	var out []*schema
	typed := func(t types) *schema {
		x := universal()
		x.types = t
		x.ptr = s.ptr
		out = append(out, x)
		return x
	}
	if rest := jtAll &^ s.types; rest != 0 {
		typed(rest)
	}
	T := s.types
	if s.hasEnum {
		x := typed(T)
		x.notVals = append([]*node(nil), s.enum...)
	}
	for _, v := range s.notVals {
		x := typed(T)
		x.hasEnum, x.enum, x.enumPtr = true, []*node{v}, s.ptr
	}
	for _, n := range s.nots {
		d, err := c.conjDNF(n, s.ptr)
		if err != nil {
			return nil, false, err
		}
		for _, b := range d {
			b = b.clone()
			b.types &= T
			if b.types != 0 {
				out = append(out, b)
			}
		}
	}
	if T&jtString != 0 {
		if s.minLen > 0 {
			typed(jtString).maxLen = s.minLen - 1
		}
		if s.maxLen >= 0 {
			typed(jtString).minLen = s.maxLen + 1
		}
		for _, p := range s.patterns {
			typed(jtString).notPatterns = []loc{p}
		}
		for _, p := range s.notPatterns {
			typed(jtString).patterns = []loc{p}
		}
		for _, f := range s.formats {
			// An unknown format is not checked: it excludes nothing.
			if _, known := formats[f.val]; known {
				typed(jtString).notFormats = []loc{f}
			}
		}
		for _, f := range s.notFormats {
			typed(jtString).formats = []loc{f}
		}
	}
	if T&jtNumber != 0 {
		if s.lo != nil {
			x := typed(T & jtNumber)
			x.hi, x.hiEx = s.lo, !s.loEx
		}
		if s.hi != nil {
			x := typed(T & jtNumber)
			x.lo, x.loEx = s.hi, !s.hiEx
		}
		if len(s.mults) > 0 {
			m, err := c.multiple(s)
			if err != nil {
				return nil, false, err
			}
			typed(T & jtNumber).notMults = []*big.Rat{m}
		}
		for _, m := range s.notMults {
			x := typed(T & jtNumber)
			x.mults, x.multPtr = []*big.Rat{m}, s.ptr
		}
	}
	if T&jtObject != 0 {
		for _, p := range s.props {
			if p.conj.isTrue() {
				continue
			}
			x := typed(jtObject)
			x.required = []string{p.name}
			x.props = []prop{{name: p.name, conj: conj{c.negation(p.conj)}, shadow: true}}
		}
		for _, r := range s.required {
			typed(jtObject).props = []prop{{name: r, conj: conj{c.falseNode}, shadow: true}}
		}
		for _, ko := range s.keyOutside {
			// No key outside ko: the object's keys are among its names.
			x := typed(jtObject)
			for _, name := range ko.names {
				x.props = append(x.props, prop{name: name, shadow: true})
			}
			x.groups = []group{{addl: conj{c.falseNode}, shadow: true}}
		}
		names := make([]string, len(s.props))
		for i, p := range s.props {
			names[i] = p.name
		}
		slices.Sort(names)
		// The keyword that asked for the negation, where a key it asks
		// for cannot be enforced.
		at := c.negAt
		if at.val == "" {
			at = loc{"not", s.ptr}
		}
		if closed(s) {
			// additionalProperties: false fails on a key outside the
			// declared ones.
			typed(jtObject).keyOutside = []keySet{{names, s.ptr}}
		} else {
			// A key outside the declared ones (whose schemas hold what
			// the groups impose on them) that fails a pattern's schema,
			// or that no pattern matches and fails additionalProperties.
			for _, g := range s.groups {
				var pats []loc
				for _, pp := range g.pats {
					pats = append(pats, pp.pat)
					if !pp.conj.isTrue() {
						pat := pp.pat
						typed(jtObject).witnesses = []keyWitness{{names: names, pat: &pat, value: conj{c.negation(pp.conj)}, ptr: at.ptr, kw: at.val}}
					}
				}
				if !g.addl.isTrue() {
					typed(jtObject).witnesses = []keyWitness{{names: names, notPats: pats, value: conj{c.negation(g.addl)}, ptr: at.ptr, kw: at.val}}
				}
			}
		}
		if !s.propNames.isTrue() {
			// A key, declared or not, that propertyNames rejects.
			typed(jtObject).witnesses = []keyWitness{{keys: conj{c.negation(s.propNames)}, ptr: at.ptr, kw: at.val}}
		}
		for _, w := range s.witnesses {
			// No key as w asks: every key outside w.names that w's key
			// language holds has a value that fails w.value, which is a
			// group of its own.
			if len(w.keys) > 0 {
				return nil, false, nil
			}
			x := typed(jtObject)
			var pp []patProp
			addl := conj{c.negation(w.value)}
			if w.pat != nil {
				pp = []patProp{{pat: *w.pat, conj: addl}}
				addl = nil
			}
			if len(w.notPats) > 0 {
				return nil, false, nil
			}
			for _, name := range w.names {
				x.props = append(x.props, prop{name: name, shadow: true})
			}
			x.groups = []group{{pats: pp, addl: addl, shadow: true}}
		}
		if s.minProps > 0 {
			typed(jtObject).maxProps = s.minProps - 1
		}
		if s.maxProps >= 0 {
			typed(jtObject).minProps = s.maxProps + 1
		}
	}
	if T&jtArray != 0 {
		for i, p := range s.prefix {
			if p.isTrue() {
				continue
			}
			x := typed(jtArray)
			x.minItems = i + 1
			x.prefix = make([]conj, i+1)
			x.shadowPrefix = make([]bool, i+1)
			for j := range x.shadowPrefix {
				x.shadowPrefix[j] = true
			}
			x.prefix[i] = conj{c.negation(p)}
		}
		if !s.items.isTrue() {
			if len(s.prefix) > 0 {
				return nil, false, nil
			}
			x := typed(jtArray)
			x.contains = []contains{{conj: conj{c.negation(s.items)}, min: 1, max: -1, ptr: s.ptr}}
		}
		for _, ct := range s.contains {
			// Fewer matching elements than minContains, or more than
			// maxContains.
			switch {
			case ct.min == 1:
				x := typed(jtArray)
				x.shadowItems = true
				x.items = conj{c.negation(ct.conj)}
			case ct.min > 1:
				typed(jtArray).contains = []contains{{conj: ct.conj, min: 0, max: ct.min - 1, ptr: ct.ptr}}
			}
			if ct.max >= 0 {
				typed(jtArray).contains = []contains{{conj: ct.conj, min: ct.max + 1, max: -1, ptr: ct.ptr}}
			}
		}
		if s.minItems > 0 {
			typed(jtArray).maxItems = s.minItems - 1
		}
		if s.maxItems >= 0 {
			typed(jtArray).minItems = s.maxItems + 1
		}
	}
	return out, true, nil
}

// disjointSets reports whether no value satisfies both a branch of a and a
// branch of b, as far as cheap reasoning can prove.
func (c *compiler) disjointSets(a, b []*schema, depth int) (bool, error) {
	for _, x := range a {
		for _, y := range b {
			ok, err := c.disjoint(x, y, depth)
			if err != nil || !ok {
				return false, err
			}
		}
	}
	return true, nil
}

func (c *compiler) disjoint(x, y *schema, depth int) (bool, error) {
	T := x.types & y.types
	if T == 0 {
		return true, nil
	}
	if depth > 4 {
		return false, nil
	}
	for _, p := range [][2]*schema{{x, y}, {y, x}} {
		if p[0].hasEnum {
			all := true
			for _, v := range p[0].enum {
				ok, err := c.validate(p[1], v)
				if err != nil {
					return false, nil
				}
				all = all && !ok
			}
			if all {
				return true, nil
			}
		}
	}
	for _, t := range []types{jtNull, jtBool, jtInt, jtFrac, jtString, jtArray, jtObject} {
		if T&t == 0 {
			continue
		}
		ok, err := c.disjointIn(x, y, t, depth)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// disjointIn reports whether x and y share no value of type t.
func (c *compiler) disjointIn(x, y *schema, t types, depth int) (bool, error) {
	switch t {
	case jtString:
		lo, hi := max(x.minLen, y.minLen), minBound(x.maxLen, y.maxLen)
		if hi >= 0 && lo > hi {
			return true, nil
		}
		if x.textFree() && y.textFree() {
			return false, nil
		}
		// Patterns and formats: intersect their automata.
		dx, err := c.stringDFA(x)
		if err != nil {
			return false, nil
		}
		dy, err := c.stringDFA(y)
		if err != nil {
			return false, nil
		}
		d, err := c.intersect(dx, dy)
		return err == nil && d.IsEmpty(), nil
	case jtInt, jtFrac:
		lo, loEx := x.lo, x.loEx
		if y.lo != nil && (lo == nil || y.lo.Cmp(lo) > 0 || y.lo.Cmp(lo) == 0 && y.loEx) {
			lo, loEx = y.lo, y.loEx
		}
		hi, hiEx := x.hi, x.hiEx
		if y.hi != nil && (hi == nil || y.hi.Cmp(hi) < 0 || y.hi.Cmp(hi) == 0 && y.hiEx) {
			hi, hiEx = y.hi, y.hiEx
		}
		return lo != nil && hi != nil && (lo.Cmp(hi) > 0 || lo.Cmp(hi) == 0 && (loEx || hiEx)), nil
	case jtArray:
		lo, hi := max(x.minItems, y.minItems), minBound(x.maxItems, y.maxItems)
		return hi >= 0 && lo > hi, nil
	case jtObject:
		lo, hi := max(x.minProps, y.minProps), minBound(x.maxProps, y.maxProps)
		if hi >= 0 && lo > hi {
			return true, nil
		}
		for _, p := range [][2]*schema{{x, y}, {y, x}} {
			for _, r := range p[0].required {
				// Required on one side, forbidden or given a disjoint
				// schema on the other?
				other, err := c.propConj(p[1], r)
				if err != nil {
					return false, err
				}
				if other.isFalse() {
					return true, nil
				}
				// A value of both has r, so r's value meets both sides'
				// schemas for it, whether the other side requires it or not.
				mine, err := c.propConj(p[0], r)
				if err != nil {
					return false, err
				}
				if mine.isTrue() || other.isTrue() {
					continue
				}
				a, err := c.conjDNF(mine, p[0].ptr)
				if err != nil {
					return false, nil
				}
				b, err := c.conjDNF(other, p[1].ptr)
				if err != nil {
					return false, nil
				}
				if len(a) == 0 || len(b) == 0 {
					return true, nil
				}
				if ok, err := c.disjointSets(a, b, depth+1); err != nil || ok {
					return ok, err
				}
			}
		}
	}
	return false, nil
}

// propConj returns the schema s imposes on the value of property name.
func (c *compiler) propConj(s *schema, name string) (conj, error) {
	if i := s.prop(name); i >= 0 {
		return s.props[i].conj, nil
	}
	return c.groupConj(s, name)
}

// closed reports whether s's object keys are its declared properties alone:
// no pattern properties, no property names, and additionalProperties false
// (in some group).
func closed(s *schema) bool {
	if len(s.groups) == 0 || !s.propNames.isTrue() {
		return false
	}
	var addl conj
	for _, g := range s.groups {
		if len(g.pats) > 0 {
			return false
		}
		addl = addl.and(g.addl...)
	}
	return addl.isFalse()
}

// closeKeys resolves s's keyOutside where s is closed: a key outside names
// is one of s's declared properties (that may appear) outside names, so s
// becomes a union of branches each requiring one of them (none: nothing).
// An open s is returned as it is; compiling it refuses the constraint.
func closeKeys(s *schema) []*schema {
	if len(s.keyOutside) == 0 || !closed(s) {
		return []*schema{s}
	}
	base := s.clone()
	base.keyOutside = nil
	out := []*schema{base}
	for _, ko := range s.keyOutside {
		var next []*schema
		for _, p := range s.props {
			if _, in := slices.BinarySearch(ko.names, p.name); in || p.conj.isFalse() {
				continue
			}
			for _, b := range out {
				b = b.clone()
				if !b.isRequired(p.name) {
					b.required = append(b.required, p.name)
				}
				next = append(next, b)
			}
		}
		out = next
	}
	return out
}
