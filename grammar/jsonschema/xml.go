package jsonschema

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/reinlm/rein/fsm"
	"github.com/reinlm/rein/grammar"
)

// XML argument styles (what each accepts is documented on Style). The
// top-level object's elements are assembled here, with the declared and
// required properties worked out as compileObject does; every value goes
// through one rule per (group of types, branches), where a group is the
// set of JSON types a style writes alike (one attribute text): raw strings
// are built here, nested Cohere dicts and lists recursively through the
// same rules (so recursive schemas terminate), and every other value by
// the JSON compiler (compileBranch). The raw text is one shared rule of
// grammar.Text, excluding the closing tag and the element opener.

// xmlStyle spells the elements of one style. An element with key K and a
// value of group g is
//
//	start namePre K' nameEnd g.attr [ws] valueOpen VALUE close
//
// where K' is K escaped for an attribute where the key is one, and the
// whitespace is there in styles with wsBeforeValue.
type xmlStyle struct {
	start         string
	namePre       string // "" for a style whose elements are unnamed only in lists
	nameEnd       string
	valueOpen     string
	wsBeforeValue bool
	close         string
	opener        string // what every element starts with, excluded from raw strings
	special       bool   // the texts hold special-token texts: literals are LitTokens
	attr          bool   // the key is an attribute value: & and " (and <, > with escapeTags) escaped
	escapeTags    bool
	keyForbid     string // a key holding this cannot be written
	groups        []valueGroup
	nested        bool // objects and arrays nest as elements (Cohere's dict and list)
}

// valueGroup is a set of JSON types whose values an element writes the same
// way, with the attribute text that says so.
type valueGroup struct {
	types types
	attr  string
}

// stringOrJSON is the grouping of styles that do not mark the value's type.
var stringOrJSON = []valueGroup{{jtString, ""}, {jtAll &^ jtString, ""}}

var xmlStyles = map[Style]*xmlStyle{
	StyleQwenXML: {start: "<parameter", namePre: "=", valueOpen: ">", close: "</parameter>",
		opener: "<parameter=", keyForbid: ">", groups: stringOrJSON},
	StyleMiniMaxXML: {start: "<parameter", namePre: ` name="`, nameEnd: `"`, valueOpen: ">", close: "</parameter>",
		opener: `<parameter name="`, attr: true, groups: stringOrJSON},
	StyleDeepSeekXML: {start: "<｜DSML｜parameter", namePre: ` name="`, nameEnd: `"`, valueOpen: ">", close: "</｜DSML｜parameter>",
		opener: "<｜DSML｜parameter", special: true, attr: true,
		groups: []valueGroup{{jtString, ` string="true"`}, {jtAll &^ jtString, ` string="false"`}}},
	StyleGLMXML: {start: "<arg_key>", nameEnd: "</arg_key>", valueOpen: "<arg_value>", wsBeforeValue: true, close: "</arg_value>",
		opener: "<arg_key>", keyForbid: "<", special: true, groups: stringOrJSON},
	StyleCohereXML: {start: "<cofl:value", namePre: ` name="`, nameEnd: `"`, valueOpen: ">", close: "</cofl:value>",
		opener: "<cofl:value", attr: true, escapeTags: true, nested: true,
		groups: []valueGroup{{jtString, ` type="raw"`}, {jtNumber | jtBool | jtNull, ` type="json"`}, {jtObject, ` type="dict"`}, {jtArray, ` type="list"`}}},
	StyleKimiK3XML: {start: "<|open|>argument", namePre: ` key="`, nameEnd: `"`, valueOpen: "<|sep|>", close: "<|close|>argument<|sep|>",
		opener: "<|open|>", special: true, attr: true,
		groups: []valueGroup{{jtString, ` type="string"`}, {jtNumber, ` type="number"`}, {jtBool, ` type="boolean"`},
			{jtNull, ` type="null"`}, {jtObject, ` type="object"`}, {jtArray, ` type="array"`}}},
}

// xmlCompiler holds the state of one XML-style compilation beside the JSON
// compiler, which compiles the JSON values.
type xmlCompiler struct {
	c        *compiler
	st       *xmlStyle
	ws       *grammar.Expr // [ \n\t]*
	raw      *grammar.Expr // any raw string value
	excludes []string      // what a raw string value cannot hold
	noTag    *grammar.Expr // one character that starts no exclude
	tags     *fsm.RuneDFA  // the strings holding an exclude, made when needed
	rules    map[string]int
}

// xmlRoot compiles the document's top level, which must be an object, in
// the style of the options, and returns its rule (-1: no document).
func (c *compiler) xmlRoot(root *node) (int, error) {
	st, ok := xmlStyles[c.opts.Style]
	if !ok {
		return 0, &grammar.Error{Source: "jsonschema", Msg: fmt.Sprintf("unknown style %q", string(c.opts.Style))}
	}
	x := &xmlCompiler{c: c, st: st, excludes: []string{st.close, st.opener}, rules: map[string]int{}}
	wsR, err := c.newRule("xml-ws", grammar.Rep(grammar.Chars(false,
		grammar.RuneRange{Lo: ' ', Hi: ' '}, grammar.RuneRange{Lo: '\n', Hi: '\n'}, grammar.RuneRange{Lo: '\t', Hi: '\t'}), 0, -1))
	if err != nil {
		return 0, err
	}
	x.ws = grammar.Call(wsR)
	rawR, err := c.newRule("xml-string", grammar.Text(x.excludes...))
	if err != nil {
		return 0, err
	}
	x.raw = grammar.Call(rawR)
	var firsts []grammar.RuneRange
	for _, e := range x.excludes {
		r, _ := utf8.DecodeRuneInString(e)
		firsts = append(firsts, grammar.RuneRange{Lo: r, Hi: r})
	}
	x.noTag = grammar.Chars(true, firsts...)

	branches, err := c.conjDNF(conj{root}, "")
	if err != nil {
		return 0, err
	}
	var alts []*grammar.Expr
	objects := false
	for _, s := range branches {
		if s.types&jtObject == 0 {
			continue
		}
		objects = true
		s = s.clone()
		s.types = jtObject
		e, err := x.object(s)
		if err != nil {
			return 0, err
		}
		if e != nil {
			alts = append(alts, e)
		}
	}
	if !objects && len(branches) > 0 {
		return 0, c.errorf(branches[0].ptr, "", nil, "the top level of a %s document must be an object, not %s", c.opts.Style, typesName(branches[0].types))
	}
	if len(alts) == 0 {
		return -1, nil
	}
	return c.newRule("root", grammar.Or(alts...))
}

// typesName names a set of JSON types for a message.
func typesName(t types) string {
	var names []string
	for _, n := range []string{"null", "boolean", "integer", "number", "string", "array", "object"} {
		if tt := typeNames[n]; t&tt == tt && (n != "integer" || t&jtFrac == 0) {
			names = append(names, n)
		}
	}
	return strings.Join(names, " or ")
}

// lit is a literal of the style: LitTokens where its texts name special tokens.
func (x *xmlCompiler) lit(s string) *grammar.Expr {
	if x.st.special {
		return grammar.LitTokens(s)
	}
	return grammar.Lit(s)
}

// key returns the spelling of the name of a property of s in an element
// header.
func (x *xmlCompiler) key(s *schema, name string) (string, error) {
	if x.st.keyForbid != "" && strings.Contains(name, x.st.keyForbid) {
		ptr, kw := s.ptr+"/properties", name
		if s.prop(name) < 0 {
			ptr, kw = s.ptr, "required"
		}
		return "", x.c.unsupportedE(ptr, kw, "the property name %q cannot be written in the %s style", name, x.c.opts.Style)
	}
	if !x.st.attr {
		return name, nil
	}
	r := strings.NewReplacer("&", "&amp;", `"`, "&quot;")
	if x.st.escapeTags {
		r = strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;")
	}
	return r.Replace(name), nil
}

// object returns the elements of an object branch, with the whitespace
// before, between and after them.
func (x *xmlCompiler) object(s *schema) (*grammar.Expr, error) {
	c := x.c
	if err := c.checkNots(s); err != nil {
		return nil, err
	}
	if len(s.keyOutside) > 0 {
		if err := c.unsupported(s.keyOutside[0].ptr, "additionalProperties", "its negation (a key outside the declared properties) cannot be enforced here"); err != nil {
			return nil, err
		}
	}
	if len(s.witnesses) > 0 {
		w := s.witnesses[0]
		if err := c.unsupported(w.ptr, w.kw, "a key asked for by a negation (of patternProperties, additionalProperties or propertyNames) cannot be enforced here"); err != nil {
			return nil, err
		}
	}
	if s.hasEnum {
		if err := c.unsupported(s.enumPtr, "enum", "an object enum or const cannot be written in the %s style", c.opts.Style); err != nil {
			return nil, err
		}
	}
	if s.maxProps >= 0 && s.minProps > s.maxProps {
		return nil, nil
	}
	for _, g := range s.groups {
		kw := "additionalProperties"
		if len(g.pats) > 0 {
			kw = "patternProperties"
		}
		if len(g.pats) > 0 || !g.addl.isTrue() && !g.addl.isFalse() {
			if err := c.unsupported(s.ptr, kw, "undeclared properties cannot be written in the %s style", c.opts.Style); err != nil {
				return nil, err
			}
		}
	}
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
	var req, opt []*grammar.Expr // elements, each followed by whitespace
	var items []*grammar.Expr    // in declared order, optional ones as such
	for _, p := range props {
		ptr := s.ptr + "/properties/" + escapePointer(p.name)
		required := s.isRequired(p.name)
		var el *grammar.Expr
		ok := true
		if !s.propNames.isTrue() {
			var err error
			if ok, err = c.validateConj(s.propNames, &node{kind: kindString, str: p.name}); err != nil {
				return nil, err
			}
		}
		if ok && !p.conj.isFalse() {
			k, err := x.key(s, p.name)
			switch {
			case errors.Is(err, errIgnore):
			case err != nil:
				return nil, err
			default:
				if el, err = x.element(x.st.namePre+k+x.st.nameEnd, p.conj, ptr); err != nil {
					return nil, err
				}
			}
		}
		if el == nil {
			if required {
				return nil, nil
			}
			continue
		}
		el = grammar.Cat(el, x.ws)
		if required {
			req = append(req, el)
			items = append(items, el)
		} else {
			opt = append(opt, el)
			items = append(items, grammar.Rep(el, 0, 1))
		}
		if err := c.count(4); err != nil {
			return nil, err
		}
	}
	if s.maxProps >= 0 && s.maxProps < len(req) || s.minProps > len(req)+len(opt) {
		return nil, nil
	}
	if s.minProps > len(req) || s.maxProps >= 0 && s.maxProps < len(req)+len(opt) {
		kw := "minProperties"
		if s.minProps <= len(req) {
			kw = "maxProperties"
		}
		if err := c.unsupported(s.ptr, kw, "property counts cannot be enforced in the %s style", c.opts.Style); err != nil {
			return nil, err
		}
	}
	if c.opts.Order == OrderAny {
		return x.anyOrder(s, req, opt)
	}
	return grammar.Cat(append([]*grammar.Expr{x.ws}, items...)...), nil
}

// anyOrder returns the elements req (each exactly once) and opt (each any
// number of times) in any order: one rule per subset of req written.
func (x *xmlCompiler) anyOrder(s *schema, req, opt []*grammar.Expr) (*grammar.Expr, error) {
	c := x.c
	if len(req) > c.opts.Limits.AnyOrderRequired {
		return nil, c.limitf(s.ptr, "required", "%d required properties in any order, more than Limits.AnyOrderRequired (%d)", len(req), c.opts.Limits.AnyOrderRequired)
	}
	if len(req) > 20 || 1<<len(req) > c.opts.Limits.Rules {
		return nil, c.limitf(s.ptr, "required", "%d required properties in any order need %d rules, more than Limits.Rules (%d)", len(req), 1<<min(len(req), 62), c.opts.Limits.Rules)
	}
	var free *grammar.Expr
	if len(opt) > 0 {
		free = grammar.Or(opt...)
	}
	full := 1<<len(req) - 1
	rules := make([]int, full+1)
	for m := range rules {
		r, err := c.newRule(fmt.Sprintf("%s-xml-any%d", ruleName(s.ptr), m), grammar.Eps())
		if err != nil {
			return nil, err
		}
		rules[m] = r
	}
	// Rule m: the elements still to come, the required ones in m written.
	for m := 0; m <= full; m++ {
		var alts []*grammar.Expr
		if m == full {
			alts = append(alts, grammar.Eps())
		}
		if free != nil {
			alts = append(alts, grammar.Cat(free, grammar.Call(rules[m])))
		}
		for i, el := range req {
			if m&(1<<i) == 0 {
				alts = append(alts, grammar.Cat(el, grammar.Call(rules[m|1<<i])))
			}
		}
		if err := c.count(2 * len(alts)); err != nil {
			return nil, err
		}
		c.rules[rules[m]].Body = grammar.Or(alts...)
	}
	return grammar.Cat(x.ws, grammar.Call(rules[0])), nil
}

// element returns the elements, with header start+name (name already
// spelled, with the text around it), for the values cj accepts: one
// alternative for each group of the style; nil when there is none.
func (x *xmlCompiler) element(name string, cj conj, ptr string) (*grammar.Expr, error) {
	c := x.c
	var branches []*schema
	if cj.isTrue() {
		branches = []*schema{universal()}
	} else {
		var err error
		if branches, err = c.conjDNF(cj, ptr); err != nil {
			return nil, err
		}
	}
	var alts []*grammar.Expr
	for _, g := range x.st.groups {
		v, err := x.value(g.types, branches, ptr)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		head := x.st.start + name + g.attr
		var open *grammar.Expr
		if x.st.wsBeforeValue {
			open = grammar.Cat(x.lit(head), x.ws, x.lit(x.st.valueOpen))
		} else {
			open = x.lit(head + x.st.valueOpen)
		}
		alts = append(alts, grammar.Cat(open, v, x.lit(x.st.close)))
	}
	if err := c.count(4 * len(alts)); err != nil {
		return nil, err
	}
	if len(alts) == 0 {
		return nil, nil
	}
	return grammar.Or(alts...), nil
}

// value returns a call to the rule of the values of types t that branches
// accept, as the style writes them, or nil when there is none.
func (x *xmlCompiler) value(t types, branches []*schema, ptr string) (*grammar.Expr, error) {
	c := x.c
	var parts []*schema
	for _, s := range branches {
		if s.types&t == 0 {
			continue
		}
		s = s.clone()
		s.types &= t
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	id := fmt.Sprintf("%d\x00%s", t, branchesKey(parts))
	if r, ok := x.rules[id]; ok {
		if r < 0 {
			return nil, nil
		}
		return grammar.Call(r), nil
	}
	r, err := c.newRule(ruleName(ptr)+"-xml", grammar.Eps())
	if err != nil {
		return nil, err
	}
	x.rules[id] = r
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > c.opts.Limits.SchemaDepth {
		return nil, c.limitf(ptr, "", "subschemas nest deeper than Limits.SchemaDepth (%d)", c.opts.Limits.SchemaDepth)
	}
	var alts []*grammar.Expr
	for _, s := range parts {
		var e *grammar.Expr
		var err error
		switch {
		case t == jtString:
			e, err = x.rawString(s)
		case x.st.nested && t == jtObject:
			e, err = x.object(s)
		case x.st.nested && t == jtArray:
			e, err = x.list(s)
		default:
			if e, err = c.compileBranch(s); e != nil {
				e = grammar.Cat(x.ws, e, x.ws)
			}
		}
		if err != nil {
			return nil, err
		}
		if e != nil {
			alts = append(alts, e)
		}
	}
	if len(alts) == 0 {
		x.rules[id] = -1
		c.rules[r].Body = &grammar.Expr{Op: grammar.OpAlt}
		return nil, nil
	}
	c.rules[r].Body = grammar.Or(alts...)
	return grammar.Call(r), nil
}

// rawString returns the raw text of the strings s accepts.
func (x *xmlCompiler) rawString(s *schema) (*grammar.Expr, error) {
	c := x.c
	if s.hasEnum {
		var alts []*grammar.Expr
		seen := map[string]bool{}
		for _, v := range s.enum {
			if v.kind != kindString || seen[v.str] || x.holdsTag(v.str) {
				continue
			}
			ok, err := c.validate(s, v)
			if err != nil {
				return nil, err
			}
			if ok {
				seen[v.str] = true
				alts = append(alts, grammar.Lit(v.str))
			}
		}
		if err := c.count(len(alts)); err != nil {
			return nil, err
		}
		if len(alts) == 0 {
			return nil, nil
		}
		return grammar.Or(alts...), nil
	}
	if err := c.checkNots(s); err != nil {
		return nil, err
	}
	minLen, maxLen := s.minLen, s.maxLen
	if maxLen >= 0 && minLen > maxLen {
		return nil, nil
	}
	parts, err := c.stringParts(s)
	if err != nil {
		return nil, err
	}
	if len(s.notPatterns)+len(s.notFormats) > 0 || len(s.notVals) > 0 {
		if err := c.unsupported(s.ptr, "not", "a raw string of the %s style cannot be held to a negation", c.opts.Style); err != nil {
			return nil, err
		}
	}
	if len(parts) > 1 {
		if err := c.unsupported(parts[1].loc.ptr, parts[1].kw, "a raw string of the %s style can be held to one pattern or format, not more", c.opts.Style); err != nil {
			return nil, err
		}
		parts = parts[:1]
	}
	if len(parts) == 1 {
		e, err := x.rawRegex(parts[0], minLen, maxLen)
		if !errors.Is(err, errIgnore) {
			return e, err
		}
	}
	switch {
	case minLen == 0 && maxLen < 0:
		return x.raw, nil
	case maxLen < 0:
		head, err := c.bigRepeat(x.noTag, minLen, minLen, "xml-string")
		if err != nil {
			return nil, err
		}
		return grammar.Cat(head, x.raw), nil
	}
	return c.bigRepeat(x.noTag, minLen, maxLen, "xml-string")
}

// rawRegex returns the raw text of the strings that the pattern or format
// p accepts, with the length bounds, when none of them holds a tag: the
// raw text then ends where the tag starts. It returns errIgnore in Lenient
// mode when the constraint is dropped.
func (x *xmlCompiler) rawRegex(p stringPart, minLen, maxLen int) (*grammar.Expr, error) {
	c := x.c
	alts, err := splitAnchors(p.re)
	if err != nil {
		return nil, c.unsupportedE(p.loc.ptr, p.kw, "%q: %v", p.loc.val, err)
	}
	var subs []*syntax.Regexp
	for _, a := range alts {
		re, ok := wholeString(a, minLen, maxLen)
		if !ok {
			return nil, c.unsupportedE(p.loc.ptr, p.kw, "%q cannot be combined with minLength and maxLength in the %s style", p.loc.val, c.opts.Style)
		}
		subs = append(subs, re)
	}
	if len(subs) == 0 {
		return nil, nil
	}
	whole := subs[0]
	if len(subs) > 1 {
		whole = &syntax.Regexp{Op: syntax.OpAlternate, Sub: subs}
	}
	d, err := c.regexDFA(whole)
	if err == nil {
		var tags *fsm.RuneDFA
		if tags, err = x.tagDFA(); err == nil {
			d, err = c.intersect(d, tags)
		}
	}
	if errors.Is(err, errAutomatonSize) {
		return nil, c.automatonTooLarge(p.loc.ptr, p.kw, fmt.Sprintf("%s %q", p.kw, p.loc.val), err)
	}
	if err != nil {
		return nil, err
	}
	if !d.IsEmpty() {
		return nil, c.unsupportedE(p.loc.ptr, p.kw, "%q admits strings holding %q or %q, which a raw string of the %s style cannot", p.loc.val, x.excludes[0], x.excludes[1], c.opts.Style)
	}
	e, err := grammar.RegexExpr(whole.String(), c.opts.Limits)
	if err != nil {
		return nil, c.unsupportedE(p.loc.ptr, p.kw, "%q: %v", p.loc.val, err)
	}
	if err := c.count(exprSize(e)); err != nil {
		return nil, err
	}
	return e, nil
}

// tagDFA returns the automaton of the strings that hold a tag (one of
// x.excludes).
func (x *xmlCompiler) tagDFA() (*fsm.RuneDFA, error) {
	if x.tags != nil {
		return x.tags, nil
	}
	quoted := make([]string, len(x.excludes))
	for i, e := range x.excludes {
		quoted[i] = regexp.QuoteMeta(e)
	}
	re, err := syntax.Parse(`(?s).*(?:`+strings.Join(quoted, "|")+`).*`, syntax.Perl)
	if err != nil {
		return nil, err
	}
	if x.tags, err = x.c.regexDFA(re.Simplify()); err != nil {
		return nil, err
	}
	return x.tags, nil
}

// holdsTag reports whether a raw value s could not be told from its end.
func (x *xmlCompiler) holdsTag(s string) bool {
	for _, e := range x.excludes {
		if strings.Contains(s, e) {
			return true
		}
	}
	return false
}

// list returns the unnamed elements of the arrays s accepts (Cohere's list).
func (x *xmlCompiler) list(s *schema) (*grammar.Expr, error) {
	c := x.c
	minI, maxI := s.minItems, s.maxItems
	if maxI >= 0 && minI > maxI {
		return nil, nil
	}
	if s.hasEnum {
		if err := c.unsupported(s.enumPtr, "enum", "an array enum or const cannot be written in the %s style", c.opts.Style); err != nil {
			return nil, err
		}
	}
	for _, u := range s.unique {
		if maxI < 0 || maxI > 1 {
			if err := c.unsupported(u.ptr, u.kw, "%s", u.msg); err != nil {
				return nil, err
			}
		}
	}
	if len(s.contains) > 0 {
		if err := c.unsupported(s.ptr, "contains", "contains cannot be enforced in the %s style", c.opts.Style); err != nil {
			return nil, err
		}
	}
	var prefix []*grammar.Expr
	for i, p := range s.prefix {
		if maxI >= 0 && i >= maxI {
			break
		}
		el, err := x.element("", p, s.ptr+"/prefixItems/"+fmt.Sprint(i))
		if err != nil {
			return nil, err
		}
		if el == nil {
			maxI = i
			break
		}
		prefix = append(prefix, grammar.Cat(el, x.ws))
	}
	var rest *grammar.Expr
	if (maxI < 0 || maxI > len(prefix)) && len(prefix) == len(s.prefix) {
		el, err := x.element("", s.items, s.ptr+"/items")
		if err != nil {
			return nil, err
		}
		if el != nil {
			rest = grammar.Cat(el, x.ws)
		}
	}
	if rest == nil && (maxI < 0 || maxI > len(prefix)) {
		maxI = len(prefix)
	}
	if minI > maxI && maxI >= 0 {
		return nil, nil
	}
	list, err := c.arrayList(prefix, rest, max(minI, 1), maxI, grammar.Eps())
	if err != nil {
		return nil, err
	}
	switch {
	case list == nil && minI == 0:
		return x.ws, nil
	case list == nil:
		return nil, nil
	case minI == 0:
		return grammar.Cat(x.ws, grammar.Rep(list, 0, 1)), nil
	}
	return grammar.Cat(x.ws, list), nil
}
