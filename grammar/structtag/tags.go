package structtag

import (
	"hash/maphash"
	"slices"

	"github.com/reinlm/rein/grammar"
)

// marker is a tag's begin or end: one of a few strings ("" is nothing), or
// one token.
type marker struct {
	strs []string
	tok  *tokenRef
}

// expr matches the marker. Strings may hold special-token texts, which
// LitTokens lets package mask match as those tokens.
func (m marker) expr() *grammar.Expr {
	if m.tok != nil {
		return tokenExpr(false, *m.tok)
	}
	alts := make([]*grammar.Expr, len(m.strs))
	for i, s := range m.strs {
		alts[i] = grammar.LitTokens(s)
	}
	return grammar.Or(alts...)
}

// marker reads a tag's begin (list false) or end (list true): a string, a
// non-empty list of strings for an end, or a token object
// {"type": "token", "token": ...} whose type may be left out.
func (c *compiler) marker(v *value, ptr string, list bool) (marker, error) {
	switch v.kind {
	case kindString:
		return marker{strs: []string{v.text}}, nil
	case kindArray:
		if !list {
			break
		}
		if len(v.elems) == 0 {
			return marker{}, errorf(ptr, "an end list must have at least one string")
		}
		m := marker{strs: make([]string, len(v.elems))}
		for i, e := range v.elems {
			if e.kind != kindString {
				return marker{}, errorf(pointerAt(ptr, i), "an end string must be a string, not %s", describe(e))
			}
			m.strs[i] = e.text
		}
		return m, nil
	case kindObject:
		if err := checkKeys(v, ptr, []string{"type", "token"}); err != nil {
			return marker{}, err
		}
		if t := v.get("type"); t != nil && (t.kind != kindString || t.text != "token") {
			return marker{}, errorf(pointerTo(ptr, "type"), `a tag's begin or end object must be a token format, not type %s`, describe(t))
		}
		if v.get("token") == nil {
			return marker{}, errorf(ptr, `a token object needs the field "token"`)
		}
		t, err := c.tokenRef(v.get("token"), pointerTo(ptr, "token"))
		if err != nil {
			return marker{}, err
		}
		return marker{tok: &t}, nil
	}
	if list {
		return marker{}, errorf(ptr, "a tag's end must be a string, a list of strings or a token object, not %s", describe(v))
	}
	return marker{}, errorf(ptr, "a tag's begin must be a string or a token object, not %s", describe(v))
}

// tag is a compiled tag: begin content end.
type tag struct {
	begin marker
	expr  *grammar.Expr
	shape shape
}

// tagFormat compiles v at ptr, which must be a tag format (its type may be
// left out), as an element of a list of tags.
func (c *compiler) tagFormat(v *value, ptr string, depth int) (tag, error) {
	if depth > MaxDepth {
		return tag{}, errorf(ptr, "formats are nested deeper than %d levels", MaxDepth)
	}
	if v.kind != kindObject {
		return tag{}, errorf(ptr, "a tag must be an object, not %s", describe(v))
	}
	if t := v.get("type"); t != nil && (t.kind != kindString || t.text != "tag") {
		return tag{}, errorf(pointerTo(ptr, "type"), "this list holds tags, not a format of type %s", describe(t))
	}
	if err := checkFields(v, ptr, "tag"); err != nil {
		return tag{}, err
	}
	return c.tag(v, ptr, depth)
}

// tag compiles the tag format v. Its content ends at its end: the nearest
// tag of the formats inside is this one.
func (c *compiler) tag(v *value, ptr string, depth int) (tag, error) {
	begin, err := c.marker(v.get("begin"), pointerTo(ptr, "begin"), false)
	if err != nil {
		return tag{}, err
	}
	endp := pointerTo(ptr, "end")
	end, err := c.marker(v.get("end"), endp, true)
	if err != nil {
		return tag{}, err
	}
	inner := ends{tok: end.tok, strs: nonEmpty(end.strs)}
	content, sh, err := c.format(v.get("content"), pointerTo(ptr, "content"), depth+1, inner)
	if err != nil {
		return tag{}, err
	}
	closes := end.tok != nil || len(inner.strs) > 0
	if sh.unlimited && !sh.excludes && !closes {
		return tag{}, errorf(endp, "the content is unlimited, so at least one end string must be non-empty")
	}
	t := tag{begin: begin, expr: grammar.Cat(begin.expr(), content, end.expr())}
	if !closes {
		t.shape = sh
	}
	return t, nil
}

// tagList compiles the field "tags" of v: a non-empty list of tags.
func (c *compiler) tagList(v *value, ptr string, depth int) ([]tag, error) {
	elems, err := arrayField(v, ptr, "tags")
	if err != nil {
		return nil, err
	}
	p := pointerTo(ptr, "tags")
	tags := make([]tag, len(elems))
	for i, el := range elems {
		if tags[i], err = c.tagFormat(el, pointerAt(p, i), depth+1); err != nil {
			return nil, err
		}
	}
	return tags, nil
}

// alternatives puts the tags' expressions in one rule and returns its
// index.
func (c *compiler) alternatives(name string, tags []tag) int {
	alts := make([]*grammar.Expr, len(tags))
	for i, t := range tags {
		alts[i] = t.expr
	}
	return c.newRule(name, grammar.Or(alts...))
}

// triggeredTags compiles free text in which each trigger starts a tag that
// must then be completed: the text holds no trigger, no exclude string and
// no end of the enclosing tag. It may end with part of a trigger.
func (c *compiler) triggeredTags(v *value, ptr string, depth int, e ends) (*grammar.Expr, shape, error) {
	triggers, err := stringList(v, ptr, "triggers", true)
	if err != nil {
		return nil, shape{}, err
	}
	tags, err := c.tagList(v, ptr, depth)
	if err != nil {
		return nil, shape{}, err
	}
	starts := newPrefixSet(triggers)
	var hit []string
	for i, t := range tags {
		p := pointerTo(pointerAt(pointerTo(ptr, "tags"), i), "begin")
		if t.begin.tok != nil {
			return nil, shape{}, errorf(p, "a tag of triggered_tags must begin with a string, not a token")
		}
		hit = starts.prefixesOf(t.begin.strs[0], hit[:0])
		switch {
		case len(hit) == 0:
			return nil, shape{}, errorf(p, "the tag's begin %q does not start with any trigger", t.begin.strs[0])
		case len(hit) > 1:
			return nil, shape{}, errorf(p, "the tag's begin %q starts with several triggers (%s)", t.begin.strs[0], describeStrings(hit))
		}
	}
	excludes, err := stringList(v, ptr, "excludes", false)
	if err != nil {
		return nil, shape{}, err
	}
	atLeastOne, stopAfterFirst, err := tagFlags(v, ptr)
	if err != nil {
		return nil, shape{}, err
	}
	free := union(triggers, excludes, e.strs)
	alt := c.alternatives("tags", tags)
	sh := shape{unlimited: true, excludes: len(excludes) > 0}
	return freeText(free, alt, atLeastOne, !stopAfterFirst), sh, nil
}

// tagFlags reads the at_least_one and stop_after_first fields that
// triggered_tags, tags_with_separator and token_triggered_tags share.
func tagFlags(v *value, ptr string) (atLeastOne, stopAfterFirst bool, err error) {
	if atLeastOne, err = boolField(v, ptr, "at_least_one", false); err != nil {
		return false, false, err
	}
	stopAfterFirst, err = boolField(v, ptr, "stop_after_first", false)
	return atLeastOne, stopAfterFirst, err
}

// freeText is free text avoiding the strings free, in which rule alt (whose
// every alternative starts with one of free) may occur: with loop, any
// number of times, else once at most and only at the end. With atLeastOne
// the output starts with alt; with atLeastOne and not loop it is alt alone.
func freeText(free []string, alt int, atLeastOne, loop bool) *grammar.Expr {
	text := func() *grammar.Expr { return grammar.Text(free...) }
	switch {
	case atLeastOne && !loop:
		return grammar.Call(alt)
	case !loop:
		return grammar.Cat(text(), grammar.Rep(grammar.Call(alt), 0, 1))
	}
	body := grammar.Cat(grammar.Rep(grammar.Cat(text(), grammar.Call(alt)), 0, -1), text())
	if atLeastOne {
		return grammar.Cat(grammar.Call(alt), body)
	}
	return body
}

// tagsWithSeparator compiles tags joined by a separator, with no free text.
func (c *compiler) tagsWithSeparator(v *value, ptr string, depth int) (*grammar.Expr, shape, error) {
	tags, err := c.tagList(v, ptr, depth)
	if err != nil {
		return nil, shape{}, err
	}
	sep, _, err := stringField(v, ptr, "separator")
	if err != nil {
		return nil, shape{}, err
	}
	atLeastOne, stopAfterFirst, err := tagFlags(v, ptr)
	if err != nil {
		return nil, shape{}, err
	}
	alt := c.alternatives("tags", tags)
	x := grammar.Call(alt)
	if !stopAfterFirst {
		x = grammar.Cat(x, grammar.Rep(grammar.Cat(grammar.LitTokens(sep), grammar.Call(alt)), 0, -1))
	}
	if !atLeastOne {
		x = grammar.Rep(x, 0, 1)
	}
	return x, shape{unlimited: true}, nil
}

// dispatch compiles free text in which each rule's pattern must be
// followed by the rule's format. Unlike XGrammar, the free text also stops
// at the end of the enclosing tag (package documentation, end detection).
func (c *compiler) dispatch(v *value, ptr string, depth int, e ends) (*grammar.Expr, shape, error) {
	rules, err := arrayField(v, ptr, "rules")
	if err != nil {
		return nil, shape{}, err
	}
	rp := pointerTo(ptr, "rules")
	patterns := make([]string, len(rules))
	alts := make([]*grammar.Expr, len(rules))
	for i, r := range rules {
		p := pointerAt(rp, i)
		if r.kind != kindArray || len(r.elems) != 2 {
			return nil, shape{}, errorf(p, "a dispatch rule must be a 2-element array [pattern, format], not %s", describe(r))
		}
		if r.elems[0].kind != kindString || r.elems[0].text == "" {
			return nil, shape{}, errorf(pointerAt(p, 0), "a dispatch pattern must be a non-empty string, not %s", describe(r.elems[0]))
		}
		patterns[i] = r.elems[0].text
		x, _, err := c.format(r.elems[1], pointerAt(p, 1), depth+1, e)
		if err != nil {
			return nil, shape{}, err
		}
		alts[i] = grammar.Cat(grammar.LitTokens(patterns[i]), x)
	}
	loop, err := boolField(v, ptr, "loop", true)
	if err != nil {
		return nil, shape{}, err
	}
	excludes, err := stringList(v, ptr, "excludes", false)
	if err != nil {
		return nil, shape{}, err
	}
	alt := c.newRule("dispatch_rules", grammar.Or(alts...))
	sh := shape{unlimited: true, excludes: len(excludes) > 0}
	return freeText(union(patterns, excludes, e.strs), alt, false, loop), sh, nil
}

// prefixSet finds which of some strings a text starts with, in one pass
// over the text: each prefix whose length is one of theirs is looked up by
// its hash, so that many tags and many triggers cost their bytes, not
// their product. The hash is seeded at random, so no request can make
// prefixes collide on purpose.
type prefixSet struct {
	seed maphash.Seed
	lens []int            // the strings' lengths, ascending, each once
	at   map[uint64][]int // the strings by their hash
	strs []string
}

func newPrefixSet(strs []string) *prefixSet {
	s := &prefixSet{seed: maphash.MakeSeed(), at: make(map[uint64][]int, len(strs)), strs: strs}
	for i, x := range strs {
		h := maphash.String(s.seed, x)
		s.at[h] = append(s.at[h], i)
		s.lens = append(s.lens, len(x))
	}
	slices.Sort(s.lens)
	s.lens = slices.Compact(s.lens)
	return s
}

// prefixesOf appends to out the strings text starts with, shortest first.
func (s *prefixSet) prefixesOf(text string, out []string) []string {
	var h maphash.Hash
	h.SetSeed(s.seed)
	done := 0 // the bytes of text written to h
	for _, n := range s.lens {
		if n > len(text) {
			break
		}
		h.WriteString(text[done:n])
		done = n
		for _, i := range s.at[h.Sum64()] {
			if s.strs[i] == text[:n] {
				out = append(out, s.strs[i])
			}
		}
	}
	return out
}
