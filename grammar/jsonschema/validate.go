package jsonschema

import (
	"context"
	"math/big"
	"slices"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/reinlm/rein/grammar"
)

// Validate reports whether the JSON document doc is valid under schema as
// Compile reads it with opts: the front-end's own instance validator, the one
// it filters enum and const values with. A constrained document needs no
// check (the grammar admits only valid ones, outside the classes the README
// lists); Validate is for the rest: documents from elsewhere, and tests that
// check generated documents against the schema. The error is Compile's when
// the schema does not compile, or one saying that doc is not JSON.
func Validate(schema, doc []byte, opts Options) (bool, error) {
	opts.setDefaults()
	c := newCompiler(context.Background(), opts)
	if _, err := c.compile(schema); err != nil {
		return false, err
	}
	if !gjson.ValidBytes(doc) {
		return false, &grammar.Error{Source: "jsonschema", Msg: "instance is not valid JSON"}
	}
	v, err := c.ix.build(gjson.ParseBytes(doc), "", 0, false)
	if err != nil {
		return false, err
	}
	return c.validateConj(conj{c.ix.resources[defaultBase]}, v)
}

// The validator below evaluates schemas on constant values: it filters enum
// and const values by the rest of their schema, matches declared property
// names against propertyNames, and backs Validate.

// validate reports whether the branch s accepts the value v.
func (c *compiler) validate(s *schema, v *node) (bool, error) {
	if err := c.tick(1); err != nil {
		return false, err
	}
	if s.types&typeOf(v) == 0 {
		return false, nil
	}
	if s.hasEnum {
		found := false
		for _, e := range s.enum {
			found = found || equal(e, v)
		}
		if !found {
			return false, nil
		}
	}
	for _, e := range s.notVals {
		if equal(e, v) {
			return false, nil
		}
	}
	for _, n := range s.nots {
		ok, err := c.validateConj(n, v)
		if err != nil || ok {
			return false, err
		}
	}
	switch v.kind {
	case kindString:
		if v.lone && (s.minLen > 0 || s.maxLen >= 0 || !s.textFree()) {
			// Lengths, patterns and formats judge text, which a lone
			// surrogate is not.
			return true, c.unsupported(v.ptr, "", "a string with a lone surrogate under length, pattern or format constraints cannot be judged")
		}
		n := utf8.RuneCountInString(v.str)
		if n < s.minLen || s.maxLen >= 0 && n > s.maxLen {
			return false, nil
		}
		for _, p := range s.patterns {
			jp, err := c.pattern(p, "pattern")
			if err != nil {
				return false, err
			}
			if !jp.match.MatchString(v.str) {
				return false, nil
			}
		}
		for _, p := range s.notPatterns {
			jp, err := c.pattern(p, "not")
			if err != nil {
				return false, err
			}
			if jp.match.MatchString(v.str) {
				return false, nil
			}
		}
		for _, f := range s.formats {
			if re, ok := formatRegexps()[f.val]; ok && !re.MatchString(v.str) {
				return false, nil
			}
		}
		for _, f := range s.notFormats {
			if re, ok := formatRegexps()[f.val]; ok && re.MatchString(v.str) {
				return false, nil
			}
		}
	case kindNumber:
		x := v.num()
		if s.lo != nil && (x.Cmp(s.lo) < 0 || s.loEx && x.Cmp(s.lo) == 0) {
			return false, nil
		}
		if s.hi != nil && (x.Cmp(s.hi) > 0 || s.hiEx && x.Cmp(s.hi) == 0) {
			return false, nil
		}
		for _, m := range s.mults {
			if !new(big.Rat).Quo(x, m).IsInt() {
				return false, nil
			}
		}
		for _, m := range s.notMults {
			if new(big.Rat).Quo(x, m).IsInt() {
				return false, nil
			}
		}
	case kindObject:
		if len(v.keys) < s.minProps || s.maxProps >= 0 && len(v.keys) > s.maxProps {
			return false, nil
		}
		for _, r := range s.required {
			if v.get(r) == nil {
				return false, nil
			}
		}
		for _, ko := range s.keyOutside {
			if !slices.ContainsFunc(v.keys, func(k string) bool { _, in := slices.BinarySearch(ko.names, k); return !in }) {
				return false, nil
			}
		}
		for _, w := range s.witnesses {
			found := false
			for i, k := range v.keys {
				ok, err := c.witnessKey(w, k)
				if err == nil && ok {
					ok, err = c.validateConj(w.value, v.vals[i])
				}
				if err != nil {
					return false, err
				}
				if ok {
					found = true
					break
				}
			}
			if !found {
				return false, nil
			}
		}
		for i, k := range v.keys {
			var cj conj
			if j := s.prop(k); j >= 0 {
				cj = s.props[j].conj
			} else {
				var err error
				if cj, err = c.groupConj(s, k); err != nil {
					return false, err
				}
			}
			if ok, err := c.validateConj(cj, v.vals[i]); err != nil || !ok {
				return false, err
			}
			if !s.propNames.isTrue() {
				if ok, err := c.validateConj(s.propNames, &node{kind: kindString, str: k}); err != nil || !ok {
					return false, err
				}
			}
		}
	case kindArray:
		if len(v.elems) < s.minItems || s.maxItems >= 0 && len(v.elems) > s.maxItems {
			return false, nil
		}
		for i, e := range v.elems {
			cj := s.items
			if i < len(s.prefix) {
				cj = s.prefix[i]
			}
			if ok, err := c.validateConj(cj, e); err != nil || !ok {
				return false, err
			}
		}
		for _, ct := range s.contains {
			n := 0
			for _, e := range v.elems {
				ok, err := c.validateConj(ct.conj, e)
				if err != nil {
					return false, err
				}
				if ok {
					n++
				}
			}
			if n < ct.min || ct.max >= 0 && n > ct.max {
				return false, nil
			}
		}
		if len(s.unique) > 0 {
			for i := range v.elems {
				for j := i + 1; j < len(v.elems); j++ {
					if equal(v.elems[i], v.elems[j]) {
						return false, nil
					}
				}
			}
		}
	}
	return true, nil
}

func typeOf(v *node) types {
	switch v.kind {
	case kindNull:
		return jtNull
	case kindBool:
		return jtBool
	case kindNumber:
		if v.isInt() {
			return jtInt
		}
		return jtFrac
	case kindString:
		return jtString
	case kindArray:
		return jtArray
	}
	return jtObject
}

// validateConj reports whether every schema of cj accepts v.
func (c *compiler) validateConj(cj conj, v *node) (bool, error) {
	if cj.isTrue() {
		return true, nil
	}
	bs, err := c.conjDNF(cj, "")
	if err != nil {
		return false, err
	}
	for _, b := range bs {
		ok, err := c.validate(b, v)
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}
