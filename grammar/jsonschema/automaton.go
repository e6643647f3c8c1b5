package jsonschema

import (
	"context"
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
// schema's parts and turns the results back into expressions over the
// canonical JSON spelling of their characters.

// runeDFA is a deterministic automaton over code points, in the form the
// schema compiler builds and reads (multipleDFA, dfaRules): state 0 is
// the start, every state's edges are sorted, disjoint ranges, and a missing
// range goes to an implicit dead state. Its operations convert it to an
// fsm.RuneDFA and back.
type runeDFA struct {
	edges  [][]runeEdge
	accept []bool
}

type runeEdge struct {
	lo, hi rune
	to     int
}

// maxDFAStates bounds every automaton built here.
const maxDFAStates = 4000

var errAutomatonSize = errors.New("string automaton too large")

// universe is every code point a JSON string can hold (no surrogates).
var universe = []grammar.RuneRange{{Lo: 0, Hi: 0xD7FF}, {Lo: 0xE000, Hi: unicode.MaxRune}}

// universePairs is universe as fsm takes it.
var universePairs = fsm.ScalarValues()

// automatonErr maps fsm's size errors to errAutomatonSize, which the
// callers test for, keeping fsm's account of the limit in the message.
func automatonErr(err error) error {
	if errors.Is(err, fsm.ErrTooLarge) {
		return fmt.Errorf("%w: %w", errAutomatonSize, err)
	}
	return err
}

// toFSM returns d as an fsm automaton. d's edges are disjoint by
// construction; overlapping ones are a bug in the code that built d.
func (d *runeDFA) toFSM() *fsm.RuneDFA {
	edges := make([][]fsm.RuneEdge, len(d.edges))
	for s, es := range d.edges {
		edges[s] = make([]fsm.RuneEdge, len(es))
		for i, e := range es {
			edges[s][i] = fsm.RuneEdge{Lo: e.lo, Hi: e.hi, To: int32(e.to)}
		}
	}
	r, err := fsm.NewRuneDFA(d.accept, edges)
	if err != nil {
		panic("grammar: malformed string automaton: " + err.Error())
	}
	return r
}

// fromFSM returns r as a runeDFA; r's start state is 0 (every fsm
// construction used here numbers it so) unless its language is empty.
func fromFSM(r *fsm.RuneDFA) *runeDFA {
	if r.Start < 0 {
		return &runeDFA{edges: [][]runeEdge{nil}, accept: []bool{false}}
	}
	n := r.NumStates()
	d := &runeDFA{edges: make([][]runeEdge, n), accept: append([]bool(nil), r.Final...)}
	var buf []fsm.RuneEdge
	for s := range n {
		buf = r.AppendEdges(buf[:0], int32(s))
		es := make([]runeEdge, len(buf))
		for i, e := range buf {
			es[i] = runeEdge{e.Lo, e.Hi, int(e.To)}
		}
		d.edges[s] = es
	}
	return d
}

// regexDFA builds the automaton of a regex with no anchors left.
func regexDFA(re *syntax.Regexp) (*runeDFA, error) {
	r, err := fsm.RuneRegexp(context.Background(), re, maxDFAStates)
	if err != nil {
		return nil, automatonErr(err)
	}
	return fromFSM(r), nil
}

// String renders the automaton, as an identity for sharing rules.
func (d *runeDFA) String() string {
	var b strings.Builder
	for s, es := range d.edges {
		if d.accept[s] {
			b.WriteByte('*')
		}
		for _, e := range es {
			fmt.Fprintf(&b, "%x-%x>%d,", e.lo, e.hi, e.to)
		}
		b.WriteByte(';')
	}
	return b.String()
}

// next returns the state reached from s on r, or -1.
func (d *runeDFA) next(s int, r rune) int {
	for _, e := range d.edges[s] {
		if e.lo <= r && r <= e.hi {
			return e.to
		}
	}
	return -1
}

// literalsDFA accepts exactly the given strings.
func literalsDFA(words []string) *runeDFA {
	// A trie has at most one state per character, plus its root: the bound
	// cannot be passed.
	size := 1
	for _, w := range words {
		size += len(w)
	}
	r, err := fsm.RuneLiterals(words, size)
	if err != nil {
		panic("grammar: literal automaton over its size bound: " + err.Error())
	}
	return fromFSM(r)
}

// lengthDFA accepts strings of length in [min, max] (max < 0: unbounded).
func lengthDFA(min, max int) (*runeDFA, error) {
	r, err := fsm.RuneLength(universePairs, min, max, maxDFAStates)
	if err != nil {
		return nil, automatonErr(err)
	}
	return fromFSM(r), nil
}

// complement returns the automaton of every string d rejects.
func (d *runeDFA) complement() *runeDFA {
	return fromFSM(d.toFSM().Complement(universePairs))
}

// intersect returns the product automaton of d and e.
func (d *runeDFA) intersect(e *runeDFA) (*runeDFA, error) {
	// Refuse products that could be large before building any of it.
	if len(d.edges)*len(e.edges) > 16*maxDFAStates {
		return nil, errAutomatonSize
	}
	r, err := d.toFSM().Intersect(context.Background(), e.toFSM(), maxDFAStates)
	if err != nil {
		return nil, automatonErr(err)
	}
	return fromFSM(r), nil
}

// isEmpty reports whether d accepts nothing.
func (d *runeDFA) isEmpty() bool {
	return d.toFSM().IsEmpty()
}

// minimize returns the minimal automaton of the strings d accepts.
func (d *runeDFA) minimize() *runeDFA {
	return fromFSM(d.toFSM().Minimize())
}

// maxEliminated bounds the expression state elimination may build on one
// edge, and maxEliminationWork the sum of the sizes of all the edges it
// builds: without the second bound, an automaton of a few thousand states
// (a multipleOf remainder automaton) builds millions of large edges before
// one of them trips the first.
const (
	maxEliminated      = 20000
	maxEliminationWork = 1 << 21
)

// dfaExpr turns d into an expression over the canonical spellings of its
// characters, by state elimination. It returns nil for the empty language,
// and an error wrapping errAutomatonSize when an edge would exceed
// maxEliminated nodes.
func (c *compiler) dfaExpr(d *runeDFA) (*grammar.Expr, error) {
	return c.dfaExprWithin(d, maxEliminated, maxEliminationWork)
}

// dfaExprWithin is dfaExpr with a bound of limit nodes on every edge built
// and of maxWork on the sum of their sizes, a character class counting as
// many nodes as its canonical spelling has.
// The expression nodes it counts are returned to the grammar's budget when
// it fails, since the caller falls back to another form.
func (c *compiler) dfaExprWithin(d *runeDFA, limit, maxWork int) (e *grammar.Expr, err error) {
	before := c.exprSize
	defer func() {
		if err != nil {
			c.exprSize = before
		}
	}()
	re, err := d.toFSM().ToRegexp(c.ctx, fsm.RegexpLimits{
		MaxStates: maxDFAStates + 1, // a complement adds a state
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
			c.work = checkEvery
			return nil, c.tick(0)
		}
		return nil, automatonErr(err)
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
func searchDFA(re *syntax.Regexp) (*runeDFA, error) {
	alts, err := splitAnchors(re)
	if err != nil {
		return nil, err
	}
	var subs []*syntax.Regexp
	for _, a := range alts {
		parts := []*syntax.Regexp{}
		if !a.start {
			parts = append(parts, anyStar())
		}
		parts = append(parts, a.re)
		if !a.end {
			parts = append(parts, anyStar())
		}
		subs = append(subs, &syntax.Regexp{Op: syntax.OpConcat, Sub: parts})
	}
	whole := subs[0]
	if len(subs) > 1 {
		whole = &syntax.Regexp{Op: syntax.OpAlternate, Sub: subs}
	}
	return regexDFA(whole)
}

// stringAutomaton compiles the contents of a string under several character
// constraints at once, through automata. Its errors are errAutomatonSize,
// a *Error, or the reason a pattern cannot be expressed; compileString
// reports them.
func (c *compiler) stringAutomaton(s *schema, parts []stringPart, excluded []string, minLen, maxLen int) (*grammar.Expr, error) {
	fail := func(err error) (*grammar.Expr, error) { return nil, err }
	d, err := lengthDFA(minLen, maxLen)
	if err != nil {
		return fail(err)
	}
	for _, p := range parts {
		pd, err := searchDFA(p.re)
		if err != nil {
			return fail(err)
		}
		if d, err = d.intersect(pd); err != nil {
			return fail(err)
		}
	}
	for _, np := range s.notPatterns {
		jp, err := c.pattern(np, "not")
		if err != nil {
			return nil, err
		}
		pd, err := searchDFA(jp.re)
		if err != nil {
			return fail(err)
		}
		if d, err = d.intersect(pd.complement()); err != nil {
			return fail(err)
		}
	}
	if len(excluded) > 0 {
		if d, err = d.intersect(literalsDFA(excluded).complement()); err != nil {
			return fail(err)
		}
	}
	return c.dfaExpr(d)
}

// stringDFA returns the automaton of the strings branch s accepts (its
// string constraints only: length, patterns, known formats, enum, exclusions).
func (c *compiler) stringDFA(s *schema) (*runeDFA, error) {
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
	d, err := lengthDFA(s.minLen, s.maxLen)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		pd, err := searchDFA(p.re)
		if err != nil {
			return nil, errAutomatonSize
		}
		if d, err = d.intersect(pd); err != nil {
			return nil, err
		}
	}
	for _, np := range s.notPatterns {
		jp, err := c.pattern(np, "not")
		if err != nil {
			return nil, err
		}
		pd, err := searchDFA(jp.re)
		if err != nil {
			return nil, errAutomatonSize
		}
		if d, err = d.intersect(pd.complement()); err != nil {
			return nil, err
		}
	}
	var excluded []string
	for _, v := range s.notVals {
		if v.kind == kindString {
			excluded = append(excluded, v.str)
		}
	}
	if len(excluded) > 0 {
		if d, err = d.intersect(literalsDFA(excluded).complement()); err != nil {
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
