package jsonschema

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"unicode"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/ecma"
)

// This file translates ECMA-262 regular expressions (the dialect of JSON
// Schema's pattern and patternProperties) into Go's regexp/syntax trees, and
// those trees into grammar expressions over the JSON spelling of a string's
// characters.

// pattern is a translated pattern.
type pattern struct {
	re    *syntax.Regexp // parsed translation; anchors still in place
	match *regexp.Regexp // for matching names and enum values
	err   error
}

// pattern returns the translation of an ECMA-262 pattern, cached.
func (c *compiler) pattern(loc loc, kw string) (*pattern, error) {
	if n := len(loc.val); n > c.opts.Limits.RegexBytes {
		return nil, c.limitf(loc.ptr, kw, "a pattern of %d bytes, more than Limits.RegexBytes (%d)", n, c.opts.Limits.RegexBytes)
	}
	p, ok := c.regexes[loc.val]
	if !ok {
		p = &pattern{}
		src, err := ecma.Translate(loc.val)
		if errors.Is(err, ecma.ErrLookahead) {
			src, err = c.lookaheadRegex(loc.val)
		}
		if err == nil {
			p.re, err = syntax.Parse(src, syntax.Perl)
			if err == nil {
				p.match, err = regexp.Compile(src)
			}
			if err == nil && innerAnchors(p.re) {
				p.re, err = resolveAnchors(p.re)
			}
		}
		p.err = err
		c.regexes[loc.val] = p
	}
	if p.err != nil {
		cause := grammar.ErrUnsupported
		if errors.Is(p.err, errAutomatonSize) || errors.Is(p.err, grammar.ErrLimit) {
			cause = grammar.ErrLimit
		}
		if se, ok := p.err.(*syntax.Error); ok {
			cause = nil
			switch se.Code {
			case syntax.ErrInvalidRepeatSize, syntax.ErrLarge, syntax.ErrNestingDepth:
				cause = grammar.ErrLimit
			}
		}
		return nil, c.errorf(loc.ptr, kw, cause, "pattern %q: %v", loc.val, p.err)
	}
	return p, nil
}

// patternMatch reports whether the pattern matches name (anywhere, as ECMA-262 does).
func (c *compiler) patternMatch(loc loc, name string) (bool, error) {
	p, err := c.pattern(loc, "patternProperties")
	if err != nil {
		return false, err
	}
	return p.match.MatchString(name), nil
}

// search is a regex prepared for "matches somewhere": the alternatives of
// its top level, each with the anchors at its ends removed and flags saying
// whether it was anchored.
type searchAlt struct {
	re         *syntax.Regexp
	start, end bool
}

// splitAnchors splits re into top-level alternatives with their anchors.
func splitAnchors(re *syntax.Regexp) ([]searchAlt, error) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op == syntax.OpAlternate {
		var out []searchAlt
		for _, s := range re.Sub {
			a, err := splitAnchors(s)
			if err != nil {
				return nil, err
			}
			out = append(out, a...)
		}
		return out, nil
	}
	alt := searchAlt{re: re}
	if re.Op == syntax.OpBeginText || re.Op == syntax.OpBeginLine {
		return []searchAlt{{re: &syntax.Regexp{Op: syntax.OpEmptyMatch}, start: true}}, nil
	}
	if re.Op == syntax.OpEndText || re.Op == syntax.OpEndLine {
		return []searchAlt{{re: &syntax.Regexp{Op: syntax.OpEmptyMatch}, end: true}}, nil
	}
	if re.Op == syntax.OpConcat && len(re.Sub) > 0 {
		subs := re.Sub
		for len(subs) > 0 && (subs[0].Op == syntax.OpBeginText || subs[0].Op == syntax.OpBeginLine) {
			alt.start = true
			subs = subs[1:]
		}
		for len(subs) > 0 && (subs[len(subs)-1].Op == syntax.OpEndText || subs[len(subs)-1].Op == syntax.OpEndLine) {
			alt.end = true
			subs = subs[:len(subs)-1]
		}
		// ^(a|b)$ written with the group in the middle: unwrap a single
		// capture holding anchors of its own.
		if len(subs) == 1 && !alt.start && !alt.end {
			return splitAnchors(subs[0])
		}
		alt.re = &syntax.Regexp{Op: syntax.OpConcat, Sub: subs, Flags: re.Flags}
		if len(subs) == 0 {
			alt.re = &syntax.Regexp{Op: syntax.OpEmptyMatch}
		}
	}
	return []searchAlt{alt}, nil
}

// regexToExpr converts a regex (no anchors left) into an expression over the
// canonical JSON spelling of the characters it matches.
func (c *compiler) regexToExpr(re *syntax.Regexp) (*grammar.Expr, error) {
	switch re.Op {
	case syntax.OpNoMatch:
		return nil, nil
	case syntax.OpEmptyMatch:
		return grammar.Eps(), nil
	case syntax.OpLiteral:
		var parts []*grammar.Expr
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				parts = append(parts, c.charSet(foldRanges(r)))
			} else {
				parts = append(parts, c.charSet([]grammar.RuneRange{{Lo: r, Hi: r}}))
			}
		}
		return c.cat(parts...), nil
	case syntax.OpCharClass:
		var rs []grammar.RuneRange
		for i := 0; i+1 < len(re.Rune); i += 2 {
			rs = append(rs, grammar.RuneRange{Lo: re.Rune[i], Hi: re.Rune[i+1]})
		}
		return c.charSet(grammar.NormalizeRanges(rs)), nil
	case syntax.OpAnyChar:
		return c.charSet([]grammar.RuneRange{{Lo: 0, Hi: unicode.MaxRune}}), nil
	case syntax.OpAnyCharNotNL:
		return c.charSet([]grammar.RuneRange{{Lo: 0, Hi: '\n' - 1}, {Lo: '\n' + 1, Hi: unicode.MaxRune}}), nil
	case syntax.OpCapture:
		return c.regexToExpr(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		sub, err := c.regexToExpr(re.Sub[0])
		if err != nil {
			return nil, err
		}
		lo, hi := 0, -1
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
		}
		if sub == nil {
			return c.rep(nil, lo, hi), nil
		}
		return c.bigRepeat(sub, lo, hi, "pattern")
	case syntax.OpConcat:
		parts := make([]*grammar.Expr, 0, len(re.Sub))
		for _, s := range re.Sub {
			e, err := c.regexToExpr(s)
			if err != nil || e == nil {
				return nil, err
			}
			parts = append(parts, e)
		}
		return c.cat(parts...), nil
	case syntax.OpAlternate:
		var alts []*grammar.Expr
		for _, s := range re.Sub {
			e, err := c.regexToExpr(s)
			if err != nil {
				return nil, err
			}
			alts = append(alts, e)
		}
		return c.or(alts...), nil
	case syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine:
		return nil, fmt.Errorf("anchors are only supported at the start and end of the pattern")
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil, fmt.Errorf(`word boundaries (\b, \B) are not supported`)
	}
	return nil, fmt.Errorf("unsupported regex construct %v", re.Op)
}

func foldRanges(r rune) []grammar.RuneRange {
	rs := []grammar.RuneRange{{Lo: r, Hi: r}}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		rs = append(rs, grammar.RuneRange{Lo: f, Hi: f})
	}
	return grammar.NormalizeRanges(rs)
}
