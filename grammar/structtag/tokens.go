package structtag

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/reinlm/rein/grammar"
)

// tokenRef names one token: by id, or by its text when name is set.
type tokenRef struct {
	id   int
	name string
}

func (t tokenRef) String() string {
	if t.name != "" {
		return strconv.Quote(t.name)
	}
	return fmt.Sprintf("id %d", t.id)
}

// tokenRef reads a token: a non-negative integer id, or a non-empty text,
// resolved to an id by Options.TokenID when it is set.
func (c *compiler) tokenRef(v *value, ptr string) (tokenRef, error) {
	switch v.kind {
	case kindNumber:
		n, err := intValue(v, ptr, "a token id")
		if err != nil {
			return tokenRef{}, err
		}
		if n < 0 {
			return tokenRef{}, errorf(ptr, "a token id must not be negative, not %s", v.text)
		}
		if n > math.MaxInt32 {
			return tokenRef{}, errorf(ptr, "a token id must be at most 2^31-1, not %s", v.text)
		}
		return tokenRef{id: int(n)}, nil
	case kindString:
		if v.text == "" {
			return tokenRef{}, errorf(ptr, "a token text must not be empty")
		}
		if c.opts.TokenID == nil {
			return tokenRef{name: v.text}, nil
		}
		id, ok := c.opts.TokenID(v.text)
		if !ok {
			return tokenRef{}, errorf(ptr, "token %q not found in the vocabulary", v.text)
		}
		return tokenRef{id: id}, nil
	}
	return tokenRef{}, errorf(ptr, "a token must be an id or a token's text, not %s", describe(v))
}

// tokenList reads the optional field key of v: a list of tokens.
func (c *compiler) tokenList(v *value, ptr, key string, nonEmpty bool) ([]tokenRef, error) {
	f := v.get(key)
	if f == nil || f.kind == kindNull && !nonEmpty {
		return nil, nil
	}
	p := pointerTo(ptr, key)
	if f.kind != kindArray {
		return nil, errorf(p, "%q must be an array of token ids and texts, not %s", key, describe(f))
	}
	if nonEmpty && len(f.elems) == 0 {
		return nil, errorf(p, "%q must have at least one element", key)
	}
	out := make([]tokenRef, len(f.elems))
	for i, e := range f.elems {
		t, err := c.tokenRef(e, pointerAt(p, i))
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// sameToken reports whether a and b name the same token. A text and an id
// can be compared only through Options.TokenID, which turns texts into ids.
func sameToken(a, b tokenRef, ptr string) (bool, error) {
	if (a.name == "") != (b.name == "") {
		return false, errorf(ptr, "cannot tell whether token %v is token %v without a vocabulary (Options.TokenID)", a, b)
	}
	return a == b, nil
}

// tokenExpr matches one of the tokens ts, or with negate one token that is
// none of them.
func tokenExpr(negate bool, ts ...tokenRef) *grammar.Expr {
	var names []string
	var ids []grammar.TokenRange
	for _, t := range ts {
		if t.name != "" {
			names = append(names, t.name)
		} else {
			ids = append(ids, grammar.TokenRange{Lo: t.id, Hi: t.id})
		}
	}
	return grammar.TokenSet(negate, names, ids)
}

// freeTokens matches one token that is none of ts and not the end token of
// the enclosing tag.
func freeTokens(e ends, ts ...tokenRef) *grammar.Expr {
	if e.tok != nil {
		ts = append(ts, *e.tok)
	}
	return tokenExpr(true, ts...)
}

func (c *compiler) excludeToken(v *value, ptr string, e ends) (*grammar.Expr, error) {
	excl, err := c.tokenList(v, ptr, "exclude_tokens", false)
	if err != nil {
		return nil, err
	}
	return freeTokens(e, excl...), nil
}

// anyTokens compiles any tokens but the excluded ones, at most max_tokens
// of them.
func (c *compiler) anyTokens(v *value, ptr string, e ends) (*grammar.Expr, shape, error) {
	excl, err := c.tokenList(v, ptr, "exclude_tokens", false)
	if err != nil {
		return nil, shape{}, err
	}
	n, bounded, err := countField(v, ptr, "max_tokens", c.lim.Repeat, "Limits.Repeat")
	if err != nil {
		return nil, shape{}, err
	}
	if !bounded {
		n = -1
	}
	return grammar.Rep(freeTokens(e, excl...), 0, n), shape{unlimited: !bounded}, nil
}

// tokenTriggeredTags compiles free tokens in which each trigger token
// starts a tag that must then be completed.
func (c *compiler) tokenTriggeredTags(v *value, ptr string, depth int, e ends) (*grammar.Expr, shape, error) {
	triggers, err := c.tokenList(v, ptr, "trigger_tokens", true)
	if err != nil {
		return nil, shape{}, err
	}
	tags, err := c.tagList(v, ptr, depth)
	if err != nil {
		return nil, shape{}, err
	}
	// The triggers by token, counted, and one of each kind (by name, by
	// id): a begin of the other kind cannot be told from it without a
	// vocabulary.
	count := make(map[tokenRef]int, len(triggers))
	var named, byID *tokenRef
	for i, tr := range triggers {
		count[tr]++
		if tr.name != "" && named == nil {
			named = &triggers[i]
		} else if tr.name == "" && byID == nil {
			byID = &triggers[i]
		}
	}
	for i, t := range tags {
		p := pointerTo(pointerAt(pointerTo(ptr, "tags"), i), "begin")
		if t.begin.tok == nil {
			return nil, shape{}, errorf(p, "a tag of token_triggered_tags must begin with a token, not a string")
		}
		for _, other := range []*tokenRef{named, byID} {
			if other != nil {
				if _, err := sameToken(*t.begin.tok, *other, p); err != nil {
					return nil, shape{}, err
				}
			}
		}
		hits := count[*t.begin.tok]
		switch {
		case hits == 0:
			return nil, shape{}, errorf(p, "the tag's begin token %v is not one of the trigger tokens", *t.begin.tok)
		case hits > 1:
			return nil, shape{}, errorf(p, "the tag's begin token %v is given several times as a trigger token", *t.begin.tok)
		}
	}
	excl, err := c.tokenList(v, ptr, "exclude_tokens", false)
	if err != nil {
		return nil, shape{}, err
	}
	atLeastOne, stopAfterFirst, err := tagFlags(v, ptr)
	if err != nil {
		return nil, shape{}, err
	}
	free := func() *grammar.Expr { return freeTokens(e, slices.Concat(excl, triggers)...) }
	alt := c.alternatives("tags", tags)
	return freeTokenRegion(free, alt, atLeastOne, !stopAfterFirst), shape{unlimited: true}, nil
}

// freeTokenRegion is freeText at the token level: free matches one free
// token, and every alternative of rule alt starts with a token free does
// not match.
func freeTokenRegion(free func() *grammar.Expr, alt int, atLeastOne, loop bool) *grammar.Expr {
	switch {
	case atLeastOne && !loop:
		return grammar.Call(alt)
	case !loop:
		return grammar.Cat(grammar.Rep(free(), 0, -1), grammar.Rep(grammar.Call(alt), 0, 1))
	}
	body := grammar.Rep(grammar.Or(free(), grammar.Call(alt)), 0, -1)
	if atLeastOne {
		return grammar.Cat(grammar.Call(alt), body)
	}
	return body
}

// tokenDispatch compiles free tokens in which each rule's token must be
// followed by the rule's format.
func (c *compiler) tokenDispatch(v *value, ptr string, depth int, e ends) (*grammar.Expr, shape, error) {
	rules, err := arrayField(v, ptr, "rules")
	if err != nil {
		return nil, shape{}, err
	}
	rp := pointerTo(ptr, "rules")
	triggers := make([]tokenRef, len(rules))
	alts := make([]*grammar.Expr, len(rules))
	for i, r := range rules {
		p := pointerAt(rp, i)
		if r.kind != kindArray || len(r.elems) != 2 {
			return nil, shape{}, errorf(p, "a token_dispatch rule must be a 2-element array [token, format], not %s", describe(r))
		}
		if triggers[i], err = c.tokenRef(r.elems[0], pointerAt(p, 0)); err != nil {
			return nil, shape{}, err
		}
		x, _, err := c.format(r.elems[1], pointerAt(p, 1), depth+1, e)
		if err != nil {
			return nil, shape{}, err
		}
		alts[i] = grammar.Cat(tokenExpr(false, triggers[i]), x)
	}
	loop, err := boolField(v, ptr, "loop", true)
	if err != nil {
		return nil, shape{}, err
	}
	excl, err := c.tokenList(v, ptr, "exclude_tokens", false)
	if err != nil {
		return nil, shape{}, err
	}
	free := func() *grammar.Expr { return freeTokens(e, slices.Concat(excl, triggers)...) }
	alt := c.newRule("token_dispatch_rules", grammar.Or(alts...))
	return freeTokenRegion(free, alt, false, loop), shape{unlimited: true}, nil
}
