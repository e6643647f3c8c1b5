package jsonschema

import "github.com/reinlm/rein/grammar"

// This file normalizes schemas. A subschema is compiled from a conjunction
// of schema nodes (conj: the node itself, or several merged by allOf, or
// one property's schemas from several merged objects). Normalizing it gives
// its branches: a disjunction of conjunctive schemas (schema), each a plain
// record of constraints with no combinator left, found by distributing anyOf,
// oneOf, $ref, allOf, if/then/else and dependencies over the node's own
// keywords and merging (intersecting) what they combine. Subschemas below a
// branch (property values, items, ...) stay unnormalized conjunctions until
// their own rules are compiled, which is what makes recursive schemas finite.

// product returns every merge of a branch of a with a branch of b.
func (c *compiler) product(a, b []*schema, ptr string) ([]*schema, error) {
	if err := c.tick(len(a) * len(b)); err != nil {
		return nil, err
	}
	var out branchSet
	for _, x := range a {
		for _, y := range b {
			m, err := c.merge(x, y)
			if err != nil {
				return nil, err
			}
			if m == nil {
				continue
			}
			for _, m := range closeKeys(m) {
				if out.add(m) && len(out.list) > c.opts.Limits.Alternatives {
					return nil, c.limitf(ptr, "", "more alternatives than Limits.Alternatives (%d) after distributing anyOf/oneOf/allOf", c.opts.Limits.Alternatives)
				}
			}
		}
	}
	return out.list, nil
}

// branchSet collects branches, each key once. A branch dropped as equal to
// one kept may differ from it in evalKeys, which key leaves out: the kept
// one then evaluates every key if either did, since a document that
// matches one matches the other.
type branchSet struct {
	list []*schema
	at   map[string]int
}

// add adds s unless a branch of its key is there, and reports whether it did.
func (b *branchSet) add(s *schema) bool {
	k := s.key()
	if i, ok := b.at[k]; ok {
		if s.evalKeys && !b.list[i].evalKeys {
			t := b.list[i].clone()
			t.evalKeys = true
			b.list[i] = t
		}
		return false
	}
	if b.at == nil {
		b.at = map[string]int{}
	}
	b.at[k] = len(b.list)
	b.list = append(b.list, s)
	return true
}

func (c *compiler) union(a, b []*schema, ptr string) ([]*schema, error) {
	var out branchSet
	for _, s := range a {
		out.add(s)
	}
	for _, s := range b {
		out.add(s)
	}
	if len(out.list) > c.opts.Limits.Alternatives {
		return nil, c.limitf(ptr, "", "more alternatives than Limits.Alternatives (%d) after distributing anyOf/oneOf", c.opts.Limits.Alternatives)
	}
	return out.list, nil
}

// conjDNF returns the branches of a conjunction of schema nodes.
func (c *compiler) conjDNF(cj conj, ptr string) ([]*schema, error) {
	out := []*schema{universal()}
	for _, n := range cj {
		d, err := c.nodeDNF(n)
		if err != nil {
			return nil, err
		}
		out, err = c.product(out, d, ptr)
		if err != nil || len(out) == 0 {
			return nil, err
		}
	}
	return out, nil
}

// negation returns a node standing for the negation of cj, normalized
// lazily (negating a recursive schema descends one level at a time).
func (c *compiler) negation(cj conj) *node {
	key := "not:" + cj.key()
	if n, ok := c.negNodes[key]; ok {
		return n
	}
	c.synth--
	ptr := ""
	if len(cj) > 0 {
		ptr = cj[0].ptr
	}
	n := &node{kind: kindObject, neg: cj, key: key, id: c.synth - 3, ptr: ptr, negAt: c.negAt}
	c.negNodes[key] = n
	return n
}

func describe(ptr string) string {
	if ptr == "" {
		return "the root schema"
	}
	return "the subschema at " + ptr
}

// negationDNF normalizes a negation node.
func (c *compiler) negationDNF(n *node) ([]*schema, error) {
	if d, ok := c.dnfMemo[n.id]; ok {
		return d, nil
	}
	if c.inDNF[n.id] {
		return nil, c.errorf(n.ptr, "", grammar.ErrUnsupported, "the schema refers to itself without any value in between (through not)")
	}
	c.inDNF[n.id] = true
	defer delete(c.inDNF, n.id)
	saved := c.negAt
	c.negAt = n.negAt
	defer func() { c.negAt = saved }()
	neg, ok, err := c.negateConj(n.neg, n.ptr)
	if err != nil {
		return nil, err
	}
	if !ok {
		if err := c.unsupported(n.negAt.ptr, n.negAt.val, "the negation of %s cannot be expressed", describe(n.ptr)); err != nil {
			return nil, err
		}
		neg = []*schema{universal()}
	}
	c.dnfMemo[n.id] = neg
	return neg, nil
}

// nodeDNF returns the branches of one schema node.
func (c *compiler) nodeDNF(n *node) ([]*schema, error) {
	if n.neg != nil {
		return c.negationDNF(n)
	}
	if d, ok := c.dnfMemo[n.id]; ok {
		return d, nil
	}
	switch n.kind {
	case kindBool:
		if n.b {
			return []*schema{universal()}, nil
		}
		return nil, nil
	case kindObject:
	default:
		return nil, c.errorf(n.ptr, "", nil, "a schema must be an object or a boolean, not %s", kindName(n.kind))
	}
	if c.inDNF[n.id] {
		return nil, c.errorf(n.ptr, "", grammar.ErrUnsupported, "the schema refers to itself without any value in between (through $ref, allOf, anyOf, oneOf or not)")
	}
	c.inDNF[n.id] = true
	defer delete(c.inDNF, n.id)
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > c.opts.Limits.SchemaDepth {
		return nil, c.limitf(n.ptr, "", "subschemas nest deeper than Limits.SchemaDepth (%d)", c.opts.Limits.SchemaDepth)
	}

	if ref := n.get("$ref"); ref != nil && n.draft <= 7 {
		// Before 2019-09, $ref replaces the whole schema.
		d, err := c.refDNF(n, ref, "$ref")
		if err == nil {
			c.dnfMemo[n.id] = d
		}
		return d, err
	}
	base, err := c.readKeywords(n)
	if err != nil {
		return nil, err
	}
	out := []*schema{universal()}
	baseDone := false
	addBase := func() error {
		if baseDone {
			return nil
		}
		baseDone = true
		out, err = c.product(out, []*schema{base}, n.ptr)
		return err
	}
	var uneval []string
	for i, k := range n.keys {
		v := n.vals[i]
		var f []*schema
		switch k {
		case "$ref", "$dynamicRef", "$recursiveRef":
			f, err = c.refDNF(n, v, k)
		case "allOf":
			f, err = c.allOfDNF(n, v)
		case "anyOf":
			f, err = c.anyOfDNF(n, v, k)
		case "oneOf":
			// The alternatives are judged within what the node has
			// gathered so far: base ∧ oneOf(A, B) is oneOf(base ∧ A,
			// base ∧ B), and a property the node requires or an enum it
			// narrows often makes alternatives disjoint that are not on
			// their own.
			if err := addBase(); err != nil {
				return nil, err
			}
			if out, err = c.oneOfDNF(n, v, out); err != nil {
				return nil, err
			}
			continue
		case "not":
			f, err = c.notDNF(n, v)
		case "if":
			f, err = c.ifDNF(n, v)
		case "dependentRequired", "dependentSchemas", "dependencies":
			f, err = c.dependenciesDNF(n, k, v)
		case "unevaluatedProperties", "unevaluatedItems":
			if !trivial(v) {
				uneval = append(uneval, k)
			}
			continue
		default:
			if known[k] && !baseDone && k != "then" && k != "else" {
				err = addBase()
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := addBase(); err != nil {
			return nil, err
		}
		if out, err = c.product(out, f, n.ptr); err != nil {
			return nil, err
		}
	}
	if err := addBase(); err != nil {
		return nil, err
	}
	for _, k := range uneval {
		if out, err = c.applyUnevaluated(n, k, out); err != nil {
			return nil, err
		}
	}
	c.dnfMemo[n.id] = out
	return out, nil
}

func (c *compiler) refDNF(n, ref *node, kw string) ([]*schema, error) {
	target, err := c.refTarget(n, ref, kw)
	if err != nil || target == nil {
		return []*schema{universal()}, err
	}
	return c.nodeDNF(target)
}

// refTarget returns the schema a reference keyword stands for, or nil
// when it cannot be followed and Lenient mode lets it pass.
func (c *compiler) refTarget(n, ref *node, kw string) (*node, error) {
	if ref.kind != kindString {
		return nil, c.errorf(n.ptr, kw, nil, "must be a string")
	}
	target, err := c.ix.resolve(n, ref.str, kw)
	if err != nil {
		return nil, err
	}
	target, ok := c.ix.staticRef(n.ptr, ref.str, kw, target)
	if !ok {
		return nil, c.unsupported(n.ptr, kw, "%q may resolve to another schema depending on the dynamic scope, which cannot be followed", ref.str)
	}
	return target, nil
}

func (c *compiler) schemaList(n, v *node, kw string) ([]*node, error) {
	if v.kind != kindArray || len(v.elems) == 0 {
		return nil, c.errorf(n.ptr, kw, nil, "must be a non-empty array of schemas")
	}
	return v.elems, nil
}

func (c *compiler) allOfDNF(n, v *node) ([]*schema, error) {
	list, err := c.schemaList(n, v, "allOf")
	if err != nil {
		return nil, err
	}
	out := []*schema{universal()}
	for _, e := range list {
		d, err := c.nodeDNF(e)
		if err != nil {
			return nil, err
		}
		if out, err = c.product(out, d, n.ptr); err != nil || len(out) == 0 {
			return nil, err
		}
	}
	return out, nil
}

func (c *compiler) anyOfDNF(n, v *node, kw string) ([]*schema, error) {
	list, err := c.schemaList(n, v, kw)
	if err != nil {
		return nil, err
	}
	var out []*schema
	for _, e := range list {
		d, err := c.nodeDNF(e)
		if err != nil {
			return nil, err
		}
		if out, err = c.union(out, d, n.ptr); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// oneOfDNF returns the branches of ctx ∧ oneOf, ctx being the branches
// of what the node gathered before it. Within a context branch, oneOf is
// anyOf when the alternatives are provably disjoint there. Otherwise each
// alternative is intersected with the negation of the others where the
// negation can be expressed; failing that, it is an error (or anyOf with a
// warning in Lenient mode).
func (c *compiler) oneOfDNF(n, v *node, ctx []*schema) ([]*schema, error) {
	list, err := c.schemaList(n, v, "oneOf")
	if err != nil {
		return nil, err
	}
	alts := make([][]*schema, len(list))
	for i, e := range list {
		if alts[i], err = c.nodeDNF(e); err != nil {
			return nil, err
		}
	}
	saved := c.negAt
	c.negAt = loc{"oneOf", n.ptr}
	defer func() { c.negAt = saved }()
	var out []*schema
	for _, o := range ctx {
		d, err := c.oneOfWithin(n, o, alts)
		if err != nil {
			return nil, err
		}
		if out, err = c.union(out, d, n.ptr); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// oneOfWithin returns the branches of o ∧ oneOf(alts).
func (c *compiler) oneOfWithin(n *node, o *schema, alts [][]*schema) ([]*schema, error) {
	// Type by type: values of a type that two alternatives accept without
	// any constraint of that type beyond o's match both, so oneOf rejects
	// them all.
	var out []*schema
	for _, t := range []types{jtNull, jtBool, jtInt, jtFrac, jtString, jtArray, jtObject} {
		if o.types&t == 0 {
			continue
		}
		ot := o.clone()
		ot.types = t
		// raw[i] is alternative i alone, negated where exactly-one needs
		// it; within[i] is it merged with o, where disjointness is judged.
		raw := make([][]*schema, len(alts))
		within := make([][]*schema, len(alts))
		whole := 0
		for i, bs := range alts {
			for _, b := range bs {
				if b.types&t == 0 {
					continue
				}
				r := b.clone()
				r.types = t
				raw[i] = append(raw[i], r)
			}
			var err error
			if within[i], err = c.product([]*schema{ot}, raw[i], n.ptr); err != nil {
				return nil, err
			}
			if containsBranch(within[i], ot) {
				whole++
			}
		}
		if whole >= 2 {
			continue
		}
		for i := range within {
			branch := within[i]
			// The alternatives branch may share values with: it is
			// intersected with the complement of their union, negated at
			// once so that a tagged union is negated by cases.
			var others []*schema
			first := -1
			for j := range within {
				if i == j || len(branch) == 0 || len(within[j]) == 0 {
					continue
				}
				disjoint, err := c.disjointSets(branch, within[j], 0)
				if err != nil {
					return nil, err
				}
				if !disjoint {
					others = append(others, raw[j]...)
					if first < 0 {
						first = j
					}
				}
			}
			if first >= 0 {
				neg, ok, err := c.negateBranches(others, n.ptr)
				if err != nil {
					return nil, err
				}
				if ok {
					branch, err = c.product(branch, neg, n.ptr)
				} else {
					err = c.unsupported(n.ptr, "oneOf", "alternatives %d and %d may overlap, and exactly-one cannot be enforced (treated as anyOf)", i, c.firstUnnegatable(within, raw, i, first))
				}
				if err != nil {
					return nil, err
				}
			}
			var err error
			if out, err = c.union(out, branch, n.ptr); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// firstUnnegatable returns the first alternative from first on, other
// than i, that may overlap alternative i and has a branch whose negation
// cannot be expressed (first if none is found).
func (c *compiler) firstUnnegatable(within, raw [][]*schema, i, first int) int {
	for j := first; j < len(raw); j++ {
		if j == i || len(within[j]) == 0 {
			continue
		}
		if disjoint, err := c.disjointSets(within[i], within[j], 0); err != nil || disjoint {
			continue
		}
		for _, b := range raw[j] {
			if _, ok, err := c.negateBranch(b); err == nil && !ok {
				return j
			}
		}
	}
	return first
}

// containsBranch reports whether bs holds a branch equal to s, one that
// accepts every value s does.
func containsBranch(bs []*schema, s *schema) bool {
	k := s.key()
	for _, b := range bs {
		if b.key() == k {
			return true
		}
	}
	return false
}

func (c *compiler) notDNF(n, v *node) ([]*schema, error) {
	saved := c.negAt
	c.negAt = loc{"not", n.ptr}
	defer func() { c.negAt = saved }()
	neg, ok, err := c.negateConj(conj{v}, n.ptr)
	if err != nil {
		return nil, err
	}
	if ok {
		return neg, nil
	}
	// Keep it for enum filtering; checkNots reports it when it matters.
	s := universal()
	s.nots = []conj{{v}}
	s.ptr = n.ptr
	return []*schema{s}, nil
}

// ifDNF is (if ∧ then) ∨ (¬if ∧ else).
func (c *compiler) ifDNF(n, v *node) ([]*schema, error) {
	then, els := n.get("then"), n.get("else")
	if then == nil && els == nil {
		return []*schema{universal()}, nil
	}
	cond, err := c.nodeDNF(v)
	if err != nil {
		return nil, err
	}
	yes := cond
	if then != nil {
		t, err := c.nodeDNF(then)
		if err != nil {
			return nil, err
		}
		if yes, err = c.product(cond, t, n.ptr); err != nil {
			return nil, err
		}
	}
	saved := c.negAt
	c.negAt = loc{"if", n.ptr}
	neg, ok, err := c.negateBranches(cond, n.ptr)
	c.negAt = saved
	if err != nil {
		return nil, err
	}
	if !ok {
		if err := c.unsupported(n.ptr, "if", "the negation of the condition cannot be expressed (then and else become alternatives)"); err != nil {
			return nil, err
		}
		neg = []*schema{universal()}
		if then != nil {
			t, _ := c.nodeDNF(then)
			yes = t
		}
	}
	no := neg
	if els != nil {
		e, err := c.nodeDNF(els)
		if err != nil {
			return nil, err
		}
		if no, err = c.product(neg, e, n.ptr); err != nil {
			return nil, err
		}
	}
	return c.union(yes, no, n.ptr)
}

// dependenciesDNF turns each dependency into "absent, or present with what
// it requires".
func (c *compiler) dependenciesDNF(n *node, kw string, v *node) ([]*schema, error) {
	if v.kind != kindObject {
		return nil, c.errorf(n.ptr, kw, nil, "must be an object")
	}
	out := []*schema{universal()}
	for i, name := range v.keys {
		dep := v.vals[i]
		absent := universal()
		absent.props = []prop{{name: name, conj: conj{c.falseNode}}}
		present := universal()
		present.required = []string{name}
		presentD := []*schema{present}
		var err error
		switch {
		case dep.kind == kindArray && kw != "dependentSchemas":
			for _, r := range dep.elems {
				if r.kind != kindString {
					return nil, c.errorf(n.ptr, kw, nil, "%q: must list property names", name)
				}
				if !present.isRequired(r.str) {
					present.required = append(present.required, r.str)
				}
			}
		case kw != "dependentRequired":
			d, err := c.nodeDNF(dep)
			if err != nil {
				return nil, err
			}
			if presentD, err = c.product(presentD, d, n.ptr); err != nil {
				return nil, err
			}
		default:
			return nil, c.errorf(n.ptr, kw, nil, "%q: must be an array of property names", name)
		}
		both, err := c.union([]*schema{absent}, presentD, n.ptr)
		if err != nil {
			return nil, err
		}
		if out, err = c.product(out, both, n.ptr); err != nil || len(out) == 0 {
			return nil, err
		}
	}
	return out, nil
}

// applyUnevaluated enforces unevaluatedProperties / unevaluatedItems on the
// merged branches of their schema: what a branch does not declare is
// unevaluated. Annotations of alternatives that also matched are not
// counted, so this can reject a few valid instances, never accept invalid
// ones. Constraints a branch holds only through a negation (the other
// alternatives of oneOf, a failed if, not) evaluate nothing: a key or an
// item constrained only there is unevaluated and gets the keyword's schema
// too.
func (c *compiler) applyUnevaluated(n *node, kw string, bs []*schema) ([]*schema, error) {
	v := n.get(kw)
	out := make([]*schema, 0, len(bs))
	for _, s := range bs {
		s = s.clone()
		if kw == "unevaluatedProperties" {
			g := group{addl: conj{v}}
			for _, og := range s.groups {
				if og.shadow {
					continue // a negation's: it evaluates no key
				}
				for _, pp := range og.pats {
					g.pats = append(g.pats, patProp{pat: pp.pat})
				}
				if !og.addl.isTrue() || len(og.pats) == 0 && og.addl != nil {
					// additionalProperties evaluated every other key.
					g = group{}
					break
				}
			}
			if s.evalKeys {
				// additionalProperties evaluated every key, even as true.
				g = group{}
			}
			if g.addl != nil {
				for i, p := range s.props {
					if !p.shadow {
						continue
					}
					if len(g.pats) > 0 {
						// Whether a pattern evaluates the key is not worked out.
						if err := c.unsupported(n.ptr, kw, "a property constrained only through not, oneOf or if, beside patternProperties, cannot be enforced"); err != nil {
							return nil, err
						}
						break
					}
					s.props[i].conj = p.conj.and(v)
					s.props[i].shadow = false
				}
				s.groups = append(s.groups, g)
			}
		} else {
			if len(s.contains) > 0 {
				if err := c.unsupported(n.ptr, kw, "unevaluatedItems together with contains cannot be enforced"); err != nil {
					return nil, err
				}
			}
			for i := range s.shadowPrefix {
				if s.shadowPrefix[i] {
					s.prefix[i] = s.prefix[i].and(v)
				}
			}
			s.shadowPrefix = nil
			if s.items != nil && s.shadowItems {
				s.items = s.items.and(v)
				s.shadowItems = false
			}
			if s.items == nil {
				s.items = conj{v}
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// known lists the keywords that constrain instances (the others are
// annotations or unknown, and are ignored).
var known = map[string]bool{
	"type": true, "enum": true, "const": true,
	"minLength": true, "maxLength": true, "pattern": true, "format": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"properties": true, "required": true, "additionalProperties": true, "patternProperties": true,
	"propertyNames": true, "minProperties": true, "maxProperties": true,
	"dependentRequired": true, "dependentSchemas": true, "dependencies": true,
	"items": true, "prefixItems": true, "additionalItems": true, "minItems": true, "maxItems": true,
	"contains": true, "minContains": true, "maxContains": true, "uniqueItems": true,
	"unevaluatedProperties": true, "unevaluatedItems": true,
	"$ref": true, "$dynamicRef": true, "$recursiveRef": true,
	"allOf": true, "anyOf": true, "oneOf": true, "not": true, "if": true, "then": true, "else": true,
	"nullable": true,
}
