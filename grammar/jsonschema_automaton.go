package grammar

import (
	"context"
	"errors"
	"fmt"
	"regexp/syntax"
	"strings"

	"github.com/reinlm/rein/fsm"
)

// This file holds the glue between the JSON Schema front-end and the
// code-point automata of package fsm, for the string constraints a single
// regex cannot carry: intersections of a pattern with a format or with
// length bounds, complements (not pattern, a key that is none of the
// declared names, a key that matches no pattern of patternProperties).
// fsm does the automaton work; this file builds the automata from the
// schema's parts and turns the results back into expressions over the
// canonical JSON spelling of their characters.

// jsRDFA is a deterministic automaton over code points, in the form the
// schema compiler builds and reads (jsMultipleDFA, dfaRules): state 0 is
// the start, every state's edges are sorted, disjoint ranges, and a missing
// range goes to an implicit dead state. Its operations convert it to an
// fsm.RuneDFA and back.
type jsRDFA struct {
	edges  [][]jsREdge
	accept []bool
}

type jsREdge struct {
	lo, hi rune
	to     int
}

// jsMaxDFAStates bounds every automaton built here.
const jsMaxDFAStates = 4000

var errJSAutomatonSize = errors.New("string automaton too large")

// jsUniverse is every code point a JSON string can hold (no surrogates).
var jsUniverse = []RuneRange{{0, 0xD7FF}, {0xE000, maxRune}}

// jsUniversePairs is jsUniverse as fsm takes it.
var jsUniversePairs = fsm.ScalarValues()

// jsAutomatonErr maps fsm's size errors to errJSAutomatonSize, which the
// callers test for, keeping fsm's account of the limit in the message.
func jsAutomatonErr(err error) error {
	if errors.Is(err, fsm.ErrTooLarge) {
		return fmt.Errorf("%w: %w", errJSAutomatonSize, err)
	}
	return err
}

// toFSM returns d as an fsm automaton. d's edges are disjoint by
// construction; overlapping ones are a bug in the code that built d.
func (d *jsRDFA) toFSM() *fsm.RuneDFA {
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

// jsFromFSM returns r as a jsRDFA; r's start state is 0 (every fsm
// construction used here numbers it so) unless its language is empty.
func jsFromFSM(r *fsm.RuneDFA) *jsRDFA {
	if r.Start < 0 {
		return &jsRDFA{edges: [][]jsREdge{nil}, accept: []bool{false}}
	}
	n := r.NumStates()
	d := &jsRDFA{edges: make([][]jsREdge, n), accept: append([]bool(nil), r.Final...)}
	var buf []fsm.RuneEdge
	for s := range n {
		buf = r.AppendEdges(buf[:0], int32(s))
		es := make([]jsREdge, len(buf))
		for i, e := range buf {
			es[i] = jsREdge{e.Lo, e.Hi, int(e.To)}
		}
		d.edges[s] = es
	}
	return d
}

// jsRegexDFA builds the automaton of a regex with no anchors left.
func jsRegexDFA(re *syntax.Regexp) (*jsRDFA, error) {
	r, err := fsm.RuneRegexp(context.Background(), re, jsMaxDFAStates)
	if err != nil {
		return nil, jsAutomatonErr(err)
	}
	return jsFromFSM(r), nil
}

// String renders the automaton, as an identity for sharing rules.
func (d *jsRDFA) String() string {
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
func (d *jsRDFA) next(s int, r rune) int {
	for _, e := range d.edges[s] {
		if e.lo <= r && r <= e.hi {
			return e.to
		}
	}
	return -1
}

// jsLiteralsDFA accepts exactly the given strings.
func jsLiteralsDFA(words []string) *jsRDFA {
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
	return jsFromFSM(r)
}

// jsLengthDFA accepts strings of length in [min, max] (max < 0: unbounded).
func jsLengthDFA(min, max int) (*jsRDFA, error) {
	r, err := fsm.RuneLength(jsUniversePairs, min, max, jsMaxDFAStates)
	if err != nil {
		return nil, jsAutomatonErr(err)
	}
	return jsFromFSM(r), nil
}

// complement returns the automaton of every string d rejects.
func (d *jsRDFA) complement() *jsRDFA {
	return jsFromFSM(d.toFSM().Complement(jsUniversePairs))
}

// intersect returns the product automaton of d and e.
func (d *jsRDFA) intersect(e *jsRDFA) (*jsRDFA, error) {
	// Refuse products that could be large before building any of it.
	if len(d.edges)*len(e.edges) > 16*jsMaxDFAStates {
		return nil, errJSAutomatonSize
	}
	r, err := d.toFSM().Intersect(context.Background(), e.toFSM(), jsMaxDFAStates)
	if err != nil {
		return nil, jsAutomatonErr(err)
	}
	return jsFromFSM(r), nil
}

// isEmpty reports whether d accepts nothing.
func (d *jsRDFA) isEmpty() bool {
	return d.toFSM().IsEmpty()
}

// minimize returns the minimal automaton of the strings d accepts.
func (d *jsRDFA) minimize() *jsRDFA {
	return jsFromFSM(d.toFSM().Minimize())
}

// jsMaxEliminated bounds the expression state elimination may build on one
// edge, and jsMaxEliminationWork the sum of the sizes of all the edges it
// builds: without the second bound, an automaton of a few thousand states
// (a multipleOf remainder automaton) builds millions of large edges before
// one of them trips the first.
const (
	jsMaxEliminated      = 20000
	jsMaxEliminationWork = 1 << 21
)

// dfaExpr turns d into an expression over the canonical spellings of its
// characters, by state elimination. It returns nil for the empty language,
// and an error wrapping errJSAutomatonSize when an edge would exceed
// jsMaxEliminated nodes.
func (c *schemaCompiler) dfaExpr(d *jsRDFA) (*Expr, error) {
	return c.dfaExprWithin(d, jsMaxEliminated, jsMaxEliminationWork)
}

// dfaExprWithin is dfaExpr with a bound of limit nodes on every edge built
// and of maxWork on the sum of their sizes, a character class counting as
// many nodes as its canonical spelling has.
// The expression nodes it counts are returned to the grammar's budget when
// it fails, since the caller falls back to another form.
func (c *schemaCompiler) dfaExprWithin(d *jsRDFA, limit, maxWork int) (e *Expr, err error) {
	before := c.exprSize
	defer func() {
		if err != nil {
			c.exprSize = before
		}
	}()
	re, err := d.toFSM().ToRegexp(c.ctx, fsm.RegexpLimits{
		MaxStates: jsMaxDFAStates + 1, // a complement adds a state
		MaxNodes:  limit,
		MaxWork:   maxWork,
		LeafSize: func(pairs []rune) int {
			if e := c.charSet(jsPairRanges(pairs)); e != nil {
				return jsExprSize(e)
			}
			return 1
		},
	})
	if err != nil {
		if c.ctx.Err() != nil {
			c.work = jsCheckEvery
			return nil, c.tick(0)
		}
		return nil, jsAutomatonErr(err)
	}
	return c.regexpExpr(re)
}

// jsPairRanges returns lo, hi pairs as ranges.
func jsPairRanges(pairs []rune) []RuneRange {
	rs := make([]RuneRange, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		rs = append(rs, RuneRange{pairs[i], pairs[i+1]})
	}
	return rs
}

// regexpExpr turns an expression from fsm's state elimination into one over
// the canonical JSON spelling of its characters: each class becomes its
// charSet. The expression is a DAG whose shared nodes stay shared, and may
// be as deep as the automaton has states, so it is walked with a stack and
// a memo rather than recursively. OpNoMatch gives nil.
func (c *schemaCompiler) regexpExpr(root *syntax.Regexp) (*Expr, error) {
	if root.Op == syntax.OpNoMatch {
		return nil, nil
	}
	done := map[*syntax.Regexp]*Expr{}
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
		subs := make([]*Expr, len(f.re.Sub))
		for i, s := range f.re.Sub {
			subs[i] = done[s]
		}
		var e *Expr
		switch f.re.Op {
		case syntax.OpEmptyMatch:
			e = Eps()
		case syntax.OpLiteral:
			parts := make([]*Expr, len(f.re.Rune))
			for i, r := range f.re.Rune {
				parts[i] = c.charSet([]RuneRange{{r, r}})
			}
			e = c.cat(parts...)
		case syntax.OpCharClass:
			e = c.charSet(jsPairRanges(f.re.Rune))
		case syntax.OpConcat:
			e = c.cat(subs...)
		case syntax.OpAlternate:
			e = Or(subs...)
		case syntax.OpStar:
			e = Rep(subs[0], 0, -1)
		default:
			return nil, fmt.Errorf("unexpected %v in an eliminated automaton", f.re.Op)
		}
		done[f.re] = e
	}
	return done[root], nil
}

func jsExprSize(e *Expr) int {
	n := 1
	for _, s := range e.Subs {
		n += jsExprSize(s)
	}
	return n
}

// searchDFA returns the automaton of the strings in which re (a pattern or
// format, anchors at its ends) matches.
func jsSearchDFA(re *syntax.Regexp) (*jsRDFA, error) {
	alts, err := jsSplitAnchors(re)
	if err != nil {
		return nil, err
	}
	var subs []*syntax.Regexp
	for _, a := range alts {
		parts := []*syntax.Regexp{}
		if !a.start {
			parts = append(parts, jsAnyStar())
		}
		parts = append(parts, a.re)
		if !a.end {
			parts = append(parts, jsAnyStar())
		}
		subs = append(subs, &syntax.Regexp{Op: syntax.OpConcat, Sub: parts})
	}
	whole := subs[0]
	if len(subs) > 1 {
		whole = &syntax.Regexp{Op: syntax.OpAlternate, Sub: subs}
	}
	return jsRegexDFA(whole)
}

// stringAutomaton compiles the contents of a string under several character
// constraints at once, through automata. Its errors are errJSAutomatonSize,
// a *Error, or the reason a pattern cannot be expressed; compileString
// reports them.
func (c *schemaCompiler) stringAutomaton(s *jsSchema, parts []jsStringPart, excluded []string, minLen, maxLen int) (*Expr, error) {
	fail := func(err error) (*Expr, error) { return nil, err }
	d, err := jsLengthDFA(minLen, maxLen)
	if err != nil {
		return fail(err)
	}
	for _, p := range parts {
		pd, err := jsSearchDFA(p.re)
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
		pd, err := jsSearchDFA(jp.re)
		if err != nil {
			return fail(err)
		}
		if d, err = d.intersect(pd.complement()); err != nil {
			return fail(err)
		}
	}
	if len(excluded) > 0 {
		if d, err = d.intersect(jsLiteralsDFA(excluded).complement()); err != nil {
			return fail(err)
		}
	}
	return c.dfaExpr(d)
}

// stringDFA returns the automaton of the strings branch s accepts (its
// string constraints only: length, patterns, known formats, enum, exclusions).
func (c *schemaCompiler) stringDFA(s *jsSchema) (*jsRDFA, error) {
	if s.hasEnum {
		var words []string
		for _, v := range s.enum {
			if v.kind != jsString {
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
		return jsLiteralsDFA(words), nil
	}
	parts, err := c.stringParts(s)
	if err != nil {
		return nil, err
	}
	d, err := jsLengthDFA(s.minLen, s.maxLen)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		pd, err := jsSearchDFA(p.re)
		if err != nil {
			return nil, errJSAutomatonSize
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
		pd, err := jsSearchDFA(jp.re)
		if err != nil {
			return nil, errJSAutomatonSize
		}
		if d, err = d.intersect(pd.complement()); err != nil {
			return nil, err
		}
	}
	var excluded []string
	for _, v := range s.notVals {
		if v.kind == jsString {
			excluded = append(excluded, v.str)
		}
	}
	if len(excluded) > 0 {
		if d, err = d.intersect(jsLiteralsDFA(excluded).complement()); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// unsupportedE is unsupported for callers that have no value to return in
// Lenient mode: it returns errJSIgnore there, which callers treat as "drop
// the constraint".
func (c *schemaCompiler) unsupportedE(ptr, kw, format string, args ...any) error {
	if err := c.unsupported(ptr, kw, format, args...); err != nil {
		return err
	}
	return errJSIgnore
}

var errJSIgnore = errors.New("constraint ignored")
