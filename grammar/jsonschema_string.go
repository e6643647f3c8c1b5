package grammar

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
)

// JSON string characters. A decoded character can be spelled several ways
// in JSON text: literally, with a two-character escape, or as \uXXXX (and a
// surrogate pair above U+FFFF). Unconstrained strings accept all of them
// (jsAnyChar). Strings whose characters a pattern, format or enum
// constrains accept the canonical spelling only (charSet): it keeps those
// automata small, and exclusions (a key that must not be a declared name)
// sound.

var jsHex = Chars(false, RuneRange{'0', '9'}, RuneRange{'a', 'f'}, RuneRange{'A', 'F'})

// jsAnyChar matches one character of a JSON string in any valid spelling.
var jsAnyChar = sync.OnceValue(func() *Expr {
	literal := Chars(true, RuneRange{0, 0x1F}, RuneRange{'"', '"'}, RuneRange{'\\', '\\'})
	bmp := Or(
		Cat(Chars(false, RuneRange{'0', '9'}, RuneRange{'a', 'c'}, RuneRange{'A', 'C'}, RuneRange{'e', 'f'}, RuneRange{'E', 'F'}), jsHex, jsHex, jsHex),
		Cat(Chars(false, RuneRange{'d', 'd'}, RuneRange{'D', 'D'}), Chars(false, RuneRange{'0', '7'}), jsHex, jsHex),
	)
	pair := Cat(
		Chars(false, RuneRange{'d', 'd'}, RuneRange{'D', 'D'}), Chars(false, RuneRange{'8', '9'}, RuneRange{'a', 'b'}, RuneRange{'A', 'B'}), jsHex, jsHex,
		Lit(`\u`),
		Chars(false, RuneRange{'d', 'd'}, RuneRange{'D', 'D'}), Chars(false, RuneRange{'c', 'f'}, RuneRange{'C', 'F'}), jsHex, jsHex,
	)
	escape := Cat(Lit(`\`), Or(
		Chars(false, RuneRange{'"', '"'}, RuneRange{'\\', '\\'}, RuneRange{'/', '/'}, RuneRange{'b', 'b'}, RuneRange{'f', 'f'}, RuneRange{'n', 'n'}, RuneRange{'r', 'r'}, RuneRange{'t', 't'}),
		Cat(Lit("u"), Or(bmp, pair)),
	))
	return Or(literal, escape)
})

// jsNumberExpr matches any JSON number.
func jsNumberExpr() *Expr {
	digits := Rep(Chars(false, RuneRange{'0', '9'}), 1, -1)
	return Cat(
		Rep(Lit("-"), 0, 1),
		Or(Lit("0"), Cat(Chars(false, RuneRange{'1', '9'}), Rep(Chars(false, RuneRange{'0', '9'}), 0, -1))),
		Rep(Cat(Lit("."), digits), 0, 1),
		Rep(Cat(Chars(false, RuneRange{'e', 'e'}, RuneRange{'E', 'E'}), Rep(Chars(false, RuneRange{'+', '+'}, RuneRange{'-', '-'}), 0, 1), digits), 0, 1),
	)
}

// charSet matches one character from rs (normalized) in its canonical spelling.
func (c *schemaCompiler) charSet(rs []RuneRange) *Expr {
	var key strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&key, "%x-%x,", r.Lo, r.Hi)
	}
	if e, ok := c.charMemo[key.String()]; ok {
		return e
	}
	e := jsCharSet(rs)
	c.charMemo[key.String()] = e
	return e
}

func jsCharSet(rs []RuneRange) *Expr {
	var lit []RuneRange
	var alts []*Expr
	var ctl [2][]RuneRange // \u000X and \u001X: the X values
	for _, r := range rs {
		for x := r.Lo; x <= r.Hi && x < 0x20; x++ {
			switch x {
			case '\b':
				alts = append(alts, Lit(`\b`))
			case '\t':
				alts = append(alts, Lit(`\t`))
			case '\n':
				alts = append(alts, Lit(`\n`))
			case '\f':
				alts = append(alts, Lit(`\f`))
			case '\r':
				alts = append(alts, Lit(`\r`))
			default:
				ctl[x>>4] = append(ctl[x>>4], jsHexDigitRanges(int(x&15))...)
			}
		}
		lo := max(r.Lo, 0x20)
		for _, special := range []rune{'"', '\\'} {
			if lo <= special && special <= r.Hi {
				if special == '"' {
					alts = append(alts, Lit(`\"`))
				} else {
					alts = append(alts, Lit(`\\`))
				}
			}
		}
		if lo <= r.Hi {
			lit = append(lit, RuneRange{lo, r.Hi})
		}
	}
	for i, ds := range ctl {
		if len(ds) > 0 {
			alts = append(alts, Cat(Lit(fmt.Sprintf(`\u00%d`, i)), Chars(false, ds...)))
		}
	}
	if len(lit) > 0 {
		lit = removeSurrogates(lit)
		cls := Chars(true, RuneRange{0, 0x1F}, RuneRange{'"', '"'}, RuneRange{'\\', '\\'})
		inter := jsIntersectRanges(NormalizeRanges(lit), cls.Ranges)
		if len(inter) > 0 {
			alts = append([]*Expr{{Kind: Class, Ranges: inter}}, alts...)
		}
	}
	switch len(alts) {
	case 0:
		return nil
	case 1:
		return alts[0]
	}
	return Or(alts...)
}

func jsHexDigitRanges(v int) []RuneRange {
	if v < 10 {
		return []RuneRange{{rune('0' + v), rune('0' + v)}}
	}
	return []RuneRange{{rune('a' + v - 10), rune('a' + v - 10)}, {rune('A' + v - 10), rune('A' + v - 10)}}
}

// jsIntersectRanges intersects two normalized range lists.
func jsIntersectRanges(a, b []RuneRange) []RuneRange {
	var out []RuneRange
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		lo, hi := max(a[i].Lo, b[j].Lo), min(a[i].Hi, b[j].Hi)
		if lo <= hi {
			out = append(out, RuneRange{lo, hi})
		}
		if a[i].Hi < b[j].Hi {
			i++
		} else {
			j++
		}
	}
	return out
}

// Formats. Each is an RE2 pattern for the whole string.
var jsFormats = map[string]string{
	"date":                  jsFormatDate,
	"time":                  jsFormatTime,
	"date-time":             jsFormatDate + `[Tt]` + jsFormatTime,
	"duration":              `P(([0-9]+D|[0-9]+M([0-9]+D)?|[0-9]+Y([0-9]+M([0-9]+D)?)?)(T([0-9]+H([0-9]+M([0-9]+S)?)?|[0-9]+M([0-9]+S)?|[0-9]+S))?|T([0-9]+H([0-9]+M([0-9]+S)?)?|[0-9]+M([0-9]+S)?|[0-9]+S)|[0-9]+W)`,
	"email":                 `[A-Za-z0-9!#$%&'*+/=?^_` + "`" + `{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_` + "`" + `{|}~-]+)*@` + jsFormatHostname,
	"idn-email":             `[^@\s"]+@[^@\s"]+`,
	"hostname":              jsFormatHostname,
	"idn-hostname":          `[\p{L}\p{N}]([\p{L}\p{N}\p{M}-]*[\p{L}\p{N}])?(\.[\p{L}\p{N}]([\p{L}\p{N}\p{M}-]*[\p{L}\p{N}])?)*`,
	"ipv4":                  jsFormatIPv4,
	"ipv6":                  jsFormatIPv6,
	"uuid":                  `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`,
	"uri":                   `[A-Za-z][A-Za-z0-9+.\-]*:` + jsFormatURIChars + `*`,
	"uri-reference":         `([A-Za-z][A-Za-z0-9+.\-]*:)?` + jsFormatURIChars + `*`,
	"iri":                   `[A-Za-z][A-Za-z0-9+.\-]*:` + jsFormatIRIChars + `*`,
	"iri-reference":         `([A-Za-z][A-Za-z0-9+.\-]*:)?` + jsFormatIRIChars + `*`,
	"uri-template":          `(` + jsFormatURIChars + `|\{[+#./;?&=,!@|]?[A-Za-z0-9_.%]+(:[1-9][0-9]{0,3}|\*)?(,[A-Za-z0-9_.%]+(:[1-9][0-9]{0,3}|\*)?)*\})*`,
	"json-pointer":          `(/([^/~]|~[01])*)*`,
	"relative-json-pointer": `(0|[1-9][0-9]*)(#|(/([^/~]|~[01])*)*)`,
}

const (
	// jsFormatDate is a calendar date: 30-day months end on the 30th,
	// February on the 28th, or the 29th in leap years (years divisible by 4,
	// centuries only when divisible by 400).
	jsFormatDate = `([0-9]{4}-(0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])` +
		`|[0-9]{4}-(0[469]|11)-(0[1-9]|[12][0-9]|30)` +
		`|[0-9]{4}-02-(0[1-9]|1[0-9]|2[0-8])` +
		`|([0-9]{2}(0[48]|[2468][048]|[13579][26])|([02468][048]|[13579][26])00)-02-29)`
	jsFormatTime     = `([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])`
	jsFormatLabel    = `[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?`
	jsFormatHostname = jsFormatLabel + `(\.` + jsFormatLabel + `)*`
	jsFormatOctet    = `(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])`
	jsFormatIPv4     = jsFormatOctet + `(\.` + jsFormatOctet + `){3}`
	jsFormatH16      = `[0-9A-Fa-f]{1,4}`
	jsFormatLS32     = `(` + jsFormatH16 + `:` + jsFormatH16 + `|` + jsFormatIPv4 + `)`
	jsFormatIPv6     = `((` + jsFormatH16 + `:){6}` + jsFormatLS32 +
		`|::(` + jsFormatH16 + `:){5}` + jsFormatLS32 +
		`|(` + jsFormatH16 + `)?::(` + jsFormatH16 + `:){4}` + jsFormatLS32 +
		`|((` + jsFormatH16 + `:){0,1}` + jsFormatH16 + `)?::(` + jsFormatH16 + `:){3}` + jsFormatLS32 +
		`|((` + jsFormatH16 + `:){0,2}` + jsFormatH16 + `)?::(` + jsFormatH16 + `:){2}` + jsFormatLS32 +
		`|((` + jsFormatH16 + `:){0,3}` + jsFormatH16 + `)?::` + jsFormatH16 + `:` + jsFormatLS32 +
		`|((` + jsFormatH16 + `:){0,4}` + jsFormatH16 + `)?::` + jsFormatLS32 +
		`|((` + jsFormatH16 + `:){0,5}` + jsFormatH16 + `)?::` + jsFormatH16 +
		`|((` + jsFormatH16 + `:){0,6}` + jsFormatH16 + `)?::)`
	jsFormatURIChars = `([A-Za-z0-9\-._~!$&'()*+,;=:@/?#\[\]]|%[0-9A-Fa-f]{2})`
	jsFormatIRIChars = `([A-Za-z0-9\-._~!$&'()*+,;=:@/?#\[\]\x{A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}\x{10000}-\x{10FFFF}]|%[0-9A-Fa-f]{2})`
)

var jsFormatRegexps = sync.OnceValue(func() map[string]*regexp.Regexp {
	m := map[string]*regexp.Regexp{}
	for name, src := range jsFormats {
		m[name] = regexp.MustCompile(`^(?:` + src + `)$`)
	}
	return m
})

// jsStringPart is one constraint on a string's characters, as a regex over
// the whole string.
type jsStringPart struct {
	re  *syntax.Regexp
	loc jsLoc
	kw  string
}

// stringParts returns the pattern and format constraints of s as regexes.
func (c *schemaCompiler) stringParts(s *jsSchema) ([]jsStringPart, error) {
	var parts []jsStringPart
	for _, f := range s.formats {
		src, ok := jsFormats[f.val]
		if !ok {
			c.warn(f.ptr, "format", "unknown format %q is not checked", f.val)
			continue
		}
		re, err := syntax.Parse(`^(?:`+src+`)$`, syntax.Perl)
		if err != nil {
			return nil, err
		}
		parts = append(parts, jsStringPart{re, f, "format"})
	}
	for _, p := range s.patterns {
		jp, err := c.pattern(p, "pattern")
		if err != nil {
			return nil, err
		}
		parts = append(parts, jsStringPart{jp.re, p, "pattern"})
	}
	return parts, nil
}

// compileString compiles the string type of a branch.
func (c *schemaCompiler) compileString(s *jsSchema) (*Expr, error) {
	minLen, maxLen := s.minLen, s.maxLen
	if maxLen >= 0 && minLen > maxLen {
		return nil, nil
	}
	parts, err := c.stringParts(s)
	if err != nil {
		return nil, err
	}
	var excluded []string
	for _, v := range s.notVals {
		if v.kind == jsString {
			excluded = append(excluded, v.str)
		}
	}
	if len(parts) == 0 && len(s.notPatterns) == 0 && len(excluded) == 0 {
		if minLen == 0 && maxLen < 0 {
			r, err := c.anyStringRule()
			return Call(r), err
		}
		body, err := c.bigRepeat(jsAnyChar(), minLen, maxLen, "string")
		if err != nil {
			return nil, err
		}
		return c.cat(Lit(`"`), body, Lit(`"`)), nil
	}
	if len(parts) == 1 && len(s.notPatterns) == 0 && len(excluded) == 0 {
		body, ok, err := c.stringRegex(parts[0], minLen, maxLen)
		if err != nil {
			return nil, err
		}
		if ok {
			if body == nil {
				return nil, nil
			}
			return c.cat(Lit(`"`), body, Lit(`"`)), nil
		}
	}
	body, err := c.stringAutomaton(s, parts, excluded, minLen, maxLen)
	if err != nil || body == nil {
		return nil, err
	}
	return c.cat(Lit(`"`), body, Lit(`"`)), nil
}

// stringRegex compiles one pattern or format together with the length
// bounds, when the bounds can be folded into the regex (or are implied by it).
func (c *schemaCompiler) stringRegex(p jsStringPart, minLen, maxLen int) (*Expr, bool, error) {
	alts, err := jsSplitAnchors(p.re)
	if err != nil {
		return nil, false, c.errorf(p.loc.ptr, p.kw, ErrUnsupported, "%q: %v", p.loc.val, err)
	}
	var out []*Expr
	for _, a := range alts {
		re := a.re
		var subs []*syntax.Regexp
		if !a.start {
			subs = append(subs, jsAnyStar())
		}
		subs = append(subs, re)
		if !a.end {
			subs = append(subs, jsAnyStar())
		}
		if len(subs) > 1 {
			re = &syntax.Regexp{Op: syntax.OpConcat, Sub: subs}
		}
		if minLen > 0 || maxLen >= 0 {
			lo, hi := jsLenRange(re)
			if lo < minLen || (maxLen >= 0 && (hi < 0 || hi > maxLen)) {
				var ok bool
				if re, ok = jsRestrictLength(re, minLen, maxLen); !ok {
					return nil, false, nil
				}
			}
		}
		e, err := c.regexToExpr(re)
		if err != nil {
			return nil, false, c.errorf(p.loc.ptr, p.kw, ErrUnsupported, "%q: %v", p.loc.val, err)
		}
		out = append(out, e)
	}
	return c.or(out...), true, nil
}

func jsAnyStar() *syntax.Regexp {
	return &syntax.Regexp{Op: syntax.OpStar, Sub: []*syntax.Regexp{{Op: syntax.OpAnyChar}}}
}

// jsLenRange returns the least and greatest number of characters re
// matches (hi < 0: unbounded).
func jsLenRange(re *syntax.Regexp) (lo, hi int) {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, 0
	case syntax.OpLiteral:
		return len(re.Rune), len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1, 1
	case syntax.OpCapture:
		return jsLenRange(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		l, h := jsLenRange(re.Sub[0])
		mn, mx := jsRepeatBounds(re)
		lo = l * mn
		switch {
		case h == 0:
			hi = 0
		case mx < 0 || h < 0:
			hi = -1
		default:
			hi = h * mx
		}
		return lo, hi
	case syntax.OpConcat:
		for _, s := range re.Sub {
			l, h := jsLenRange(s)
			lo += l
			if hi >= 0 {
				if h < 0 {
					hi = -1
				} else {
					hi += h
				}
			}
		}
		return lo, hi
	case syntax.OpAlternate:
		lo = -1
		for _, s := range re.Sub {
			l, h := jsLenRange(s)
			if lo < 0 || l < lo {
				lo = l
			}
			if hi >= 0 && (h < 0 || h > hi) {
				hi = h
			}
		}
		return max(lo, 0), hi
	}
	return 0, -1
}

func jsRepeatBounds(re *syntax.Regexp) (int, int) {
	switch re.Op {
	case syntax.OpStar:
		return 0, -1
	case syntax.OpPlus:
		return 1, -1
	case syntax.OpQuest:
		return 0, 1
	}
	return re.Min, re.Max
}

// jsRestrictLength rewrites re so that it matches only strings of length
// [minLen, maxLen], when re is a sequence of fixed-length parts and one
// repetition of a single character: the repetition's bounds absorb the limits.
func jsRestrictLength(re *syntax.Regexp, minLen, maxLen int) (*syntax.Regexp, bool) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	fixed, vi := 0, -1
	for i, s := range subs {
		l, h := jsLenRange(s)
		if l == h {
			fixed += l
			continue
		}
		if vi >= 0 {
			return nil, false
		}
		vi = i
	}
	if vi < 0 {
		if fixed < minLen || (maxLen >= 0 && fixed > maxLen) {
			return &syntax.Regexp{Op: syntax.OpNoMatch}, true
		}
		return re, true
	}
	v := subs[vi]
	for v.Op == syntax.OpCapture {
		v = v.Sub[0]
	}
	switch v.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
	default:
		return nil, false
	}
	if l, h := jsLenRange(v.Sub[0]); l != 1 || h != 1 {
		return nil, false
	}
	mn, mx := jsRepeatBounds(v)
	mn = max(mn, minLen-fixed)
	if maxLen >= 0 && (mx < 0 || mx > maxLen-fixed) {
		mx = maxLen - fixed
	}
	out := make([]*syntax.Regexp, len(subs))
	copy(out, subs)
	if mx >= 0 && mn > mx {
		return &syntax.Regexp{Op: syntax.OpNoMatch}, true
	}
	out[vi] = &syntax.Regexp{Op: syntax.OpRepeat, Min: mn, Max: mx, Sub: v.Sub}
	if len(out) == 1 {
		return out[0], true
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Sub: out}, true
}
