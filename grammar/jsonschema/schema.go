package jsonschema

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// This file holds the normalized form of a subschema: conjunctions of schema
// nodes (conj) and the plain records of constraints (schema) that dnf.go
// normalizes them into, with the keys that identify them for sharing rules.

// types is a set of JSON types. Numbers are split into integers and
// non-integers so that "integer" and "number" intersect as sets.
type types uint8

const (
	jtNull types = 1 << iota
	jtBool
	jtInt
	jtFrac
	jtString
	jtArray
	jtObject

	jtNumber = jtInt | jtFrac
	jtAll    = jtNull | jtBool | jtNumber | jtString | jtArray | jtObject
)

var typeNames = map[string]types{
	"null": jtNull, "boolean": jtBool, "integer": jtInt, "number": jtNumber,
	"string": jtString, "array": jtArray, "object": jtObject,
}

// conj is a conjunction of schema nodes; empty means true.
type conj []*node

func (cj conj) key() string {
	switch len(cj) {
	case 0:
		return "true"
	case 1:
		return cj[0].key
	}
	var b strings.Builder
	for _, n := range cj {
		b.WriteString(n.key)
		b.WriteByte(0)
	}
	return b.String()
}

// isTrue reports whether every node of the conjunction accepts everything.
func (cj conj) isTrue() bool {
	for _, n := range cj {
		if !trivial(n) {
			return false
		}
	}
	return true
}

// isFalse reports whether the conjunction obviously accepts nothing: it
// holds false, or a negation together with everything it negates.
func (cj conj) isFalse() bool {
	for _, n := range cj {
		if n.kind == kindBool && !n.b {
			return true
		}
		if len(n.neg) > 0 && cj.holds(n.neg) {
			return true
		}
	}
	return false
}

// holds reports whether every node of sub is in cj.
func (cj conj) holds(sub conj) bool {
	for _, m := range sub {
		in := false
		for _, n := range cj {
			in = in || n.key == m.key
		}
		if !in {
			return false
		}
	}
	return true
}

// trivial reports whether a schema node constrains nothing.
func trivial(n *node) bool {
	if n.neg != nil {
		return false
	}
	switch n.kind {
	case kindBool:
		return n.b
	case kindObject:
		for _, k := range n.keys {
			if known[k] {
				return false
			}
		}
		return true
	}
	return false
}

// and returns the conjunction of cj and more, without duplicates.
func (cj conj) and(more ...*node) conj {
	out := make(conj, 0, len(cj)+len(more))
	seen := map[string]bool{}
	for _, n := range append(append(conj{}, cj...), more...) {
		if trivial(n) || seen[n.key] {
			continue
		}
		seen[n.key] = true
		out = append(out, n)
	}
	return out
}

// loc is a keyword value with the pointer of its schema node.
type loc struct{ val, ptr string }

type prop struct {
	name string
	conj conj
	// shadow: the constraint comes only from a negation (not, the other
	// alternatives of oneOf, a failed if), whose annotations are dropped,
	// so it does not make the key evaluated for unevaluatedProperties.
	shadow bool
}

type patProp struct {
	pat  loc
	conj conj
}

// group is the patternProperties and additionalProperties of one object
// schema: a key not declared in properties must satisfy every pattern
// schema whose pattern matches it, or addl when none does. Merged schemas
// have several groups, all of which apply.
type group struct {
	pats []patProp
	addl conj
	// shadow: the group comes only from a negation (as prop.shadow says),
	// so it evaluates no key for unevaluatedProperties.
	shadow bool
}

type contains struct {
	conj     conj
	min, max int // max < 0: none
	ptr      string
}

// keySet is a set of keys an object must have a key outside of: sorted
// names, and the pointer of the schema whose negation asks it.
type keySet struct {
	names []string
	ptr   string
}

// keyWitness asks an object for a key, outside names, that matches pat
// (when set), none of notPats, and the schemas of keys (as propertyNames
// reads them), with a value that satisfies value: the negation of
// patternProperties, additionalProperties and propertyNames.
type keyWitness struct {
	names   []string // sorted
	pat     *loc
	notPats []loc
	keys    conj
	value   conj
	// ptr and kw: the keyword whose negation asks for the key.
	ptr, kw string
}

// issue is a keyword that cannot be enforced, kept until its branch is compiled.
type issue struct{ ptr, kw, msg string }

// schema is one conjunctive branch of a normalized schema.
type schema struct {
	ptr     string
	types   types
	hasEnum bool
	enum    []*node
	enumPtr string
	notVals []*node // values excluded by not

	minLen, maxLen int // maxLen < 0: none
	patterns       []loc
	notPatterns    []loc
	formats        []loc
	notFormats     []loc // known formats excluded by not

	lo, hi     *big.Rat
	loEx, hiEx bool
	mults      []*big.Rat
	notMults   []*big.Rat // values that must not be multiples of these
	multPtr    string

	props              []prop
	required           []string
	groups             []group
	propNames          conj
	minProps, maxProps int
	// keyOutside: for each set, the object has a key outside it (the
	// negation of additionalProperties: false). It is resolved into
	// required keys where the branch's own keys are closed (closeKeys),
	// and refused where they are not.
	keyOutside []keySet
	// witnesses: the object has a key as each one asks (see keyWitness).
	witnesses []keyWitness
	// evalKeys: additionalProperties is present, so every key is evaluated
	// for unevaluatedProperties, even where it constrains nothing (true,
	// {}) and left no group. It is an annotation, not part of key(): where
	// branches alike but for it are deduplicated (branchSet), the one kept
	// takes it.
	evalKeys bool

	prefix             []conj
	items              conj
	contains           []contains
	minItems, maxItems int
	unique             []issue

	nots   []conj
	issues []issue

	// shadowPrefix[i] (nil: all false) and shadowItems: prefix[i] and
	// items hold constraints that come only from a negation, which evaluate
	// no item for unevaluatedItems.
	shadowPrefix []bool
	shadowItems  bool
}

// itemShadow reports whether s leaves item i unevaluated, either because
// nothing constrains it or because only a negation does.
func (s *schema) itemShadow(i int) bool {
	if i < len(s.prefix) {
		return i < len(s.shadowPrefix) && s.shadowPrefix[i]
	}
	return s.items == nil || s.shadowItems
}

func universal() *schema {
	return &schema{types: jtAll, maxLen: -1, maxProps: -1, maxItems: -1}
}

func (s *schema) isUniversal() bool {
	return universal().key() == s.key()
}

// textFree reports whether s puts no pattern or format on a string's text,
// either way.
func (s *schema) textFree() bool {
	return len(s.patterns)+len(s.notPatterns)+len(s.formats)+len(s.notFormats) == 0
}

func (s *schema) clone() *schema {
	t := *s
	t.enum = append([]*node(nil), s.enum...)
	t.notVals = append([]*node(nil), s.notVals...)
	t.patterns = append([]loc(nil), s.patterns...)
	t.notPatterns = append([]loc(nil), s.notPatterns...)
	t.formats = append([]loc(nil), s.formats...)
	t.notFormats = append([]loc(nil), s.notFormats...)
	t.mults = append([]*big.Rat(nil), s.mults...)
	t.notMults = append([]*big.Rat(nil), s.notMults...)
	t.props = append([]prop(nil), s.props...)
	t.required = append([]string(nil), s.required...)
	t.groups = append([]group(nil), s.groups...)
	t.keyOutside = append([]keySet(nil), s.keyOutside...)
	t.witnesses = append([]keyWitness(nil), s.witnesses...)
	t.prefix = append([]conj(nil), s.prefix...)
	t.shadowPrefix = append([]bool(nil), s.shadowPrefix...)
	t.contains = append([]contains(nil), s.contains...)
	t.unique = append([]issue(nil), s.unique...)
	t.nots = append([]conj(nil), s.nots...)
	t.issues = append([]issue(nil), s.issues...)
	return &t
}

func (s *schema) prop(name string) int {
	for i, p := range s.props {
		if p.name == name {
			return i
		}
	}
	return -1
}

func (s *schema) isRequired(name string) bool {
	for _, r := range s.required {
		if r == name {
			return true
		}
	}
	return false
}

// key is a canonical rendering of the branch, used to share rules.
func (s *schema) key() string {
	var b strings.Builder
	w := func(tag string, v string) {
		b.WriteString(tag)
		b.WriteByte('=')
		b.WriteString(v)
		b.WriteByte(1)
	}
	rat := func(r *big.Rat) string {
		if r == nil {
			return "-"
		}
		return r.RatString()
	}
	w("t", strconv.Itoa(int(s.types)))
	if s.hasEnum {
		var e strings.Builder
		for _, v := range s.enum {
			compact(&e, v)
			e.WriteByte(0)
		}
		w("enum", e.String())
	}
	for _, v := range s.notVals {
		var e strings.Builder
		compact(&e, v)
		w("nv", e.String())
	}
	if s.types&jtString != 0 {
		w("len", strconv.Itoa(s.minLen)+","+strconv.Itoa(s.maxLen))
		for _, p := range s.patterns {
			w("pat", p.val)
		}
		for _, p := range s.notPatterns {
			w("npat", p.val)
		}
		for _, p := range s.formats {
			w("fmt", p.val)
		}
		for _, p := range s.notFormats {
			w("nfmt", p.val)
		}
	}
	if s.types&jtNumber != 0 {
		w("num", rat(s.lo)+strconv.FormatBool(s.loEx)+rat(s.hi)+strconv.FormatBool(s.hiEx))
		for _, m := range s.mults {
			w("mul", m.RatString())
		}
		for _, m := range s.notMults {
			w("nmul", m.RatString())
		}
	}
	if s.types&jtObject != 0 {
		for _, p := range s.props {
			w("p", p.name+"\x00"+p.conj.key()+"\x00"+strconv.FormatBool(p.shadow))
		}
		for _, r := range s.required {
			w("req", r)
		}
		for _, ko := range s.keyOutside {
			w("kout", strings.Join(ko.names, "\x00"))
		}
		for _, kw := range s.witnesses {
			pat := ""
			if kw.pat != nil {
				pat = kw.pat.val
			}
			var np strings.Builder
			for _, l := range kw.notPats {
				np.WriteString(l.val)
				np.WriteByte(0)
			}
			w("wit", strings.Join(kw.names, "\x00")+"\x01"+pat+"\x01"+np.String()+"\x01"+kw.keys.key()+"\x01"+kw.value.key())
		}
		for _, g := range s.groups {
			for _, pp := range g.pats {
				w("pp", pp.pat.val+"\x00"+pp.conj.key())
			}
			w("ap", g.addl.key()+"\x00"+strconv.FormatBool(g.shadow))
		}
		w("pn", s.propNames.key())
		w("np", strconv.Itoa(s.minProps)+","+strconv.Itoa(s.maxProps))
	}
	if s.types&jtArray != 0 {
		for _, p := range s.prefix {
			w("pi", p.key())
		}
		w("it", s.items.key())
		for _, ct := range s.contains {
			w("ct", ct.conj.key()+"\x00"+strconv.Itoa(ct.min)+","+strconv.Itoa(ct.max))
		}
		w("ni", strconv.Itoa(s.minItems)+","+strconv.Itoa(s.maxItems)+","+strconv.FormatBool(s.shadowItems)+fmt.Sprint(s.shadowPrefix))
		if len(s.unique) > 0 {
			w("uniq", "1")
		}
	}
	for _, n := range s.nots {
		w("not", n.key())
	}
	for _, is := range s.issues {
		w("issue", is.ptr+"/"+is.kw)
	}
	return b.String()
}

func branchesKey(bs []*schema) string {
	var b strings.Builder
	for _, s := range bs {
		b.WriteString(s.key())
		b.WriteByte(2)
	}
	return b.String()
}

func isAny(bs []*schema) bool {
	return len(bs) == 1 && bs[0].isUniversal()
}

// groupConj returns the schemas that s's groups impose on an undeclared key.
func (c *compiler) groupConj(s *schema, name string) (conj, error) {
	var out conj
	for _, g := range s.groups {
		matched := false
		for _, pp := range g.pats {
			ok, err := c.patternMatch(pp.pat, name)
			if err != nil {
				return nil, err
			}
			if ok {
				matched = true
				out = out.and(pp.conj...)
			}
		}
		if !matched {
			out = out.and(g.addl...)
		}
	}
	return out, nil
}
