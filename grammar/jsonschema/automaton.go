package jsonschema

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"

	"github.com/reinlm/rein/fsm"
	"github.com/reinlm/rein/grammar"
)

// This file holds the glue between the JSON Schema front-end and the
// code-point automata of package fsm, for the string constraints a single
// regex cannot carry: intersections of a pattern with a format or with
// length bounds, complements (not pattern, a key that is none of the
// declared names, a key that matches no pattern of patternProperties).
// fsm does the automaton work; this file builds the automata from the
// schema's parts within Limits.PatternStates and turns the results back
// into expressions over the canonical JSON spelling of their characters.

// errAutomatonSize is wrapped by every error about an automaton that
// outgrew Limits.PatternStates, or an expression that outgrew the bounds of
// state elimination; callers test for it to fall back to another form, and
// report it with automatonTooLarge.
var errAutomatonSize = errors.New("string automaton too large")

// errPatternStates wraps errAutomatonSize for the automata past
// Limits.PatternStates.
var errPatternStates = fmt.Errorf("%w: more states than Limits.PatternStates", errAutomatonSize)

// errTooLargeCause is the cause of the error that reports errAutomatonSize:
// the constraint cannot be enforced, because of a limit.
var errTooLargeCause = fmt.Errorf("%w (%w)", grammar.ErrUnsupported, grammar.ErrLimit)

// universe is every code point a JSON string can hold (no surrogates).
var universe = []grammar.RuneRange{{Lo: 0, Hi: 0xD7FF}, {Lo: 0xE000, Hi: unicode.MaxRune}}

// universePairs is universe as fsm takes it.
var universePairs = fsm.ScalarValues()

// patternStates is the bound on the states of every automaton built here.
func (c *compiler) patternStates() int { return c.opts.Limits.PatternStates }

// automatonErr maps fsm's size errors to errPatternStates, which the
// callers test for, keeping fsm's account of the limit in the message.
func automatonErr(err error) error {
	if errors.Is(err, fsm.ErrTooLarge) {
		return fmt.Errorf("%w: %w", errPatternStates, err)
	}
	return err
}

// automatonTooLarge reports err, which wraps errAutomatonSize, for the
// keyword kw at ptr: what could not be built names the constraints. It is
// an error wrapping grammar.ErrUnsupported and grammar.ErrLimit in strict
// mode; in Lenient mode a warning, and errIgnore (the constraint is
// dropped).
func (c *compiler) automatonTooLarge(ptr, kw, what string, err error) error {
	if c.ctx.Err() != nil {
		// The automaton stopped because the compile did: say that, not
		// that the constraint is too large (which Lenient mode would drop).
		return c.stopped()
	}
	msg := fmt.Sprintf("%s needs too large an expression", what)
	if errors.Is(err, errPatternStates) {
		msg = fmt.Sprintf("%s needs more automaton states than Limits.PatternStates (%d)", what, c.patternStates())
	}
	if c.opts.Lenient {
		c.warn(ptr, kw, "%s (ignored)", msg)
		return errIgnore
	}
	return c.errorf(ptr, kw, errTooLargeCause, "%s", msg)
}

// regexDFA builds the automaton of a regex with no anchors left.
func (c *compiler) regexDFA(re *syntax.Regexp) (*fsm.RuneDFA, error) {
	d, err := fsm.RuneRegexp(c.ctx, re, c.patternStates())
	if err != nil && c.ctx.Err() != nil {
		return nil, c.stopped()
	}
	return d, automatonErr(err)
}

// dfaKey renders an automaton, as an identity for sharing rules: fsm's
// minimal automata number their states canonically.
func dfaKey(d *fsm.RuneDFA) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d:", d.Start)
	var buf []fsm.RuneEdge
	for s := range int32(d.NumStates()) {
		if d.Final[s] {
			b.WriteByte('*')
		}
		buf = d.AppendEdges(buf[:0], s)
		for _, e := range buf {
			fmt.Fprintf(&b, "%x-%x>%d,", e.Lo, e.Hi, e.To)
		}
		b.WriteByte(';')
	}
	return b.String()
}

// literalsDFA accepts exactly the given strings.
func literalsDFA(words []string) *fsm.RuneDFA {
	// A trie has at most one state per character, plus its root: the bound
	// cannot be passed.
	size := 1
	for _, w := range words {
		size += len(w)
	}
	d, err := fsm.RuneLiterals(words, size)
	if err != nil {
		panic("grammar: literal automaton over its size bound: " + err.Error())
	}
	return d
}

// lengthDFA accepts strings of length in [min, max] (max < 0: unbounded).
func (c *compiler) lengthDFA(min, max int) (*fsm.RuneDFA, error) {
	d, err := fsm.RuneLength(universePairs, min, max, c.patternStates())
	return d, automatonErr(err)
}

// complement returns the automaton of every string d rejects.
func complement(d *fsm.RuneDFA) *fsm.RuneDFA {
	return d.Complement(universePairs)
}

// intersect returns the product automaton of d and e.
func (c *compiler) intersect(d, e *fsm.RuneDFA) (*fsm.RuneDFA, error) {
	// Refuse products that could be large before building any of it.
	limit := c.patternStates()
	if d.NumStates()*e.NumStates() > 16*limit {
		return nil, errPatternStates
	}
	r, err := d.Intersect(c.ctx, e, limit)
	if err != nil && c.ctx.Err() != nil {
		return nil, c.stopped()
	}
	return r, automatonErr(err)
}

// dfaExpr turns d into an expression over the canonical spellings of its
// characters, by state elimination. It returns nil for the empty language,
// and an error wrapping errAutomatonSize when the expression outgrows the
// bounds of elimination. Those are fsm's defaults, one place for both:
// fsm.DefaultMaxRegexpNodes on any one edge, and fsm.DefaultMaxRegexpWork
// on all the edges built, without which an automaton of a few thousand
// states (a multipleOf remainder automaton) builds millions of large edges
// before one of them trips the first.
func (c *compiler) dfaExpr(d *fsm.RuneDFA) (*grammar.Expr, error) {
	return c.dfaExprWithin(d, fsm.DefaultMaxRegexpNodes, fsm.DefaultMaxRegexpWork)
}

// dfaExprWithin is dfaExpr with a bound of limit nodes on every edge built
// and of maxWork on the sum of their sizes, a character class counting as
// many nodes as its canonical spelling has.
// The expression nodes it counts are returned to the grammar's budget when
// it fails, since the caller falls back to another form.
func (c *compiler) dfaExprWithin(d *fsm.RuneDFA, limit, maxWork int) (e *grammar.Expr, err error) {
	before := c.exprSize
	defer func() {
		if err != nil {
			c.exprSize = before
		}
	}()
	re, err := d.ToRegexp(c.ctx, fsm.RegexpLimits{
		MaxStates: c.patternStates() + 1, // a complement adds a state
		MaxNodes:  limit,
		MaxWork:   maxWork,
		LeafSize: func(pairs []rune) int {
			if e := c.charSet(pairRanges(pairs)); e != nil {
				return exprSize(e)
			}
			return 1
		},
	})
	if err != nil {
		if c.ctx.Err() != nil {
			return nil, c.stopped()
		}
		// Every automaton here is within Limits.PatternStates: what
		// elimination refuses is the size of the expression.
		return nil, fmt.Errorf("%w: %w", errAutomatonSize, err)
	}
	return c.regexpExpr(re)
}

// pairRanges returns lo, hi pairs as ranges.
func pairRanges(pairs []rune) []grammar.RuneRange {
	rs := make([]grammar.RuneRange, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		rs = append(rs, grammar.RuneRange{Lo: pairs[i], Hi: pairs[i+1]})
	}
	return rs
}

// regexpExpr turns an expression from fsm's state elimination into one over
// the canonical JSON spelling of its characters: each class becomes its
// charSet. The expression is a DAG whose shared nodes stay shared, and may
// be as deep as the automaton has states, so it is walked with a stack and
// a memo rather than recursively. OpNoMatch gives nil.
func (c *compiler) regexpExpr(root *syntax.Regexp) (*grammar.Expr, error) {
	if root.Op == syntax.OpNoMatch {
		return nil, nil
	}
	done := map[*syntax.Regexp]*grammar.Expr{}
	type frame struct {
		re   *syntax.Regexp
		subs bool // its subexpressions are done
	}
	stack := []frame{{root, false}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, ok := done[f.re]; ok {
			continue
		}
		if !f.subs {
			stack = append(stack, frame{f.re, true})
			for _, s := range f.re.Sub {
				if _, ok := done[s]; !ok {
					stack = append(stack, frame{s, false})
				}
			}
			continue
		}
		if err := c.tick(1); err != nil {
			return nil, err
		}
		subs := make([]*grammar.Expr, len(f.re.Sub))
		for i, s := range f.re.Sub {
			subs[i] = done[s]
		}
		var e *grammar.Expr
		switch f.re.Op {
		case syntax.OpEmptyMatch:
			e = grammar.Eps()
		case syntax.OpLiteral:
			parts := make([]*grammar.Expr, len(f.re.Rune))
			for i, r := range f.re.Rune {
				parts[i] = c.charSet([]grammar.RuneRange{{Lo: r, Hi: r}})
			}
			e = c.cat(parts...)
		case syntax.OpCharClass:
			e = c.charSet(pairRanges(f.re.Rune))
		case syntax.OpConcat:
			e = c.cat(subs...)
		case syntax.OpAlternate:
			e = grammar.Or(subs...)
		case syntax.OpStar:
			e = grammar.Rep(subs[0], 0, -1)
		default:
			return nil, fmt.Errorf("unexpected %v in an eliminated automaton", f.re.Op)
		}
		done[f.re] = e
	}
	return done[root], nil
}

func exprSize(e *grammar.Expr) int {
	n := 1
	for _, s := range e.Subs {
		n += exprSize(s)
	}
	return n
}

// searchDFA returns the automaton of the strings in which re (a pattern or
// format, anchors at its ends) matches.
func (c *compiler) searchDFA(re *syntax.Regexp) (*fsm.RuneDFA, error) {
	whole, err := searchWhole(re)
	if err != nil {
		return nil, err
	}
	return c.regexDFA(whole)
}

// stringAutomaton compiles the contents of a string under several character
// constraints at once, through automata. Its errors are errAutomatonSize,
// a *Error, or the reason a pattern cannot be expressed; compileString
// reports them.
func (c *compiler) stringAutomaton(s *schema, parts []stringPart, excluded []string, minLen, maxLen int) (*grammar.Expr, error) {
	fail := func(err error) (*grammar.Expr, error) { return nil, err }
	d, err := c.lengthDFA(minLen, maxLen)
	if err != nil {
		return fail(err)
	}
	for _, p := range parts {
		pd, err := c.searchDFA(p.re)
		if err != nil {
			return fail(err)
		}
		if d, err = c.intersect(d, pd); err != nil {
			return fail(err)
		}
	}
	if d, err = c.exclude(d, s); err != nil {
		return fail(err)
	}
	if len(excluded) > 0 {
		if d, err = c.intersect(d, complement(literalsDFA(excluded))); err != nil {
			return fail(err)
		}
	}
	return c.dfaExpr(d)
}

// exclude removes from d the strings matching a pattern or a format that s
// excludes (through not).
func (c *compiler) exclude(d *fsm.RuneDFA, s *schema) (*fsm.RuneDFA, error) {
	var res []*syntax.Regexp
	for _, np := range s.notPatterns {
		jp, err := c.pattern(np, "not")
		if err != nil {
			return nil, err
		}
		res = append(res, jp.re)
	}
	for _, f := range s.notFormats {
		re, err := syntax.Parse(`^(?:`+formats[f.val]+`)$`, syntax.Perl)
		if err != nil {
			return nil, err
		}
		res = append(res, re)
	}
	for _, re := range res {
		pd, err := c.searchDFA(re)
		if err != nil {
			return nil, err
		}
		if d, err = c.intersect(d, complement(pd)); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// stringDFA returns the automaton of the strings branch s accepts (its
// string constraints only: length, patterns, known formats, enum, exclusions).
func (c *compiler) stringDFA(s *schema) (*fsm.RuneDFA, error) {
	if s.hasEnum {
		var words []string
		for _, v := range s.enum {
			if v.kind != kindString {
				continue
			}
			if v.lone {
				// The automaton reads characters; a lone surrogate is none.
				return nil, c.unsupportedE(s.enumPtr, "enum", "a string with a lone surrogate cannot be matched here")
			}
			ok, err := c.validate(s, v)
			if err != nil {
				return nil, err
			}
			if ok {
				words = append(words, v.str)
			}
		}
		return literalsDFA(words), nil
	}
	parts, err := c.stringParts(s)
	if err != nil {
		return nil, err
	}
	d, err := c.lengthDFA(s.minLen, s.maxLen)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		pd, err := c.searchDFA(p.re)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errAutomatonSize, err)
		}
		if d, err = c.intersect(d, pd); err != nil {
			return nil, err
		}
	}
	if d, err = c.exclude(d, s); err != nil {
		return nil, err
	}
	var excluded []string
	for _, v := range s.notVals {
		if v.kind == kindString {
			excluded = append(excluded, v.str)
		}
	}
	if len(excluded) > 0 {
		if d, err = c.intersect(d, complement(literalsDFA(excluded))); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// unsupportedE is unsupported for callers that have no value to return in
// Lenient mode: it returns errIgnore there, which callers treat as "drop
// the constraint".
func (c *compiler) unsupportedE(ptr, kw, format string, args ...any) error {
	if err := c.unsupported(ptr, kw, format, args...); err != nil {
		return err
	}
	return errIgnore
}

var errIgnore = errors.New("constraint ignored")
