package jsonschema

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reinlm/rein/grammar"
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
		src, err := translateECMA(loc.val)
		if errors.Is(err, errLookahead) {
			src, err = c.lookaheadRegex(loc.val)
		}
		if err == nil {
			p.re, err = syntax.Parse(src, syntax.Perl)
			if err == nil {
				p.match, err = regexp.Compile(src)
			}
		}
		p.err = err
		c.regexes[loc.val] = p
	}
	if p.err != nil {
		cause := grammar.ErrUnsupported
		if errors.Is(p.err, errAutomatonSize) {
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

// ecmaSpace is ECMA-262's \s.
const ecmaSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// translateECMA rewrites an ECMA-262 pattern into Go's syntax, keeping its
// meaning: \s, \S and . get ECMA's definitions, \uXXXX, \u{X}, \cX, \0 and
// identity escapes are spelled out, [^] and [] are translated, and named
// groups get Go's spelling. Lookahead is an error wrapping errLookahead
// (lookaheadRegex compiles it); lookbehind and backreferences are errors.
func translateECMA(src string) (string, error) {
	var b strings.Builder
	inClass := false
	classStart := false
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\\':
			if i+1 >= len(src) {
				return "", fmt.Errorf("trailing backslash")
			}
			e := src[i+1]
			i += 2
			switch e {
			case 'd', 'D', 'w', 'W':
				b.WriteByte('\\')
				b.WriteByte(e)
			case 's':
				if inClass {
					b.WriteString(ecmaSpace)
				} else {
					b.WriteString("[" + ecmaSpace + "]")
				}
			case 'S':
				if inClass {
					return "", fmt.Errorf(`\S inside a character class is not supported`)
				}
				b.WriteString("[^" + ecmaSpace + "]")
			case 'b':
				if inClass {
					b.WriteString(`\x08`)
				} else {
					b.WriteString(`\b`)
				}
			case 'B':
				b.WriteString(`\B`)
			case 'f', 'n', 'r', 't':
				b.WriteByte('\\')
				b.WriteByte(e)
			case 'v':
				b.WriteString(`\x0B`)
			case '0':
				if i < len(src) && src[i] >= '0' && src[i] <= '9' {
					return "", fmt.Errorf("octal escapes are not supported")
				}
				b.WriteString(`\x00`)
			case 'c':
				if i < len(src) && (src[i]|0x20 >= 'a' && src[i]|0x20 <= 'z') {
					fmt.Fprintf(&b, `\x%02X`, src[i]%32)
					i++
				} else {
					b.WriteString(`\\c`)
				}
			case 'x':
				if i+2 <= len(src) && isHex(src[i]) && isHex(src[i+1]) {
					b.WriteString(`\x` + src[i:i+2])
					i += 2
				} else {
					b.WriteByte('x')
				}
			case 'u':
				r, n := ecmaUnicodeEscape(src[i:])
				if n == 0 {
					b.WriteByte('u')
					break
				}
				i += n
				if r >= 0xD800 && r <= 0xDBFF && strings.HasPrefix(src[i:], `\u`) {
					if lo, m := ecmaUnicodeEscape(src[i+2:]); m > 0 && lo >= 0xDC00 && lo <= 0xDFFF {
						r = (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000
						i += 2 + m
					}
				}
				if r >= 0xD800 && r <= 0xDFFF {
					return "", fmt.Errorf("lone surrogate \\u%04X", r)
				}
				fmt.Fprintf(&b, `\x{%X}`, r)
			case 'p', 'P':
				b.WriteByte('\\')
				b.WriteByte(e)
			case 'k':
				return "", fmt.Errorf("backreferences are not supported")
			default:
				switch {
				case e >= '1' && e <= '9':
					return "", fmt.Errorf("backreferences are not supported")
				case e < utf8.RuneSelf && (unicode.IsLetter(rune(e)) || unicode.IsDigit(rune(e))):
					b.WriteByte(e) // identity escape
				case e < utf8.RuneSelf:
					b.WriteByte('\\')
					b.WriteByte(e)
				default:
					r, n := utf8.DecodeRuneInString(src[i-1:])
					b.WriteRune(r)
					i += n - 1
				}
			}
			classStart = false
			continue
		case inClass:
			switch {
			case c == ']' && !classStart:
				inClass = false
				b.WriteByte(']')
			case c == '[':
				b.WriteString(`\[`)
			case c == ']':
				b.WriteString(`\]`)
			default:
				b.WriteByte(c)
			}
			classStart = false
			i++
			continue
		case c == '[':
			switch {
			case strings.HasPrefix(src[i:], "[^]"):
				b.WriteString(`[\x{0}-\x{10FFFF}]`)
				i += 3
			case strings.HasPrefix(src[i:], "[]"):
				b.WriteString(`[^\x{0}-\x{10FFFF}]`)
				i += 2
			case strings.HasPrefix(src[i:], "[^"):
				b.WriteString("[^")
				inClass, classStart = true, false
				i += 2
			default:
				b.WriteByte('[')
				inClass, classStart = true, false
				i++
			}
			continue
		case c == '.':
			b.WriteString(`[^\n\r\x{2028}\x{2029}]`)
		case c == '(':
			switch {
			case strings.HasPrefix(src[i:], "(?=") || strings.HasPrefix(src[i:], "(?!"):
				return "", fmt.Errorf("%w is not supported", errLookahead)
			case strings.HasPrefix(src[i:], "(?<=") || strings.HasPrefix(src[i:], "(?<!"):
				return "", fmt.Errorf("lookbehind is not supported")
			case strings.HasPrefix(src[i:], "(?<"):
				b.WriteString("(?P<")
				i += 3
				continue
			}
			b.WriteByte(c)
		default:
			r, n := utf8.DecodeRuneInString(src[i:])
			b.WriteRune(r)
			i += n
			continue
		}
		i++
	}
	if inClass {
		return "", fmt.Errorf("missing closing ]")
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

// ecmaUnicodeEscape reads the XXXX of \uXXXX or the {X...} of \u{X...}.
func ecmaUnicodeEscape(s string) (rune, int) {
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 2 || end > 7 {
			return 0, 0
		}
		v, err := strconv.ParseUint(s[1:end], 16, 32)
		if err != nil || v > unicode.MaxRune {
			return 0, 0
		}
		return rune(v), end + 1
	}
	if len(s) < 4 {
		return 0, 0
	}
	v, err := strconv.ParseUint(s[:4], 16, 32)
	if err != nil {
		return 0, 0
	}
	return rune(v), 4
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
