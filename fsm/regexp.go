package fsm

import (
	"fmt"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// Regexp adds a fragment between two states that matches re: the strings that
// lead from one to the other are exactly the full matches of re (as if it were
// anchored at both ends). re may be any tree from syntax.Parse, simplified or
// not: literals (case folded or not), character classes, any character with
// or without newline, concatenation, alternation, repetition (non-greedy ones
// match the same strings as greedy ones), captures (which are transparent) and
// the empty match. Text and line anchors (^ $ \A \z) are no-ops where they
// cannot fail: a begin anchor where nothing can have been matched before it
// (at the start of the expression or of a top-level alternative), an end
// anchor where nothing can follow. Anchors elsewhere, and word boundaries,
// are errors wrapping ErrUnsupportedRegexp that name the feature.
//
// Literals, classes and the any-character operators match code points, UTF-8
// encoded: invalid UTF-8 never matches (Go's regexp reads each invalid byte as
// U+FFFD instead), nor does a literal surrogate.
//
// Growing the NFA past MaxStates states is an error wrapping ErrTooLarge. On
// error the NFA keeps the states and edges added before the error was found.
func (n *NFA) Regexp(from, to int, re *syntax.Regexp) error {
	n.check(from, to)
	c := regexpCompiler{n: n, limit: n.MaxStates}
	if c.limit <= 0 {
		c.limit = DefaultMaxNFAStates
	}
	return c.compile(re, int32(from), int32(to), true, true)
}

// regexpTarget is the automaton a regexpCompiler adds to: a byte NFA, which
// reads code points as their UTF-8 sequences, or a code-point NFA.
type regexpTarget interface {
	NewState() int
	NumStates() int
	Epsilon(from, to int)
	Runes(from, to int, pairs []rune)
	// oneRune adds an edge that reads the code point r, a valid one.
	oneRune(from, to int32, r rune)
}

type regexpCompiler struct {
	n     regexpTarget
	limit int
	runes []rune
}

var (
	anyRune      = []rune{0, utf8.MaxRune}
	anyRuneNotNL = []rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune}
)

// compile adds re between from and to. atStart and atEnd say whether every
// match of re begins at the start, or ends at the end, of the whole input,
// which is where anchors are no-ops.
//
// A fragment adds no edges into from and none out of to, and its other states
// are new; that is what lets a loop use one state as both ends of its body.
func (c *regexpCompiler) compile(re *syntax.Regexp, from, to int32, atStart, atEnd bool) error {
	n := c.n
	if n.NumStates() > c.limit {
		return fmt.Errorf("%w: regexp expands to more than %d NFA states", ErrTooManyStates, c.limit)
	}
	switch re.Op {
	case syntax.OpNoMatch:
	case syntax.OpEmptyMatch:
		n.Epsilon(int(from), int(to))
	case syntax.OpLiteral:
		c.literal(re, from, to)
	case syntax.OpCharClass:
		n.Runes(int(from), int(to), re.Rune)
	case syntax.OpAnyCharNotNL:
		n.Runes(int(from), int(to), anyRuneNotNL)
	case syntax.OpAnyChar:
		n.Runes(int(from), int(to), anyRune)
	case syntax.OpBeginLine, syntax.OpBeginText:
		if !atStart {
			return fmt.Errorf("%w: %s anchor not at the start of the expression", ErrUnsupportedRegexp, anchorName(re))
		}
		n.Epsilon(int(from), int(to))
	case syntax.OpEndLine, syntax.OpEndText:
		if !atEnd {
			return fmt.Errorf("%w: %s anchor not at the end of the expression", ErrUnsupportedRegexp, anchorName(re))
		}
		n.Epsilon(int(from), int(to))
	case syntax.OpWordBoundary:
		return fmt.Errorf(`%w: word boundary \b`, ErrUnsupportedRegexp)
	case syntax.OpNoWordBoundary:
		return fmt.Errorf(`%w: non-word boundary \B`, ErrUnsupportedRegexp)
	case syntax.OpCapture:
		return c.compile(re.Sub[0], from, to, atStart, atEnd)
	case syntax.OpConcat:
		return c.concat(re.Sub, from, to, atStart, atEnd)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if err := c.compile(sub, from, to, atStart, atEnd); err != nil {
				return err
			}
		}
	case syntax.OpQuest:
		n.Epsilon(int(from), int(to))
		return c.compile(re.Sub[0], from, to, atStart, atEnd)
	case syntax.OpStar:
		return c.star(re.Sub[0], from, to)
	case syntax.OpPlus:
		return c.plus(re.Sub[0], from, to)
	case syntax.OpRepeat:
		return c.repeat(re.Sub[0], re.Min, re.Max, from, to)
	default:
		return fmt.Errorf("%w: operator %v", ErrUnsupportedRegexp, re.Op)
	}
	return nil
}

func anchorName(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpBeginLine:
		return "^ (line start)"
	case syntax.OpEndLine:
		return "$ (line end)"
	case syntax.OpBeginText:
		return `^ or \A (text start)`
	}
	return `$ or \z (text end)`
}

func (c *regexpCompiler) literal(re *syntax.Regexp, from, to int32) {
	n := c.n
	fold := re.Flags&syntax.FoldCase != 0
	cur := from
	for i, r := range re.Rune {
		next := to
		if i < len(re.Rune)-1 {
			next = int32(n.NewState())
		}
		switch {
		case fold && unicode.SimpleFold(r) != r:
			c.runes = append(c.runes[:0], r, r)
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				c.runes = append(c.runes, f, f)
			}
			n.Runes(int(cur), int(next), c.runes)
		case !utf8.ValidRune(r):
			// Matches nothing: UTF-8 cannot encode it.
		default:
			n.oneRune(cur, next, r)
		}
		cur = next
	}
	if len(re.Rune) == 0 {
		n.Epsilon(int(from), int(to))
	}
}

func (c *regexpCompiler) concat(subs []*syntax.Regexp, from, to int32, atStart, atEnd bool) error {
	if len(subs) == 0 {
		c.n.Epsilon(int(from), int(to))
		return nil
	}
	// Anchors are no-ops after a prefix, or before a suffix, that only
	// matches the empty string.
	first, last := 0, len(subs)-1
	for first < len(subs) && zeroWidth(subs[first]) {
		first++
	}
	for last >= 0 && zeroWidth(subs[last]) {
		last--
	}
	cur := from
	for i, sub := range subs {
		next := to
		if i < len(subs)-1 {
			next = int32(c.n.NewState())
		}
		if err := c.compile(sub, cur, next, atStart && i <= first, atEnd && i >= last); err != nil {
			return err
		}
		cur = next
	}
	return nil
}

// zeroWidth reports whether re is made of anchors and empty matches only.
func zeroWidth(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return true
	case syntax.OpCapture, syntax.OpConcat:
		for _, sub := range re.Sub {
			if !zeroWidth(sub) {
				return false
			}
		}
		return true
	}
	return false
}

// star adds sub* between from and to, looping on a new state.
func (c *regexpCompiler) star(sub *syntax.Regexp, from, to int32) error {
	loop := int32(c.n.NewState())
	c.n.Epsilon(int(from), int(loop))
	c.n.Epsilon(int(loop), int(to))
	return c.compile(sub, loop, loop, false, false)
}

// plus adds sub+ between from and to.
func (c *regexpCompiler) plus(sub *syntax.Regexp, from, to int32) error {
	in, out := int32(c.n.NewState()), int32(c.n.NewState())
	c.n.Epsilon(int(from), int(in))
	c.n.Epsilon(int(out), int(in))
	c.n.Epsilon(int(out), int(to))
	return c.compile(sub, in, out, false, false)
}

// repeat adds sub{min,max} between from and to (max < 0: no upper bound) as
// min copies of sub followed by a star, or by max-min nested optional copies.
func (c *regexpCompiler) repeat(sub *syntax.Regexp, min, max int, from, to int32) error {
	if max >= 0 && max < min {
		return fmt.Errorf("%w: repeat bounds {%d,%d}", ErrUnsupportedRegexp, min, max)
	}
	if max == 0 {
		c.n.Epsilon(int(from), int(to))
		return nil
	}
	cur := from
	required := min
	if max < 0 && min > 0 {
		required-- // the last required copy is the plus's first
	}
	for i := range required {
		next := to
		if max < 0 || i < max-1 {
			next = int32(c.n.NewState())
		}
		if err := c.compile(sub, cur, next, false, false); err != nil {
			return err
		}
		cur = next
	}
	switch {
	case max < 0 && min == 0:
		return c.star(sub, cur, to)
	case max < 0:
		return c.plus(sub, cur, to)
	}
	for i := min; i < max; i++ {
		c.n.Epsilon(int(cur), int(to))
		next := to
		if i < max-1 {
			next = int32(c.n.NewState())
		}
		if err := c.compile(sub, cur, next, false, false); err != nil {
			return err
		}
		cur = next
	}
	return nil
}

// oneRune adds the UTF-8 sequence of r from one state to another.
func (n *NFA) oneRune(from, to int32, r rune) {
	var buf [utf8.UTFMax]byte
	w := utf8.EncodeRune(buf[:], r)
	for j := range w - 1 {
		s := int32(n.NewState())
		n.edges = append(n.edges, nfaEdge{from: from, to: s, kind: byteEdge, lo: buf[j], hi: buf[j]})
		from = s
	}
	n.edges = append(n.edges, nfaEdge{from: from, to: to, kind: byteEdge, lo: buf[w-1], hi: buf[w-1]})
}
