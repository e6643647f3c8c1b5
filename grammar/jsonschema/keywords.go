package jsonschema

import (
	"math/big"
	"slices"
)

// readKeywords collects the node's own assertion keywords (everything but
// the combinators, which nodeDNF distributes) into one branch.
func (c *compiler) readKeywords(n *node) (*schema, error) {
	s := universal()
	s.ptr = n.ptr
	bad := func(kw, what string) error {
		return c.errorf(n.ptr, kw, nil, "must be %s", what)
	}
	// malformed reports a keyword of the wrong type that is otherwise
	// easy to pass over (a draft-3 "required": true, a number for a
	// format): an error, or under Lenient a warning (the keyword is
	// ignored).
	malformed := func(kw, what string, v *node) error {
		if c.opts.Lenient {
			c.warn(n.ptr, kw, "must be %s, not %s (ignored)", what, kindName(v.kind))
			return nil
		}
		return c.errorf(n.ptr, kw, nil, "must be %s, not %s", what, kindName(v.kind))
	}
	count := func(kw string) (int, bool, error) {
		v := n.get(kw)
		if v == nil {
			return 0, false, nil
		}
		if v.kind != kindNumber || !v.isInt() || v.num().Sign() < 0 {
			return 0, false, bad(kw, "a non-negative integer")
		}
		r := v.num().Num()
		if !r.IsInt64() || r.Int64() > int64(c.opts.Limits.Repeat) {
			return c.opts.Limits.Repeat + 1, true, nil
		}
		return int(r.Int64()), true, nil
	}
	if err := c.checkShapes(n, malformed); err != nil {
		return nil, err
	}
	var err error
	if v := n.get("type"); v != nil {
		var t types
		switch v.kind {
		case kindString:
			t = typeNames[v.str]
			if t == 0 {
				return nil, c.errorf(n.ptr, "type", nil, "unknown type %q", v.str)
			}
		case kindArray:
			for _, e := range v.elems {
				if e.kind != kindString || typeNames[e.str] == 0 {
					return nil, bad("type", "a type name or an array of type names")
				}
				t |= typeNames[e.str]
			}
		default:
			return nil, bad("type", "a type name or an array of type names")
		}
		s.types = t
		if nl := n.get("nullable"); nl != nil && nl.kind == kindBool && nl.b && s.types&jtNull == 0 && c.opts.Lenient {
			s.types |= jtNull
			c.warn(n.ptr, "nullable", "OpenAPI nullable read as type null")
		}
	}
	if v := n.get("enum"); v != nil {
		if v.kind != kindArray {
			return nil, bad("enum", "an array")
		}
		s.hasEnum, s.enum, s.enumPtr = true, append([]*node(nil), v.elems...), n.ptr
	}
	if v := n.get("const"); v != nil {
		if s.hasEnum {
			var keep []*node
			for _, e := range s.enum {
				if equal(e, v) {
					keep = append(keep, e)
				}
			}
			s.enum = keep
		} else {
			s.hasEnum, s.enum, s.enumPtr = true, []*node{v}, n.ptr
		}
	}

	// Strings.
	if m, ok, err := count("minLength"); err != nil {
		return nil, err
	} else if ok {
		s.minLen = m
	}
	if m, ok, err := count("maxLength"); err != nil {
		return nil, err
	} else if ok {
		s.maxLen = m
	}
	if v := n.get("pattern"); v != nil {
		if v.kind != kindString {
			return nil, bad("pattern", "a string")
		}
		s.patterns = []loc{{v.str, n.ptr}}
	}
	if v := n.get("format"); v != nil && v.kind == kindString {
		if !c.opts.FormatAnnotation {
			s.formats = []loc{{v.str, n.ptr}}
		}
	} else if v != nil {
		if err := malformed("format", "a string", v); err != nil {
			return nil, err
		}
	}

	// Numbers.
	num := func(kw string) (*big.Rat, error) {
		v := n.get(kw)
		if v == nil {
			return nil, nil
		}
		if v.kind != kindNumber {
			return nil, bad(kw, "a number")
		}
		return v.num(), nil
	}
	if s.lo, err = num("minimum"); err != nil {
		return nil, err
	}
	if s.hi, err = num("maximum"); err != nil {
		return nil, err
	}
	for _, kw := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
		v := n.get(kw)
		if v == nil {
			continue
		}
		lo := kw == "exclusiveMinimum"
		switch v.kind {
		case kindBool: // draft 4 (and a common mistake in later drafts)
			if lo {
				s.loEx = v.b && s.lo != nil
			} else {
				s.hiEx = v.b && s.hi != nil
			}
		case kindNumber:
			r := v.num()
			if lo && (s.lo == nil || r.Cmp(s.lo) >= 0) {
				s.lo, s.loEx = r, true
			}
			if !lo && (s.hi == nil || r.Cmp(s.hi) <= 0) {
				s.hi, s.hiEx = r, true
			}
		default:
			return nil, bad(kw, "a number")
		}
	}
	if v := n.get("multipleOf"); v != nil {
		if v.kind != kindNumber || v.num().Sign() <= 0 {
			return nil, bad("multipleOf", "a positive number")
		}
		s.mults, s.multPtr = []*big.Rat{v.num()}, n.ptr
	}

	// Objects.
	if v := n.get("properties"); v != nil {
		if v.kind != kindObject {
			return nil, bad("properties", "an object of schemas")
		}
		for i, k := range v.keys { // each once (node.dedupe)
			s.props = append(s.props, prop{name: k, conj: conj{}.and(v.vals[i])})
		}
	}
	if v := n.get("required"); v != nil && v.kind == kindArray {
		for _, e := range v.elems {
			if e.kind != kindString {
				return nil, bad("required", "an array of strings")
			}
			if !s.isRequired(e.str) {
				s.required = append(s.required, e.str)
			}
		}
	} else if v != nil {
		if err := malformed("required", "an array of strings", v); err != nil {
			return nil, err
		}
	}
	pp, ap := n.get("patternProperties"), n.get("additionalProperties")
	if pp != nil || ap != nil {
		var g group
		if pp != nil {
			if pp.kind != kindObject {
				return nil, bad("patternProperties", "an object of schemas")
			}
			for i, k := range pp.keys {
				g.pats = append(g.pats, patProp{loc{k, pp.ptr}, conj{}.and(pp.vals[i])})
			}
		}
		if ap != nil {
			g.addl = conj{}.and(ap)
			s.evalKeys = true
		}
		if len(g.pats) > 0 || !g.addl.isTrue() {
			s.groups = []group{g}
		}
		// patternProperties also apply to the declared properties they match.
		for i, p := range s.props {
			for _, pp := range g.pats {
				ok, err := c.patternMatch(pp.pat, p.name)
				if err != nil {
					return nil, err
				}
				if ok {
					s.props[i].conj = s.props[i].conj.and(pp.conj...)
				}
			}
		}
	}
	if v := n.get("propertyNames"); v != nil {
		s.propNames = conj{}.and(v)
	}
	if m, ok, err := count("minProperties"); err != nil {
		return nil, err
	} else if ok {
		s.minProps = m
	}
	if m, ok, err := count("maxProperties"); err != nil {
		return nil, err
	} else if ok {
		s.maxProps = m
	}

	// Arrays.
	items, prefixItems := n.get("items"), n.get("prefixItems")
	if prefixItems != nil {
		if prefixItems.kind != kindArray {
			return nil, bad("prefixItems", "an array of schemas")
		}
		for _, e := range prefixItems.elems {
			s.prefix = append(s.prefix, conj{}.and(e))
		}
	}
	if items != nil {
		if items.kind == kindArray {
			if prefixItems == nil {
				for _, e := range items.elems {
					s.prefix = append(s.prefix, conj{}.and(e))
				}
				if ai := n.get("additionalItems"); ai != nil {
					s.items = conj{}.and(ai)
				}
			}
		} else {
			s.items = conj{}.and(items)
		}
	}
	if m, ok, err := count("minItems"); err != nil {
		return nil, err
	} else if ok {
		s.minItems = m
	}
	if m, ok, err := count("maxItems"); err != nil {
		return nil, err
	} else if ok {
		s.maxItems = m
	}
	if v := n.get("contains"); v != nil {
		ct := contains{conj: conj{}.and(v), min: 1, max: -1, ptr: n.ptr}
		if m, ok, err := count("minContains"); err != nil {
			return nil, err
		} else if ok {
			ct.min = m
		}
		if m, ok, err := count("maxContains"); err != nil {
			return nil, err
		} else if ok {
			ct.max = m
		}
		s.contains = []contains{ct}
	}
	if v := n.get("uniqueItems"); v != nil && v.kind == kindBool && v.b {
		s.unique = []issue{{n.ptr, "uniqueItems", "distinct items cannot be enforced here"}}
	} else if v != nil && v.kind != kindBool {
		if err := malformed("uniqueItems", "a boolean", v); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// keywordShapes are the JSON kinds the metaschema gives the keywords that
// nothing else reads the value of when it is the wrong kind: a schema
// container no $ref reaches, a lone "if", annotations.
var keywordShapes = map[string]struct {
	kinds []kind
	what  string
}{
	"$defs":       {[]kind{kindObject}, "an object of schemas"},
	"definitions": {[]kind{kindObject}, "an object of schemas"},
	"if":          {[]kind{kindObject, kindBool}, "a schema"},
	"title":       {[]kind{kindString}, "a string"},
	"description": {[]kind{kindString}, "a string"},
	"$comment":    {[]kind{kindString}, "a string"},
	"readOnly":    {[]kind{kindBool}, "a boolean"},
	"writeOnly":   {[]kind{kindBool}, "a boolean"},
	"deprecated":  {[]kind{kindBool}, "a boolean"},
	"examples":    {[]kind{kindArray}, "an array"},
}

// checkShapes reports, through malformed, the keywords of n whose value is
// not of the kind keywordShapes gives them, in a fixed order.
func (c *compiler) checkShapes(n *node, malformed func(kw, what string, v *node) error) error {
	for _, kw := range []string{"$defs", "definitions", "if", "title", "description", "$comment", "readOnly", "writeOnly", "deprecated", "examples"} {
		v := n.get(kw)
		if v == nil {
			continue
		}
		shape := keywordShapes[kw]
		if !slices.Contains(shape.kinds, v.kind) {
			if err := malformed(kw, shape.what, v); err != nil {
				return err
			}
		}
	}
	return nil
}
