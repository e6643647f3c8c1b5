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
	r := anchorRewriter{memo: map[anchorKey]*syntax.Regexp{}, anchored: map[*syntax.Regexp]bool{}}
	w, err := r.t(mkCat(anyStar(), re, anyStar()), true, true)
	if err != nil {
		return nil, err
	}
	if treeSize(w, map[*syntax.Regexp]int{}) > maxLookaheadTree {
		return nil, fmt.Errorf("%w: resolving the anchors inside the pattern needs a regex of more than %d nodes", grammar.ErrLimit, maxLookaheadTree)
	}
	return mkCat(&syntax.Regexp{Op: syntax.OpBeginText}, w, &syntax.Regexp{Op: syntax.OpEndText}), nil
}

// anchorRewriter computes T with memos, so that each node of the pattern
// (and each suffix of a sequence) is rewritten once per context.
type anchorRewriter struct {
	memo     map[anchorKey]*syntax.Regexp
	anchored map[*syntax.Regexp]bool // hasAnchor, by node
}

// anchorKey is a node (from: the suffix of a sequence from there) in a
// context.
type anchorKey struct {
	re   *syntax.Regexp
	from int
	s, e bool
}

// has is hasAnchor, remembered.
func (r anchorRewriter) has(re *syntax.Regexp) bool {
	h, ok := r.anchored[re]
	if !ok {
		h = hasAnchor(re)
		r.anchored[re] = h
	}
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
	alts := []*syntax.Regexp{mkCat(nonEmptyRe(aMid), nonEmptyRe(bMid))}
	if nullable(aMid) {
		alts = append(alts, nonEmptyRe(bAll))
	}
	if nullable(bMid) {
		alts = append(alts, nonEmptyRe(aAll))
	}
	if nullable(aAll) && nullable(bAll) {
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
		nonEmptyRe(only),
		mkCat(nonEmptyRe(first), &syntax.Regexp{Op: syntax.OpStar, Sub: []*syntax.Regexp{nonEmptyRe(mid)}}, nonEmptyRe(last)),
	}
	if !plus || nullable(only) {
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
func nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCapture, syntax.OpPlus:
		return nullable(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || nullable(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !nullable(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if nullable(s) {
				return true
			}
		}
	}
	return false
}

// nonEmptyRe returns a regex for the nonempty strings re (no anchors)
// matches.
func nonEmptyRe(re *syntax.Regexp) *syntax.Regexp {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch:
		return none()
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return none()
		}
		return re
	case syntax.OpCapture, syntax.OpQuest:
		return nonEmptyRe(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return mkCat(nonEmptyRe(re.Sub[0]), &syntax.Regexp{Op: syntax.OpStar, Sub: re.Sub[:1]})
	case syntax.OpRepeat:
		if re.Max == 0 {
			return none()
		}
		rest := &syntax.Regexp{Op: syntax.OpRepeat, Sub: re.Sub[:1], Min: max(re.Min-1, 0), Max: re.Max - 1}
		if re.Max < 0 {
			rest.Max = -1
		}
		return mkCat(nonEmptyRe(re.Sub[0]), rest)
	case syntax.OpAlternate:
		var subs []*syntax.Regexp
		for _, s := range re.Sub {
			subs = append(subs, nonEmptyRe(s))
		}
		return mkAlt(subs...)
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return none()
		}
		head, tail := re.Sub[0], mkCat(re.Sub[1:]...)
		alts := []*syntax.Regexp{mkCat(nonEmptyRe(head), tail)}
		if nullable(head) {
			alts = append(alts, nonEmptyRe(tail))
		}
		return mkAlt(alts...)
	}
	return re // a class or any character: never empty
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
