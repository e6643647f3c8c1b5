package jsonschema

import (
	"fmt"
	"regexp/syntax"

	"github.com/reinlm/rein/grammar"
)

// Anchors inside a pattern. A pattern matches a string when it matches
// somewhere in it, and ^ and $ (no multiline flag in JSON Schema) hold only
// at the string's start and end. Where they stand only at the ends of the
// pattern's top-level alternatives, the rest of the package reads them
// directly (splitAnchors). Elsewhere, as in (^a|b)c or x(y|$), the pattern
// is rewritten into a regex without anchors that matches the whole strings
// the pattern finds a match in:
//
//	T(.* re .*, at start, at end)
//
// where T(r, s, e) is the language of r given whether r starts at the
// string's start (s) and ends at its end (e). An anchor is the empty string
// where its position is right and nothing elsewhere; a sequence AB splits on
// which of A and B match the empty string (a nonempty A moves B off the
// start, a nonempty B moves A off the end); a repetition's nonempty
// iterations are the first, the middle ones and the last (empty iterations
// add nothing). Counted repetitions of a part with anchors are unrolled up
// to maxAnchorUnroll. The result, wrapped in ^...$, replaces the pattern's
// tree, so everything downstream sees a whole-string pattern.

// maxAnchorUnroll bounds the counted repetitions of a part with anchors
// that are unrolled; the rewritten regex is bounded as lookahead's are
// (maxLookaheadTree).
const maxAnchorUnroll = 16

// innerAnchors reports whether re has a text anchor that is not at an end
// of a top-level alternative, and no word boundary (which stays refused).
func innerAnchors(re *syntax.Regexp) bool {
	var text, word bool
	var walk func(r *syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine:
			text = true
		case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			word = true
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	alts, err := splitAnchors(re)
	if err != nil {
		return false
	}
	for _, a := range alts {
		walk(a.re)
	}
	return text && !word
}

// resolveAnchors returns ^W$, W matching the whole strings in which re
// matches somewhere, with no anchor inside (see above).
func resolveAnchors(re *syntax.Regexp) (*syntax.Regexp, error) {
	r := anchorRewriter{
		memo: map[anchorKey]*syntax.Regexp{}, anchored: map[*syntax.Regexp]bool{},
		empty: map[*syntax.Regexp]bool{}, nonEmpty: map[anchorKey]*syntax.Regexp{},
	}
	w, err := r.t(mkCat(anyStar(), re, anyStar()), true, true)
	if err != nil {
		return nil, err
	}
	if treeSize(w, map[*syntax.Regexp]int{}) > maxLookaheadTree {
		return nil, fmt.Errorf("%w: resolving the anchors inside the pattern needs a regex of more than %d nodes", grammar.ErrLimit, maxLookaheadTree)
	}
	// Written out as a tree: the rewrite shares subtrees, which some
	// readers of syntax trees (Regexp.String among them) do not expect.
	return unshare(mkCat(&syntax.Regexp{Op: syntax.OpBeginText}, w, &syntax.Regexp{Op: syntax.OpEndText})), nil
}

// unshare copies re as a tree, each shared subtree once per place.
func unshare(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	c.Sub = nil
	for _, sub := range re.Sub {
		c.Sub = append(c.Sub, unshare(sub))
	}
	c.Sub0 = [1]*syntax.Regexp{}
	return &c
}

// anchorRewriter computes T with memos, so that each node of the pattern
// (and each suffix of a sequence) is rewritten once per context, and each
// node of the result is asked whether it matches the empty string, and
// stripped of it, once: the results share subtrees, and walking them as
// trees would take time exponential in the pattern's nesting.
type anchorRewriter struct {
	memo     map[anchorKey]*syntax.Regexp
	anchored map[*syntax.Regexp]bool      // hasAnchor, by node
	empty    map[*syntax.Regexp]bool      // nullable, by node
	nonEmpty map[anchorKey]*syntax.Regexp // nonEmptyRe, by node (and suffix)
}

// anchorKey is a node (from: the suffix of a sequence from there) in a
// context.
type anchorKey struct {
	re   *syntax.Regexp
	from int
	s, e bool
}

// has is hasAnchor, remembered for every node it visits.
func (r anchorRewriter) has(re *syntax.Regexp) bool {
	if h, ok := r.anchored[re]; ok {
		return h
	}
	var h bool
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		h = true
	default:
		for _, sub := range re.Sub {
			h = r.has(sub) || h
		}
	}
	r.anchored[re] = h
	return h
}

// t is T(re, s, e): the strings re matches where its start is the string's
// start exactly when s and its end the string's end exactly when e.
func (r anchorRewriter) t(re *syntax.Regexp, s, e bool) (*syntax.Regexp, error) {
	if !r.has(re) {
		return re, nil
	}
	k := anchorKey{re, -1, s, e}
	if x, ok := r.memo[k]; ok {
		return x, nil
	}
	x, err := r.rewrite(re, s, e)
	if err == nil {
		r.memo[k] = x
	}
	return x, err
}

func (r anchorRewriter) rewrite(re *syntax.Regexp, s, e bool) (*syntax.Regexp, error) {
	switch re.Op {
	case syntax.OpBeginText:
		return eps(s), nil
	case syntax.OpEndText:
		return eps(e), nil
	case syntax.OpBeginLine, syntax.OpEndLine:
		return nil, fmt.Errorf("line anchors (multiline mode) are not supported")
	case syntax.OpCapture:
		return r.t(re.Sub[0], s, e)
	case syntax.OpAlternate:
		var subs []*syntax.Regexp
		for _, sub := range re.Sub {
			x, err := r.t(sub, s, e)
			if err != nil {
				return nil, err
			}
			subs = append(subs, x)
		}
		return mkAlt(subs...), nil
	case syntax.OpConcat:
		return r.suffix(re, 0, s, e)
	case syntax.OpQuest:
		x, err := r.t(re.Sub[0], s, e)
		if err != nil {
			return nil, err
		}
		return mkAlt(eps(true), x), nil
	case syntax.OpStar, syntax.OpPlus:
		return r.loop(re.Sub[0], re.Op == syntax.OpPlus, s, e)
	case syntax.OpRepeat:
		if re.Max > maxAnchorUnroll || re.Max < 0 && re.Min > maxAnchorUnroll {
			return nil, fmt.Errorf("anchors inside a repetition counted past %d are not supported", maxAnchorUnroll)
		}
		parts := make([]*syntax.Regexp, 0, max(re.Min, re.Max)+1)
		for range re.Min {
			parts = append(parts, re.Sub[0])
		}
		switch {
		case re.Max < 0:
			parts = append(parts, &syntax.Regexp{Op: syntax.OpStar, Sub: re.Sub[:1]})
		default:
			for range re.Max - re.Min {
				parts = append(parts, &syntax.Regexp{Op: syntax.OpQuest, Sub: re.Sub[:1]})
			}
		}
		return r.t(mkCat(parts...), s, e)
	}
	return nil, fmt.Errorf("anchors inside %v are not supported", re.Op)
}

// suffix is T of the sequence re.Sub[i:], as A (its first part) then B
// (the rest), on which of A and B match the empty string.
func (r anchorRewriter) suffix(re *syntax.Regexp, i int, s, e bool) (*syntax.Regexp, error) {
	if i == len(re.Sub)-1 {
		return r.t(re.Sub[i], s, e)
	}
	k := anchorKey{re, i, s, e}
	if x, ok := r.memo[k]; ok {
		return x, nil
	}
	a := re.Sub[i]
	aMid, err := r.t(a, s, false) // A, with B nonempty after it
	if err != nil {
		return nil, err
	}
	bMid, err := r.suffix(re, i+1, false, e) // B, after a nonempty A
	if err != nil {
		return nil, err
	}
	aAll, err := r.t(a, s, e) // A, with B empty after it
	if err != nil {
		return nil, err
	}
	bAll, err := r.suffix(re, i+1, s, e) // B, after an empty A
	if err != nil {
		return nil, err
	}
	alts := []*syntax.Regexp{mkCat(r.nonEmptyRe(aMid), r.nonEmptyRe(bMid))}
	if r.nullable(aMid) {
		alts = append(alts, r.nonEmptyRe(bAll))
	}
	if r.nullable(bMid) {
		alts = append(alts, r.nonEmptyRe(aAll))
	}
	if r.nullable(aAll) && r.nullable(bAll) {
		alts = append(alts, eps(true))
	}
	x := mkAlt(alts...)
	r.memo[k] = x
	return x, nil
}

// loop is T(A*, s, e), or T(A+, s, e) with plus: no nonempty iteration,
// one, or a first, middle ones and a last.
func (r anchorRewriter) loop(a *syntax.Regexp, plus bool, s, e bool) (*syntax.Regexp, error) {
	var ctx [2][2]*syntax.Regexp // [starts][ends]
	for _, st := range []bool{false, true} {
		for _, en := range []bool{false, true} {
			x, err := r.t(a, st, en)
			if err != nil {
				return nil, err
			}
			ctx[boolIndex(st)][boolIndex(en)] = x
		}
	}
	only := ctx[boolIndex(s)][boolIndex(e)]
	first, mid, last := ctx[boolIndex(s)][0], ctx[0][0], ctx[0][boolIndex(e)]
	alts := []*syntax.Regexp{
		r.nonEmptyRe(only),
		mkCat(r.nonEmptyRe(first), &syntax.Regexp{Op: syntax.OpStar, Sub: []*syntax.Regexp{r.nonEmptyRe(mid)}}, r.nonEmptyRe(last)),
	}
	if !plus || r.nullable(only) {
		alts = append(alts, eps(true))
	}
	return mkAlt(alts...), nil
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nullable reports whether re (no anchors) matches the empty string.
func (r anchorRewriter) nullable(re *syntax.Regexp) bool {
	if n, ok := r.empty[re]; ok {
		return n
	}
	n := false
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpStar, syntax.OpQuest:
		n = true
	case syntax.OpLiteral:
		n = len(re.Rune) == 0
	case syntax.OpCapture, syntax.OpPlus:
		n = r.nullable(re.Sub[0])
	case syntax.OpRepeat:
		n = re.Min == 0 || r.nullable(re.Sub[0])
	case syntax.OpConcat:
		n = true
		for _, sub := range re.Sub {
			n = n && r.nullable(sub)
		}
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			n = n || r.nullable(sub)
		}
	}
	r.empty[re] = n
	return n
}

// nonEmptyRe returns a regex for the nonempty strings re (no anchors)
// matches.
func (r anchorRewriter) nonEmptyRe(re *syntax.Regexp) *syntax.Regexp {
	k := anchorKey{re: re, from: -1}
	if x, ok := r.nonEmpty[k]; ok {
		return x
	}
	if re.Op == syntax.OpConcat {
		return r.nonEmptySuffix(re, 0)
	}
	var x *syntax.Regexp
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch:
		x = none()
	case syntax.OpLiteral:
		x = re
		if len(re.Rune) == 0 {
			x = none()
		}
	case syntax.OpCapture, syntax.OpQuest:
		x = r.nonEmptyRe(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		x = mkCat(r.nonEmptyRe(re.Sub[0]), &syntax.Regexp{Op: syntax.OpStar, Sub: re.Sub[:1]})
	case syntax.OpRepeat:
		if re.Max == 0 {
			x = none()
			break
		}
		rest := &syntax.Regexp{Op: syntax.OpRepeat, Sub: re.Sub[:1], Min: max(re.Min-1, 0), Max: re.Max - 1}
		if re.Max < 0 {
			rest.Max = -1
		}
		x = mkCat(r.nonEmptyRe(re.Sub[0]), rest)
	case syntax.OpAlternate:
		var subs []*syntax.Regexp
		for _, sub := range re.Sub {
			subs = append(subs, r.nonEmptyRe(sub))
		}
		x = mkAlt(subs...)
	default:
		x = re // a class or any character: never empty
	}
	r.nonEmpty[k] = x
	r.nonEmptyDone(x)
	return x
}

// nonEmptyDone records that x, a result of nonEmptyRe, is its own
// nonempty part and does not match the empty string, so that the rewrite
// of an enclosing loop does not walk it again.
func (r anchorRewriter) nonEmptyDone(x *syntax.Regexp) {
	r.nonEmpty[anchorKey{re: x, from: -1}] = x
	r.empty[x] = false
}

// nonEmptySuffix is nonEmptyRe of the sequence re.Sub[i:]: a nonempty
// first part then the rest, or an empty first part and a nonempty rest.
func (r anchorRewriter) nonEmptySuffix(re *syntax.Regexp, i int) *syntax.Regexp {
	switch {
	case i == len(re.Sub):
		return none()
	case i == len(re.Sub)-1:
		return r.nonEmptyRe(re.Sub[i])
	}
	k := anchorKey{re: re, from: i}
	if x, ok := r.nonEmpty[k]; ok {
		return x
	}
	head := re.Sub[i]
	alts := []*syntax.Regexp{mkCat(append([]*syntax.Regexp{r.nonEmptyRe(head)}, re.Sub[i+1:]...)...)}
	if r.nullable(head) {
		alts = append(alts, r.nonEmptySuffix(re, i+1))
	}
	x := mkAlt(alts...)
	r.nonEmpty[k] = x
	r.nonEmptyDone(x)
	return x
}

func none() *syntax.Regexp { return &syntax.Regexp{Op: syntax.OpNoMatch} }

// eps is the empty string when ok, else nothing.
func eps(ok bool) *syntax.Regexp {
	if ok {
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}
	}
	return none()
}

// mkCat concatenates subs: nothing if one matches nothing, the empty
// matches dropped.
func mkCat(subs ...*syntax.Regexp) *syntax.Regexp {
	var out []*syntax.Regexp
	for _, s := range subs {
		switch s.Op {
		case syntax.OpNoMatch:
			return none()
		case syntax.OpEmptyMatch:
			continue
		}
		out = append(out, s)
	}
	switch len(out) {
	case 0:
		return eps(true)
	case 1:
		return out[0]
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Sub: out}
}

// mkAlt is the alternation of subs, those matching nothing dropped.
func mkAlt(subs ...*syntax.Regexp) *syntax.Regexp {
	var out []*syntax.Regexp
	for _, s := range subs {
		if s.Op != syntax.OpNoMatch {
			out = append(out, s)
		}
	}
	switch len(out) {
	case 0:
		return none()
	case 1:
		return out[0]
	}
	return &syntax.Regexp{Op: syntax.OpAlternate, Sub: out}
}
