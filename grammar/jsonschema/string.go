package jsonschema

import (
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"sync"

	"github.com/reinlm/rein/fsm"
	"github.com/reinlm/rein/grammar"
)

// JSON string characters. A decoded character can be spelled several ways
// in JSON text: literally, with a two-character escape, or as \uXXXX (and a
// surrogate pair above U+FFFF). Unconstrained strings accept all of them
// (anyChar). Strings whose characters a pattern, format or enum
// constrains accept the canonical spelling only (charSet): it keeps those
// automata small, and exclusions (a key that must not be a declared name)
// sound.

var hex = grammar.Chars(false, grammar.RuneRange{Lo: '0', Hi: '9'}, grammar.RuneRange{Lo: 'a', Hi: 'f'}, grammar.RuneRange{Lo: 'A', Hi: 'F'})

// anyLiteral is every character a JSON string may hold unescaped.
var anyLiteral = grammar.Chars(true, grammar.RuneRange{Lo: 0, Hi: 0x1F}, grammar.RuneRange{Lo: '"', Hi: '"'}, grammar.RuneRange{Lo: '\\', Hi: '\\'})

// anyEscape matches every escape sequence of JSON: the two-character ones
// and \uXXXX (surrogates only as a high-low pair).
var anyEscape = sync.OnceValue(func() *grammar.Expr {
	bmp := grammar.Or(
		grammar.Cat(grammar.Chars(false, grammar.RuneRange{Lo: '0', Hi: '9'}, grammar.RuneRange{Lo: 'a', Hi: 'c'}, grammar.RuneRange{Lo: 'A', Hi: 'C'}, grammar.RuneRange{Lo: 'e', Hi: 'f'}, grammar.RuneRange{Lo: 'E', Hi: 'F'}), hex, hex, hex),
		grammar.Cat(grammar.Chars(false, grammar.RuneRange{Lo: 'd', Hi: 'd'}, grammar.RuneRange{Lo: 'D', Hi: 'D'}), grammar.Chars(false, grammar.RuneRange{Lo: '0', Hi: '7'}), hex, hex),
	)
	pair := grammar.Cat(
		grammar.Chars(false, grammar.RuneRange{Lo: 'd', Hi: 'd'}, grammar.RuneRange{Lo: 'D', Hi: 'D'}), grammar.Chars(false, grammar.RuneRange{Lo: '8', Hi: '9'}, grammar.RuneRange{Lo: 'a', Hi: 'b'}, grammar.RuneRange{Lo: 'A', Hi: 'B'}), hex, hex,
		grammar.Lit(`\u`),
		grammar.Chars(false, grammar.RuneRange{Lo: 'd', Hi: 'd'}, grammar.RuneRange{Lo: 'D', Hi: 'D'}), grammar.Chars(false, grammar.RuneRange{Lo: 'c', Hi: 'f'}, grammar.RuneRange{Lo: 'C', Hi: 'F'}), hex, hex,
	)
	return grammar.Cat(grammar.Lit(`\`), grammar.Or(
		grammar.Chars(false, grammar.RuneRange{Lo: '"', Hi: '"'}, grammar.RuneRange{Lo: '\\', Hi: '\\'}, grammar.RuneRange{Lo: '/', Hi: '/'}, grammar.RuneRange{Lo: 'b', Hi: 'b'}, grammar.RuneRange{Lo: 'f', Hi: 'f'}, grammar.RuneRange{Lo: 'n', Hi: 'n'}, grammar.RuneRange{Lo: 'r', Hi: 'r'}, grammar.RuneRange{Lo: 't', Hi: 't'}),
		grammar.Cat(grammar.Lit("u"), grammar.Or(bmp, pair)),
	))
})

// anyChar matches one character of a JSON string in any valid spelling.
func anyChar() *grammar.Expr { return grammar.Or(anyLiteral, anyEscape()) }

// anyCharCounted is anyChar for counted repetitions: the escapes are a
// rule of their own, so that every counted position adds one automaton
// state rather than a dozen.
func (c *compiler) anyCharCounted() (*grammar.Expr, error) {
	r, ok := c.escRules["any"]
	if !ok {
		var err error
		if r, err = c.newRule("any-escape", anyEscape()); err != nil {
			return nil, err
		}
		c.escRules["any"] = r
	}
	return grammar.Or(anyLiteral, grammar.Call(r)), nil
}

// numberExpr matches any JSON number.
func numberExpr() *grammar.Expr {
	digits := grammar.Rep(grammar.Chars(false, grammar.RuneRange{Lo: '0', Hi: '9'}), 1, -1)
	return grammar.Cat(
		grammar.Rep(grammar.Lit("-"), 0, 1),
		grammar.Or(grammar.Lit("0"), grammar.Cat(grammar.Chars(false, grammar.RuneRange{Lo: '1', Hi: '9'}), grammar.Rep(grammar.Chars(false, grammar.RuneRange{Lo: '0', Hi: '9'}), 0, -1))),
		grammar.Rep(grammar.Cat(grammar.Lit("."), digits), 0, 1),
		grammar.Rep(grammar.Cat(grammar.Chars(false, grammar.RuneRange{Lo: 'e', Hi: 'e'}, grammar.RuneRange{Lo: 'E', Hi: 'E'}), grammar.Rep(grammar.Chars(false, grammar.RuneRange{Lo: '+', Hi: '+'}, grammar.RuneRange{Lo: '-', Hi: '-'}), 0, 1), digits), 0, 1),
	)
}

// charSet matches one character from rs (normalized) in its canonical spelling.
func (c *compiler) charSet(rs []grammar.RuneRange) *grammar.Expr {
	key := c.charKey[:0]
	for _, r := range rs {
		key = binary.AppendUvarint(key, uint64(r.Lo))
		key = binary.AppendUvarint(key, uint64(r.Hi))
	}
	c.charKey = key
	if e, ok := c.charMemo[string(key)]; ok {
		return e
	}
	class, escaped := literalClass(rs)
	alts := c.escapes(escaped)
	if class != nil {
		alts = append([]*grammar.Expr{class}, alts...)
	}
	var e *grammar.Expr
	switch len(alts) {
	case 0:
	case 1:
		e = alts[0]
	default:
		e = grammar.Or(alts...)
	}
	c.charMemo[string(key)] = e
	return e
}

// The characters a JSON string must escape, as bits of a mask: bit x for the
// control character x (below 0x20), and these two.
const (
	escQuote     = 1 << 32
	escBackslash = 1 << 33
)

// literalClass returns the class of the characters of rs (normalized) that
// a JSON string holds as they are, nil if none, and the mask of those it
// must escape.
func literalClass(rs []grammar.RuneRange) (*grammar.Expr, uint64) {
	var escaped uint64
	var lit []grammar.RuneRange
	for _, r := range rs {
		for x := r.Lo; x <= r.Hi && x < 0x20; x++ {
			escaped |= 1 << x
		}
		lo := max(r.Lo, 0x20)
		if lo <= '"' && '"' <= r.Hi {
			escaped |= escQuote
		}
		if lo <= '\\' && '\\' <= r.Hi {
			escaped |= escBackslash
		}
		if lo <= r.Hi {
			lit = append(lit, grammar.RuneRange{Lo: lo, Hi: r.Hi})
		}
	}
	if len(lit) == 0 {
		return nil, escaped
	}
	inter := intersectRanges(grammar.NormalizeRanges(lit), anyLiteral.Ranges)
	if len(inter) == 0 {
		return nil, escaped
	}
	return &grammar.Expr{Op: grammar.OpClass, Ranges: inter}, escaped
}

// escapes returns the alternatives that spell the characters of mask (see
// escQuote) as escape sequences: the sequences themselves when they are
// few, or else a call of a rule of them, one per mask and compile, which
// keeps counted repetitions of a negated class small. The slice is the
// caller's.
func (c *compiler) escapes(mask uint64) []*grammar.Expr {
	if mask == 0 {
		return nil
	}
	if r, ok := c.escMasks[mask]; ok {
		return []*grammar.Expr{grammar.Call(r)}
	}
	esc := escapeSeqs(mask)
	if len(esc) <= 2 {
		return esc
	}
	r := c.addRule("escape", grammar.Or(esc...))
	c.escMasks[mask] = r
	return []*grammar.Expr{grammar.Call(r)}
}

// escapeSeqs spells the characters of mask as JSON escape sequences: the
// short escapes in order, then the quote and the backslash, then \u000X
// and \u001X with the hex digits X may take.
func escapeSeqs(mask uint64) []*grammar.Expr {
	var alts []*grammar.Expr
	var ctl [2][]grammar.RuneRange // \u000X and \u001X: the X values
	for x := range 0x20 {
		if mask&(1<<x) == 0 {
			continue
		}
		switch x {
		case '\b':
			alts = append(alts, grammar.Lit(`\b`))
		case '\t':
			alts = append(alts, grammar.Lit(`\t`))
		case '\n':
			alts = append(alts, grammar.Lit(`\n`))
		case '\f':
			alts = append(alts, grammar.Lit(`\f`))
		case '\r':
			alts = append(alts, grammar.Lit(`\r`))
		default:
			ctl[x>>4] = append(ctl[x>>4], hexDigitRanges(x&15)...)
		}
	}
	if mask&escQuote != 0 {
		alts = append(alts, grammar.Lit(`\"`))
	}
	if mask&escBackslash != 0 {
		alts = append(alts, grammar.Lit(`\\`))
	}
	for i, ds := range ctl {
		if len(ds) > 0 {
			alts = append(alts, grammar.Cat(grammar.Lit(`\u00`+strconv.Itoa(i)), grammar.Chars(false, ds...)))
		}
	}
	return alts
}

func hexDigitRanges(v int) []grammar.RuneRange {
	if v < 10 {
		return []grammar.RuneRange{{Lo: rune('0' + v), Hi: rune('0' + v)}}
	}
	return []grammar.RuneRange{{Lo: rune('a' + v - 10), Hi: rune('a' + v - 10)}, {Lo: rune('A' + v - 10), Hi: rune('A' + v - 10)}}
}

// intersectRanges intersects two normalized range lists.
func intersectRanges(a, b []grammar.RuneRange) []grammar.RuneRange {
	var out []grammar.RuneRange
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		lo, hi := max(a[i].Lo, b[j].Lo), min(a[i].Hi, b[j].Hi)
		if lo <= hi {
			out = append(out, grammar.RuneRange{Lo: lo, Hi: hi})
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
var formats = map[string]string{
	"date":                  formatDate,
	"time":                  formatTime,
	"date-time":             formatDate + `[Tt]` + formatTime,
	"duration":              `P(([0-9]+D|[0-9]+M([0-9]+D)?|[0-9]+Y([0-9]+M([0-9]+D)?)?)(T([0-9]+H([0-9]+M([0-9]+S)?)?|[0-9]+M([0-9]+S)?|[0-9]+S))?|T([0-9]+H([0-9]+M([0-9]+S)?)?|[0-9]+M([0-9]+S)?|[0-9]+S)|[0-9]+W)`,
	"email":                 emailGrammar(false),
	"idn-email":             emailGrammar(true),
	"hostname":              formatHostname,
	"idn-hostname":          formatIDNHostname,
	"ipv4":                  formatIPv4,
	"ipv6":                  formatIPv6,
	"uuid":                  `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`,
	"uri":                   uriGrammar(false).absolute,
	"uri-reference":         uriGrammar(false).reference,
	"iri":                   uriGrammar(true).absolute,
	"iri-reference":         uriGrammar(true).reference,
	"uri-template":          formatURITemplate,
	"json-pointer":          `(/([^/~]|~[01])*)*`,
	"relative-json-pointer": `(0|[1-9][0-9]*)(#|(/([^/~]|~[01])*)*)`,
}

const (
	// formatDate is a calendar date: 30-day months end on the 30th,
	// February on the 28th, or the 29th in leap years (years divisible by 4,
	// centuries only when divisible by 400).
	formatDate = `([0-9]{4}-(0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])` +
		`|[0-9]{4}-(0[469]|11)-(0[1-9]|[12][0-9]|30)` +
		`|[0-9]{4}-02-(0[1-9]|1[0-9]|2[0-8])` +
		`|([0-9]{2}(0[48]|[2468][048]|[13579][26])|([02468][048]|[13579][26])00)-02-29)`
	formatTime        = `([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])`
	formatIDNHostname = `[\p{L}\p{N}]([\p{L}\p{N}\p{M}-]*[\p{L}\p{N}])?(\.[\p{L}\p{N}]([\p{L}\p{N}\p{M}-]*[\p{L}\p{N}])?)*`
	formatLabel       = `[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?`
	formatHostname    = formatLabel + `(\.` + formatLabel + `)*`
	formatOctet       = `(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])`
	formatIPv4        = formatOctet + `(\.` + formatOctet + `){3}`
	formatH16         = `[0-9A-Fa-f]{1,4}`
	formatLS32        = `(` + formatH16 + `:` + formatH16 + `|` + formatIPv4 + `)`
	formatIPv6        = `((` + formatH16 + `:){6}` + formatLS32 +
		`|::(` + formatH16 + `:){5}` + formatLS32 +
		`|(` + formatH16 + `)?::(` + formatH16 + `:){4}` + formatLS32 +
		`|((` + formatH16 + `:){0,1}` + formatH16 + `)?::(` + formatH16 + `:){3}` + formatLS32 +
		`|((` + formatH16 + `:){0,2}` + formatH16 + `)?::(` + formatH16 + `:){2}` + formatLS32 +
		`|((` + formatH16 + `:){0,3}` + formatH16 + `)?::` + formatH16 + `:` + formatLS32 +
		`|((` + formatH16 + `:){0,4}` + formatH16 + `)?::` + formatLS32 +
		`|((` + formatH16 + `:){0,5}` + formatH16 + `)?::` + formatH16 +
		`|((` + formatH16 + `:){0,6}` + formatH16 + `)?::)`

	// RFC 3987's ucschar (what an IRI adds to a URI's unreserved
	// characters) and iprivate (allowed in a query), without the
	// brackets of a class.
	formatUCSChar = `\x{A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}\x{10000}-\x{1FFFD}\x{20000}-\x{2FFFD}\x{30000}-\x{3FFFD}` +
		`\x{40000}-\x{4FFFD}\x{50000}-\x{5FFFD}\x{60000}-\x{6FFFD}\x{70000}-\x{7FFFD}\x{80000}-\x{8FFFD}\x{90000}-\x{9FFFD}` +
		`\x{A0000}-\x{AFFFD}\x{B0000}-\x{BFFFD}\x{C0000}-\x{CFFFD}\x{D0000}-\x{DFFFD}\x{E1000}-\x{EFFFD}`
	formatIPrivate = `\x{E000}-\x{F8FF}\x{F0000}-\x{FFFFD}\x{100000}-\x{10FFFD}`

	// RFC 6570, level 4: literals between expressions {op var,var:3,var*};
	// the literals take an apostrophe too (erratum 6937).
	formatURITemplate = `([!#$&-;=?-\[\]_a-z~` + formatUCSChar + formatIPrivate + `]|%[0-9A-Fa-f]{2}` +
		`|\{[+#./;?&=,!@|]?` + formatVarSpec + `(,` + formatVarSpec + `)*\})*`
	formatVarChar = `([A-Za-z0-9_]|%[0-9A-Fa-f]{2})`
	formatVarSpec = formatVarChar + `(\.?` + formatVarChar + `)*(:[1-9][0-9]{0,3}|\*)?`
)

// emailGrammar writes RFC 5321's Mailbox (idn: RFC 6531's, whose atext and
// qtext add every non-ASCII character and whose domain is an idn-hostname)
// as an RE2 pattern: a dot-string or a quoted string, "@", then a domain or
// an address literal ([IPv4] or [IPv6:…]). The local part's bound of 64
// octets is not checked.
func emailGrammar(idn bool) string {
	atext := `A-Za-z0-9!#$%&'*+/=?^_` + "`" + `{|}~\-`
	qtext := `\x20\x21\x23-\x5B\x5D-\x7E`
	domain := formatHostname
	if idn {
		atext += `\x{80}-\x{10FFFF}`
		qtext += `\x{80}-\x{10FFFF}`
		domain = formatIDNHostname
	}
	local := `([` + atext + `]+(\.[` + atext + `]+)*|"([` + qtext + `]|\\[\x20-\x7E])*")`
	literal := `\[(` + formatIPv4 + `|IPv6:` + formatIPv6 + `)\]`
	return local + `@(` + domain + `|` + literal + `)`
}

// uriRegexps holds RFC 3986's URI and URI-reference, or RFC 3987's IRI and
// IRI-reference, as RE2 patterns.
type uriRegexps struct{ absolute, reference string }

// uriGrammar writes RFC 3986's grammar (iri: RFC 3987's, whose unreserved
// characters add ucschar and whose query adds iprivate) as RE2 patterns:
// scheme ":" hier-part ["?" query] ["#" fragment], where hier-part is
// "//" authority path-abempty, path-absolute, path-rootless or empty, and
// a relative reference has path-noscheme (no ':' in its first segment)
// in place of path-rootless. authority is [userinfo "@"] host [":" port],
// host an IP-literal ([IPv6] or [vX.…]), an IPv4 address or a reg-name.
func uriGrammar(iri bool) uriRegexps {
	unreserved := `A-Za-z0-9\-._~`
	if iri {
		unreserved += formatUCSChar
	}
	const subDelims = `!$&'()*+,;=`
	pct := `%[0-9A-Fa-f]{2}`
	class := func(extra string) string { return `([` + unreserved + subDelims + extra + `]|` + pct + `)` }
	pchar := class(`:@`)
	userinfo := class(`:`) + `*`
	regName := class(``) + `*`
	// An IPv6 literal is checked for its characters (and an embedded IPv4
	// address in full), not as an address: the exact one makes the
	// automaton of a URI beside a pattern too large to write out.
	ipLiteral := `\[([0-9A-Fa-f]*(:[0-9A-Fa-f]*)+(:` + formatIPv4 + `)?|[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~` + subDelims + `:]+)\]`
	host := `(` + ipLiteral + `|` + formatIPv4 + `|` + regName + `)`
	authority := `(` + userinfo + `@)?` + host + `(:[0-9]*)?`
	segment := pchar + `*`
	segmentNZ := pchar + `+`
	pathAbempty := `(/` + segment + `)*`
	pathAbsolute := `/(` + segmentNZ + pathAbempty + `)?`
	pathRootless := segmentNZ + pathAbempty
	pathNoScheme := class(`@`) + `+` + pathAbempty
	queryChar := `[/?]`
	if iri {
		queryChar = `[/?` + formatIPrivate + `]`
	}
	query := `(\?(` + pchar + `|` + queryChar + `)*)?`
	fragment := `(#(` + pchar + `|[/?])*)?`
	scheme := `[A-Za-z][A-Za-z0-9+.\-]*`
	hier := `(//` + authority + pathAbempty + `|` + pathAbsolute + `|` + pathRootless + `)?`
	relative := `(//` + authority + pathAbempty + `|` + pathAbsolute + `|` + pathNoScheme + `)?`
	abs := scheme + `:` + hier + query + fragment
	return uriRegexps{absolute: abs, reference: `(` + abs + `|` + relative + query + fragment + `)`}
}

var formatRegexps = sync.OnceValue(func() map[string]*regexp.Regexp {
	m := map[string]*regexp.Regexp{}
	for name, src := range formats {
		m[name] = regexp.MustCompile(`^(?:` + src + `)$`)
	}
	return m
})

// stringPart is one constraint on a string's characters, as a regex over
// the whole string.
type stringPart struct {
	re  *syntax.Regexp
	loc loc
	kw  string
}

// stringParts returns the pattern and format constraints of s as regexes.
func (c *compiler) stringParts(s *schema) ([]stringPart, error) {
	var parts []stringPart
	for _, f := range s.formats {
		src, ok := formats[f.val]
		if !ok {
			c.warn(f.ptr, "format", "unknown format %q is not checked", f.val)
			continue
		}
		re, err := syntax.Parse(`^(?:`+src+`)$`, syntax.Perl)
		if err != nil {
			return nil, err
		}
		parts = append(parts, stringPart{re, f, "format"})
	}
	for _, p := range s.patterns {
		jp, err := c.pattern(p, "pattern")
		if err == nil {
			err = checkSearch(jp.re)
			if err != nil {
				err = c.errorf(p.ptr, "pattern", grammar.ErrUnsupported, "pattern %q: %v", p.val, err)
			}
		}
		if errors.Is(err, grammar.ErrUnsupported) && c.opts.Lenient {
			c.warn(p.ptr, "pattern", "%v (ignored)", err)
			continue
		}
		if err != nil {
			return nil, err
		}
		parts = append(parts, stringPart{jp.re, p, "pattern"})
	}
	return parts, nil
}

// checkSearch reports constructs of re that grammars cannot express:
// anchors other than at the ends of top-level alternatives, word boundaries.
func checkSearch(re *syntax.Regexp) error {
	alts, err := splitAnchors(re)
	if err != nil {
		return err
	}
	var check func(r *syntax.Regexp) error
	check = func(r *syntax.Regexp) error {
		switch r.Op {
		case syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine:
			return fmt.Errorf("anchors are only supported at the start and end of the pattern")
		case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			return fmt.Errorf(`word boundaries (\b, \B) are not supported`)
		}
		for _, s := range r.Sub {
			if err := check(s); err != nil {
				return err
			}
		}
		return nil
	}
	for _, a := range alts {
		if err := check(a.re); err != nil {
			return err
		}
	}
	return nil
}

// compileString compiles the string type of a branch.
func (c *compiler) compileString(s *schema) (*grammar.Expr, error) {
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
		if v.kind == kindString {
			excluded = append(excluded, v.str)
		}
	}
	negated := len(s.notPatterns)+len(s.notFormats) > 0
	if len(parts) == 0 && !negated && len(excluded) == 0 {
		if minLen == 0 && maxLen < 0 {
			r, err := c.anyStringRule()
			return grammar.Call(r), err
		}
		ch, err := c.anyCharCounted()
		if err != nil {
			return nil, err
		}
		body, err := c.bigRepeat(ch, minLen, maxLen, "string")
		if err != nil {
			return nil, err
		}
		return c.cat(grammar.Lit(`"`), body, grammar.Lit(`"`)), nil
	}
	if len(parts) == 1 && !negated && len(excluded) == 0 {
		body, ok, err := c.stringRegex(parts[0], minLen, maxLen)
		if err != nil {
			return nil, err
		}
		if ok {
			if body == nil {
				return nil, nil
			}
			return c.cat(grammar.Lit(`"`), body, grammar.Lit(`"`)), nil
		}
	}
	body, err := c.stringAutomaton(s, parts, excluded, minLen, maxLen)
	if errors.Is(err, errAutomatonSize) && len(parts) == 1 && !negated && len(excluded) == 0 && maxLen >= 0 {
		if body, ok := c.cappedString(parts[0], minLen, maxLen); ok {
			if body == nil {
				return nil, nil
			}
			return c.cat(grammar.Lit(`"`), body, grammar.Lit(`"`)), nil
		}
	}
	var pe *grammar.Error
	if err != nil && !errors.As(err, &pe) {
		ptr, kw := s.ptr, "pattern"
		if len(parts) > 0 {
			ptr, kw = parts[0].loc.ptr, parts[0].kw
		}
		if errors.Is(err, errAutomatonSize) {
			err = c.automatonTooLarge(ptr, kw, "the combination of the string constraints", err)
		} else {
			err = c.unsupportedE(ptr, kw, "%v", err)
		}
	}
	if errors.Is(err, errIgnore) {
		// Lenient: keep the first constraint and drop the rest.
		if len(parts) > 0 {
			if body, ok, err := c.stringRegex(parts[0], 0, -1); err != nil || ok {
				if body == nil {
					return nil, err
				}
				return c.cat(grammar.Lit(`"`), body, grammar.Lit(`"`)), err
			}
		}
		var ch *grammar.Expr
		if ch, err = c.anyCharCounted(); err == nil {
			body, err = c.bigRepeat(ch, minLen, maxLen, "string")
		}
	}
	if err != nil || body == nil {
		return nil, err
	}
	return c.cat(grammar.Lit(`"`), body, grammar.Lit(`"`)), nil
}

// cappedString is a sound approximation of a pattern or format together
// with a maxLength too large to count: the pattern's repetitions are bounded
// so that it cannot exceed maxLength. A warning says so.
func (c *compiler) cappedString(p stringPart, minLen, maxLen int) (*grammar.Expr, bool) {
	capped, ok := capRegex(searchRegex(p.re), maxLen)
	if !ok {
		return nil, false
	}
	if capped.Op == syntax.OpAlternate {
		// Alternatives too short for minLength go.
		var keep []*syntax.Regexp
		for _, a := range capped.Sub {
			if _, h := lenRange(a); h < 0 || h >= minLen {
				keep = append(keep, a)
			}
		}
		capped = reAlt(keep...)
	}
	// The bounded repetitions must still make a small automaton.
	d, err := c.regexDFA(capped)
	if err != nil {
		return nil, false
	}
	var body *grammar.Expr
	if lo, _ := lenRange(capped); lo >= minLen {
		body, err = c.regexToExpr(capped)
	} else {
		// Short strings remain: cut them off with the automaton.
		var ld *fsm.RuneDFA
		if ld, err = c.lengthDFA(minLen, -1); err == nil {
			if d, err = c.intersect(d, ld); err == nil {
				body, err = c.dfaExpr(d)
			}
		}
	}
	if err != nil {
		return nil, false
	}
	c.warn(p.loc.ptr, p.kw, "combined with maxLength %d by bounding the pattern's repetitions: some valid strings within the length limits are not accepted", maxLen)
	return body, true
}

// searchRegex returns the regex of the whole strings in which re (with
// anchors at its ends) matches; re itself when its anchors cannot be split.
func searchRegex(re *syntax.Regexp) *syntax.Regexp {
	whole, err := searchWhole(re)
	if err != nil {
		return re
	}
	return whole
}

// searchWhole returns the regex of the whole strings in which re (with
// anchors at its ends) matches: each alternative unanchored at an end is
// padded there with any characters.
func searchWhole(re *syntax.Regexp) (*syntax.Regexp, error) {
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
	if len(subs) == 1 {
		return subs[0], nil
	}
	return &syntax.Regexp{Op: syntax.OpAlternate, Sub: subs}, nil
}

// capRegex returns a regex matching a subset of re's strings, none longer
// than budget, by bounding repetitions (ok false when re has no string that
// short).
func capRegex(re *syntax.Regexp, budget int) (*syntax.Regexp, bool) {
	lo, hi := lenRange(re)
	if hi >= 0 && hi <= budget {
		return re, true
	}
	if lo > budget {
		return nil, false
	}
	switch re.Op {
	case syntax.OpCapture:
		return capRegex(re.Sub[0], budget)
	case syntax.OpConcat:
		// Variable parts share what the fixed minimum leaves: parts with
		// a bound take up to it first, unbounded ones split the rest.
		var bounded, unbounded []int
		sumLo := 0
		for i, s := range re.Sub {
			l, h := lenRange(s)
			sumLo += l
			switch {
			case h < 0:
				unbounded = append(unbounded, i)
			case h != l:
				bounded = append(bounded, i)
			}
		}
		extra := budget - sumLo
		out := make([]*syntax.Regexp, len(re.Sub))
		copy(out, re.Sub)
		share := extra / max(len(bounded)+len(unbounded), 1)
		give := func(i, n int) bool {
			l, _ := lenRange(re.Sub[i])
			var ok bool
			out[i], ok = capRegex(re.Sub[i], l+n)
			if ok {
				_, h := lenRange(out[i])
				extra -= h - l
			}
			return ok
		}
		for _, i := range bounded {
			l, h := lenRange(re.Sub[i])
			if len(unbounded) == 0 {
				share = extra / max(len(bounded), 1)
			}
			if !give(i, min(h-l, max(share, extra/(len(bounded)+len(unbounded))))) {
				return nil, false
			}
		}
		for k, i := range unbounded {
			if !give(i, extra/(len(unbounded)-k)) {
				return nil, false
			}
		}
		return &syntax.Regexp{Op: syntax.OpConcat, Sub: out}, true
	case syntax.OpAlternate:
		var out []*syntax.Regexp
		for _, s := range re.Sub {
			if c, ok := capRegex(s, budget); ok {
				out = append(out, c)
			}
		}
		if len(out) == 0 {
			return nil, false
		}
		return &syntax.Regexp{Op: syntax.OpAlternate, Sub: out}, true
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		mn, mx := repeatBounds(re)
		sub := re.Sub[0]
		l, h := lenRange(sub)
		if l == 1 && h == 1 {
			// A run of single characters: as long as the budget allows.
			mx = budget
			if m := re.Max; re.Op == syntax.OpRepeat && m >= 0 && m < mx {
				mx = m
			}
			if mx < mn {
				return nil, false
			}
			return &syntax.Regexp{Op: syntax.OpRepeat, Min: mn, Max: mx, Sub: []*syntax.Regexp{sub}}, true
		}
		// A repeated group: a few repetitions, each within its share.
		reps := mx
		switch {
		case mx >= 0 && mx <= 4:
			// Few repetitions (an optional group): keep them if they fit.
			for reps > mn && reps*l > budget {
				reps--
			}
		default:
			if reps < 0 {
				reps = 16
			}
			reps = max(mn, min(reps, max(budget/max(l+8, 24), 1)))
		}
		if reps == 0 {
			return reLit(""), true
		}
		var ok bool
		if sub, ok = capRegex(sub, budget/reps); !ok {
			return nil, false
		}
		if _, h = lenRange(sub); h < 0 || h*reps > budget {
			return nil, false
		}
		return &syntax.Regexp{Op: syntax.OpRepeat, Min: mn, Max: reps, Sub: []*syntax.Regexp{sub}}, true
	}
	return nil, false
}

// stringRegex compiles one pattern or format together with the length
// bounds, when the bounds can be folded into the regex (or are implied by it).
func (c *compiler) stringRegex(p stringPart, minLen, maxLen int) (*grammar.Expr, bool, error) {
	alts, err := splitAnchors(p.re)
	if err != nil {
		return nil, false, c.errorf(p.loc.ptr, p.kw, grammar.ErrUnsupported, "%q: %v", p.loc.val, err)
	}
	var out []*grammar.Expr
	for _, a := range alts {
		re, ok := wholeString(a, minLen, maxLen)
		if !ok {
			return nil, false, nil
		}
		e, err := c.regexToExpr(re)
		if err != nil {
			return nil, false, c.errorf(p.loc.ptr, p.kw, grammar.ErrUnsupported, "%q: %v", p.loc.val, err)
		}
		out = append(out, e)
	}
	return c.or(out...), true, nil
}

// wholeString is the regex of the whole strings that search alternative a
// matches in, with length bounds minLen and maxLen (maxLen < 0: none)
// folded in; false when the bounds cannot be folded into it.
func wholeString(a searchAlt, minLen, maxLen int) (*syntax.Regexp, bool) {
	re := a.re
	var subs []*syntax.Regexp
	if !a.start {
		subs = append(subs, anyStar())
	}
	subs = append(subs, re)
	if !a.end {
		subs = append(subs, anyStar())
	}
	if len(subs) > 1 {
		re = &syntax.Regexp{Op: syntax.OpConcat, Sub: subs}
	}
	if minLen > 0 || maxLen >= 0 {
		lo, hi := lenRange(re)
		if lo < minLen || (maxLen >= 0 && (hi < 0 || hi > maxLen)) {
			return restrictLength(re, minLen, maxLen)
		}
	}
	return re, true
}

func anyStar() *syntax.Regexp {
	return &syntax.Regexp{Op: syntax.OpStar, Sub: []*syntax.Regexp{{Op: syntax.OpAnyChar}}}
}

// lenRange returns the least and greatest number of characters re
// matches (hi < 0: unbounded).
func lenRange(re *syntax.Regexp) (lo, hi int) {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, 0
	case syntax.OpLiteral:
		return len(re.Rune), len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1, 1
	case syntax.OpCapture:
		return lenRange(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		l, h := lenRange(re.Sub[0])
		mn, mx := repeatBounds(re)
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
			l, h := lenRange(s)
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
			l, h := lenRange(s)
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

func repeatBounds(re *syntax.Regexp) (int, int) {
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

// restrictLength rewrites re so that it matches only strings of length
// [minLen, maxLen], when re is a sequence of fixed-length parts and one
// repetition of a single character: the repetition's bounds absorb the limits.
// fixedChoices splits a part with a few possible lengths, each from
// fixed-length strings (an optional literal, alternatives of equal-length
// words, a short counted repetition), into one regex per length; nil when
// it cannot.
func fixedChoices(re *syntax.Regexp) []*syntax.Regexp {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	switch re.Op {
	case syntax.OpQuest, syntax.OpRepeat:
		mn, mx := repeatBounds(re)
		if l, h := lenRange(re.Sub[0]); l != h || mx < 0 || mx-mn > 4 {
			return nil
		}
		var out []*syntax.Regexp
		for k := mn; k <= mx; k++ {
			out = append(out, reRepeat(re.Sub[0], k, k))
		}
		return out
	case syntax.OpAlternate:
		byLen := map[int][]*syntax.Regexp{}
		var lens []int
		for _, a := range re.Sub {
			l, h := lenRange(a)
			if l != h {
				return nil
			}
			if _, ok := byLen[l]; !ok {
				lens = append(lens, l)
			}
			byLen[l] = append(byLen[l], a)
		}
		if len(lens) > 4 {
			return nil
		}
		var out []*syntax.Regexp
		for _, l := range lens {
			out = append(out, reAlt(byLen[l]...))
		}
		return out
	}
	return nil
}

func restrictLength(re *syntax.Regexp, minLen, maxLen int) (*syntax.Regexp, bool) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	if re.Op == syntax.OpAlternate {
		var alts []*syntax.Regexp
		for _, a := range re.Sub {
			r, ok := restrictLength(a, minLen, maxLen)
			if !ok {
				return nil, false
			}
			alts = append(alts, r)
		}
		return reAlt(alts...), true
	}
	fixed, vi := 0, -1
	for i, s := range subs {
		l, h := lenRange(s)
		if l == h {
			fixed += l
			continue
		}
		if vi >= 0 {
			// Two variable parts: when one of them has only a few fixed
			// lengths (s? in https?://.+), try each of them apart.
			for _, j := range []int{vi, i} {
				if choices := fixedChoices(subs[j]); choices != nil {
					var alts []*syntax.Regexp
					for _, ch := range choices {
						parts := append([]*syntax.Regexp(nil), subs...)
						parts[j] = ch
						r, ok := restrictLength(&syntax.Regexp{Op: syntax.OpConcat, Sub: parts}, minLen, maxLen)
						if !ok {
							return nil, false
						}
						alts = append(alts, r)
					}
					return reAlt(alts...), true
				}
			}
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
	if l, h := lenRange(v.Sub[0]); l != 1 || h != 1 {
		return nil, false
	}
	mn, mx := repeatBounds(v)
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
