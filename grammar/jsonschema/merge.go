package jsonschema

// This file intersects normalized schemas (allOf, and every place where the
// constraints of several schemas meet).

// merge returns the intersection of a and b, or nil when it is obviously empty.
func (c *compiler) merge(a, b *schema) (*schema, error) {
	s := a.clone()
	if s.ptr == "" {
		s.ptr = b.ptr
	}
	s.types &= b.types
	if s.types == 0 {
		return nil, nil
	}
	if b.hasEnum {
		if !s.hasEnum {
			s.hasEnum, s.enum, s.enumPtr = true, append([]*node(nil), b.enum...), b.enumPtr
		} else {
			var keep []*node
			for _, v := range s.enum {
				for _, w := range b.enum {
					if equal(v, w) {
						keep = append(keep, v)
						break
					}
				}
			}
			s.enum = keep
		}
		if len(s.enum) == 0 {
			return nil, nil
		}
	}
	s.notVals = append(s.notVals, b.notVals...)
	s.minLen = max(s.minLen, b.minLen)
	s.maxLen = minBound(s.maxLen, b.maxLen)
	s.patterns = appendLocs(s.patterns, b.patterns)
	s.notPatterns = appendLocs(s.notPatterns, b.notPatterns)
	s.formats = appendLocs(s.formats, b.formats)
	s.notFormats = appendLocs(s.notFormats, b.notFormats)
	if b.lo != nil && (s.lo == nil || b.lo.Cmp(s.lo) > 0 || b.lo.Cmp(s.lo) == 0 && b.loEx) {
		s.lo, s.loEx = b.lo, b.loEx
	}
	if b.hi != nil && (s.hi == nil || b.hi.Cmp(s.hi) < 0 || b.hi.Cmp(s.hi) == 0 && b.hiEx) {
		s.hi, s.hiEx = b.hi, b.hiEx
	}
	s.notMults = append(s.notMults, b.notMults...)
	for _, m := range b.mults {
		dup := false
		for _, n := range s.mults {
			dup = dup || n.Cmp(m) == 0
		}
		if !dup {
			s.mults = append(s.mults, m)
			s.multPtr = b.multPtr
		}
	}

	// Objects: a property declared on one side only gets what the other
	// side's patternProperties/additionalProperties impose on it.
	for i, p := range s.props {
		if b.prop(p.name) < 0 {
			extra, err := c.groupConj(b, p.name)
			if err != nil {
				return nil, err
			}
			s.props[i].conj = p.conj.and(extra...)
		}
	}
	for _, p := range b.props {
		if i := s.prop(p.name); i >= 0 {
			s.props[i].conj = s.props[i].conj.and(p.conj...)
			s.props[i].shadow = s.props[i].shadow && p.shadow
			continue
		}
		extra, err := c.groupConj(a, p.name)
		if err != nil {
			return nil, err
		}
		s.props = append(s.props, prop{name: p.name, conj: p.conj.and(extra...), shadow: p.shadow})
	}
	for _, r := range b.required {
		if !s.isRequired(r) {
			s.required = append(s.required, r)
		}
	}
	for _, r := range s.required {
		// A required property whose value can be nothing.
		if i := s.prop(r); i >= 0 && s.props[i].conj.isFalse() {
			return nil, nil
		}
	}
	s.groups = append(s.groups, b.groups...)
	s.keyOutside = append(s.keyOutside, b.keyOutside...)
	s.witnesses = append(s.witnesses, b.witnesses...)
	s.evalKeys = s.evalKeys || b.evalKeys
	s.propNames = s.propNames.and(b.propNames...)
	s.minProps = max(s.minProps, b.minProps)
	s.maxProps = minBound(s.maxProps, b.maxProps)

	// Arrays, position by position.
	n := max(len(s.prefix), len(b.prefix))
	if n > 0 {
		pre := make([]conj, n)
		var shadow []bool
		if len(s.shadowPrefix) > 0 || len(b.shadowPrefix) > 0 {
			shadow = make([]bool, n)
			for i := range shadow {
				shadow[i] = s.itemShadow(i) && b.itemShadow(i)
			}
		}
		s.shadowPrefix = shadow
		for i := range pre {
			x, y := s.items, b.items
			if i < len(s.prefix) {
				x = s.prefix[i]
			}
			if i < len(b.prefix) {
				y = b.prefix[i]
			}
			pre[i] = x.and(y...)
		}
		s.prefix = pre
	}
	if s.items != nil || b.items != nil {
		// nil means no items keyword: applyUnevaluated must still see that.
		s.shadowItems = (s.items == nil || s.shadowItems) && (b.items == nil || b.shadowItems)
		s.items = s.items.and(b.items...)
	}
	s.contains = append(s.contains, b.contains...)
	s.minItems = max(s.minItems, b.minItems)
	s.maxItems = minBound(s.maxItems, b.maxItems)
	s.unique = append(s.unique, b.unique...)

	s.nots = append(s.nots, b.nots...)
	s.issues = append(s.issues, b.issues...)
	return s, nil
}

func minBound(a, b int) int {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	}
	return min(a, b)
}

func appendLocs(a, b []loc) []loc {
	for _, l := range b {
		dup := false
		for _, m := range a {
			dup = dup || m.val == l.val
		}
		if !dup {
			a = append(a, l)
		}
	}
	return a
}
