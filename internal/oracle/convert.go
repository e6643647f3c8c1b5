package oracle

import (
	"fmt"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/tokenizer"
)

// converter turns IR expressions and regexp/syntax trees into builder symbols.
type converter struct {
	b     *builder
	memo  map[*grammar.Expr]symbol
	vocab *vocabInfo // nil without a vocabulary
}

// convert returns the table of g for the vocabulary voc (nil: none, and g
// may hold no token terminal). Rule i is nonterminal i.
func convert(g *grammar.Grammar, voc *tokenizer.Vocab) (*table, error) {
	c := &converter{b: newBuilder(), memo: map[*grammar.Expr]symbol{}}
	if voc != nil {
		c.vocab = newVocabInfo(voc)
	}
	for range g.Rules {
		c.b.nonterminal()
	}
	for i, r := range g.Rules {
		body, err := c.expr(r.Body)
		if err != nil {
			return nil, fmt.Errorf("oracle: rule %q: %w", r.Name, err)
		}
		c.b.add(symbol(i), body)
	}
	return c.b.table(symbol(g.Root)), nil
}

func (c *converter) expr(e *grammar.Expr) (symbol, error) {
	if s, ok := c.memo[e]; ok {
		return s, nil
	}
	var s symbol
	switch e.Op {
	case grammar.OpEmpty:
		s = c.b.empty()
	case grammar.OpBytes:
		if e.Special {
			s = c.specialLiteral(e.Bytes)
		} else {
			s = c.b.literal(e.Bytes)
		}
	case grammar.OpClass:
		s = c.b.class(e.Ranges)
	case grammar.OpSeq, grammar.OpAlt:
		subs := make([]symbol, len(e.Subs))
		for i, sub := range e.Subs {
			var err error
			if subs[i], err = c.expr(sub); err != nil {
				return 0, err
			}
		}
		if e.Op == grammar.OpSeq {
			s = c.b.seq(subs)
		} else {
			s = c.b.alt(subs)
		}
	case grammar.OpRepeat:
		sub, err := c.expr(e.Subs[0])
		if err != nil {
			return 0, err
		}
		s = c.b.repeat(sub, e.Min, e.Max)
	case grammar.OpRef:
		s = symbol(e.Rule)
	case grammar.OpRegex:
		var err error
		if s, err = c.regex(e.Regexp, true, true); err != nil {
			return 0, fmt.Errorf("regex /%s/: %w", e.Regexp, err)
		}
	case grammar.OpToken:
		var err error
		if s, err = c.tokenTerminal(e); err != nil {
			return 0, err
		}
	case grammar.OpText:
		s = c.text(e.Excludes)
	default:
		return 0, fmt.Errorf("unknown expression kind %d", e.Op)
	}
	c.memo[e] = s
	return s, nil
}

// regex converts re. atStart and atEnd say whether re can only be matched
// at the start (end) of the whole pattern, where the text and line anchors
// match the empty string; elsewhere they are an error.
func (c *converter) regex(re *syntax.Regexp, atStart, atEnd bool) (symbol, error) {
	switch re.Op {
	case syntax.OpNoMatch:
		return c.b.alt(nil), nil
	case syntax.OpEmptyMatch:
		return c.b.empty(), nil
	case syntax.OpBeginText, syntax.OpBeginLine:
		if !atStart {
			return 0, fmt.Errorf("%s is not at the start of the pattern", re)
		}
		return c.b.empty(), nil
	case syntax.OpEndText, syntax.OpEndLine:
		if !atEnd {
			return 0, fmt.Errorf("%s is not at the end of the pattern", re)
		}
		return c.b.empty(), nil
	case syntax.OpLiteral:
		syms := make([]symbol, len(re.Rune))
		for i, r := range re.Rune {
			rs := []grammar.RuneRange{{Lo: r, Hi: r}}
			if re.Flags&syntax.FoldCase != 0 {
				rs = foldOrbit(r)
			}
			syms[i] = c.b.class(rs)
		}
		return c.b.seq(syms), nil
	case syntax.OpCharClass:
		rs := make([]grammar.RuneRange, 0, len(re.Rune)/2)
		for i := 0; i+1 < len(re.Rune); i += 2 {
			rs = append(rs, grammar.RuneRange{Lo: re.Rune[i], Hi: re.Rune[i+1]})
		}
		return c.b.class(grammar.NormalizeRanges(rs)), nil
	case syntax.OpAnyChar:
		return c.b.class([]grammar.RuneRange{{Lo: 0, Hi: utf8.MaxRune}}), nil
	case syntax.OpAnyCharNotNL:
		return c.b.class([]grammar.RuneRange{{Lo: 0, Hi: '\n' - 1}, {Lo: '\n' + 1, Hi: utf8.MaxRune}}), nil
	case syntax.OpCapture:
		return c.regex(re.Sub[0], atStart, atEnd)
	case syntax.OpConcat, syntax.OpAlternate:
		subs := make([]symbol, len(re.Sub))
		for i, sub := range re.Sub {
			start, end := atStart, atEnd
			if re.Op == syntax.OpConcat {
				start = atStart && allEmptyOnly(re.Sub[:i])
				end = atEnd && allEmptyOnly(re.Sub[i+1:])
			}
			var err error
			if subs[i], err = c.regex(sub, start, end); err != nil {
				return 0, err
			}
		}
		if re.Op == syntax.OpConcat {
			return c.b.seq(subs), nil
		}
		return c.b.alt(subs), nil
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		// The body keeps the edges when it runs at most once, or when it
		// matches only "", so that every iteration sits where the first does.
		edge := (hi == 0 || hi == 1) || emptyOnly(re.Sub[0])
		sub, err := c.regex(re.Sub[0], atStart && edge, atEnd && edge)
		if err != nil {
			return 0, err
		}
		return c.b.repeat(sub, lo, hi), nil
	}
	return 0, fmt.Errorf("%w: regexp operator %v in %s", grammar.ErrUnsupported, re.Op, re)
}

// emptyOnly reports whether re can match nothing but the empty string.
func emptyOnly(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpBeginLine, syntax.OpEndText, syntax.OpEndLine:
		return true
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		return emptyOnly(re.Sub[0])
	case syntax.OpConcat, syntax.OpAlternate:
		return allEmptyOnly(re.Sub)
	}
	return false
}

func allEmptyOnly(res []*syntax.Regexp) bool {
	for _, re := range res {
		if !emptyOnly(re) {
			return false
		}
	}
	return true
}

// foldOrbit returns the code points that match r case-insensitively: r and
// everything unicode.SimpleFold cycles through from it.
func foldOrbit(r rune) []grammar.RuneRange {
	rs := []grammar.RuneRange{{Lo: r, Hi: r}}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		rs = append(rs, grammar.RuneRange{Lo: f, Hi: f})
	}
	return grammar.NormalizeRanges(rs)
}
