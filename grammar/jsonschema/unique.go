package jsonschema

import (
	"github.com/reinlm/rein/grammar"
)

// uniqueItems describes the items of array schema s (with uniqueItems) for
// the matcher's check that items are distinct (grammar.Rule.Unique): items
// that may be any JSON value (no item schema, or true), or that are
// strings (any, or under a pattern, format or lengths), any number, any
// integer, or listed values (enum, const, true, false, null), and unions
// of these. Constrained objects and arrays, and numbers with bounds or
// multipleOf (whose unfinished items may have only values already used, in
// ways the check does not search) are refused (strict) or warned about (lenient, which
// returns nil: uniqueness goes unchecked). distinct is the number of
// distinct values an item may take, -1 for unbounded.
func (c *compiler) uniqueItems(s *schema) (u *grammar.UniqueItems, distinct int, err error) {
	is := s.unique[0]
	refuse := func(why string) (*grammar.UniqueItems, int, error) {
		return nil, -1, c.unsupported(is.ptr, is.kw, "distinct items cannot be enforced: %s (they can for items that may be any value, or are strings, any number or integer, or listed scalars)", why)
	}
	if len(s.contains) > 0 {
		return refuse("the array has contains")
	}
	u, distinct, why, err := c.itemSpec(s.items, is.ptr)
	if err != nil || why != "" {
		if err == nil {
			return refuse(why)
		}
		return nil, 0, err
	}
	if len(s.prefix) == 0 {
		return u, distinct, nil
	}
	// Items given position by position: a spec for each. Only the next
	// item's values are checked as items come, so a position that must be
	// written (below minItems) after the first may not be one of listed
	// values only: earlier items could take all of them.
	u.Prefix = make([]grammar.UniqueItems, len(s.prefix))
	for i, p := range s.prefix {
		pu, _, why, err := c.itemSpec(p, is.ptr)
		switch {
		case err != nil:
			return nil, 0, err
		case why != "":
			return refuse(why)
		case i > 0 && i < s.minItems && !endless(pu):
			return refuse("an item that must be written after the first may take finitely many values (prefixItems with minItems)")
		}
		u.Prefix[i] = *pu
	}
	if s.minItems > len(s.prefix) && !endless(u) {
		return refuse("items that must be written after prefixItems may take finitely many values")
	}
	return u, -1, nil
}

// endless reports whether items under u surely take infinitely many
// values (a constrained string may not).
func endless(u *grammar.UniqueItems) bool {
	return u.AnyValue || u.Strings == grammar.StringsAny || u.Numbers != grammar.NumbersNone
}

// itemSpec describes the values an item under items may take (nil or true:
// any value), or says why the check cannot be enforced for them (why).
// distinct is the number of values, -1 for unbounded.
func (c *compiler) itemSpec(items conj, ptr string) (u *grammar.UniqueItems, distinct int, why string, err error) {
	if items == nil || items.isTrue() {
		// Any value: an unfinished item can always become a new one.
		return &grammar.UniqueItems{AnyValue: true, Strings: grammar.StringsAny, Numbers: grammar.NumbersAny, Values: []string{"true", "false", "null"}}, -1, "", nil
	}
	branches, err := c.conjDNF(items, ptr)
	if err != nil {
		return nil, 0, "", err
	}
	u = &grammar.UniqueItems{}
	spelled := map[string]bool{}
	values := map[string]bool{} // canonical forms of the listed values
	add := func(v *node) {
		for _, form := range literalForms(v) {
			if !spelled[form] {
				spelled[form] = true
				u.Values = append(u.Values, form)
			}
		}
		values[canonical(v)] = true
	}
	for _, b := range branches {
		if b.hasEnum {
			for _, v := range b.enum {
				ok, err := c.validate(b, v)
				if err != nil {
					return nil, 0, "", err
				}
				if !ok {
					continue
				}
				if v.kind == kindObject || v.kind == kindArray {
					return nil, 0, "an enum or const value is an object or an array", nil
				}
				add(v)
			}
			continue
		}
		if b.types&(jtObject|jtArray) != 0 {
			return nil, 0, "an item may be a constrained object or array", nil
		}
		switch {
		case b.types&jtString == 0:
		case b.textFree() && b.maxLen < 0:
			u.Strings = grammar.StringsAny
		case u.Strings == grammar.StringsNone:
			u.Strings = grammar.StringsSome
		}
		if b.types&jtNumber != 0 {
			if b.lo != nil || b.hi != nil || len(b.mults)+len(b.notMults) > 0 || b.types&jtInt == 0 || excludesKind(b, kindNumber) {
				return nil, 0, "item numbers have bounds, a multipleOf or excluded values", nil
			}
			if b.types&jtFrac != 0 {
				u.Numbers = grammar.NumbersAny
			} else if u.Numbers == grammar.NumbersNone {
				u.Numbers = grammar.NumbersInteger
			}
		}
		if b.types&jtBool != 0 {
			for _, t := range []bool{true, false} {
				if !excludes(b, &node{kind: kindBool, b: t}) {
					add(&node{kind: kindBool, b: t})
				}
			}
		}
		if b.types&jtNull != 0 && !excludes(b, &node{kind: kindNull}) {
			add(&node{kind: kindNull})
		}
	}
	if u.Strings != grammar.StringsNone || u.Numbers != grammar.NumbersNone {
		return u, -1, "", nil
	}
	return u, len(values), "", nil
}

// literalForms returns the spellings of scalar v that literal writes.
func literalForms(v *node) []string {
	switch v.kind {
	case kindNull:
		return []string{"null"}
	case kindBool:
		if v.b {
			return []string{"true"}
		}
		return []string{"false"}
	case kindNumber:
		forms := []string{v.str}
		if r := v.num(); r.IsInt() && r.Num().String() != v.str {
			forms = append(forms, r.Num().String())
		}
		return forms
	}
	return []string{quote(v.str)}
}

// canonical returns a form of scalar v equal for equal JSON values.
func canonical(v *node) string {
	switch v.kind {
	case kindNumber:
		return "n" + v.num().RatString()
	case kindString:
		return "s" + v.str
	}
	return literalForms(v)[0]
}

// excludes reports whether not excludes the value v from s.
func excludes(s *schema, v *node) bool {
	for _, x := range s.notVals {
		if equal(x, v) {
			return true
		}
	}
	return false
}

// excludesKind reports whether not excludes some value of kind k from s.
func excludesKind(s *schema, k kind) bool {
	for _, x := range s.notVals {
		if x.kind == k {
			return true
		}
	}
	return false
}
