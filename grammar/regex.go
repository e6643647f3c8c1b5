package grammar

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"strconv"
	"strings"
)

// regexMaxRepeat is RE2's own limit on a repetition count {m,n}.
const regexMaxRepeat = 1000

// ParseRegex parses pattern in Go's RE2 syntax (regexp/syntax with the Perl
// flags: non-greedy operators, \d \s \w, \A \z, (?flags), Unicode classes)
// and returns it simplified (counted repetitions expanded).
//
// Constructs of PCRE and ECMAScript that no regular language can express, or
// that RE2 leaves out, are reported by name, with their place, and wrap
// ErrUnsupported: lookahead (?= (?!, lookbehind (?<= (?<!, backreferences
// \1 \k<name> (?P=name) \g{1}, atomic groups (?>, possessive quantifiers *+ ++
// ?+ {n}+, recursion and subroutine calls, conditionals, branch reset groups,
// comments (?#...), backtracking verbs (*VERB) and PCRE-only escapes such as
// \K \G \R \X \h. Other syntax errors are *Error values with Source "regex"
// that wrap the *syntax.Error from regexp/syntax (errors.As finds it); those
// about RE2's size limits (counts above 1000, nesting, program size) wrap
// ErrLimit too. A pattern longer than lim.RegexBytes (zero: the default from
// DefaultLimits) is an error wrapping ErrLimit that names the field.
// Positions are exact for the constructs named above and for
// unbalanced brackets; for other errors they point at the first place the
// offending text occurs.
func ParseRegex(pattern string, lim Limits) (*syntax.Regexp, error) {
	if n := lim.WithDefaults().RegexBytes; len(pattern) > n {
		return nil, &Error{Source: "regex", Msg: fmt.Sprintf("pattern is %d bytes, more than Limits.RegexBytes (%d)", len(pattern), n), Err: ErrLimit}
	}
	sc := regexScan(pattern)
	if sc.err != nil {
		return nil, sc.err
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, sc.wrap(pattern, err)
	}
	return re.Simplify(), nil
}

// RegexExpr parses pattern with ParseRegex under lim and returns a Regex expression that
// matches exactly the strings the pattern matches in full, as the IR asks:
// capture groups become plain groups, and the anchors a full match makes true
// are dropped: ^ and \A where every path through them starts the match, $ and
// \z where every path ends it, as in "^a$", "(^a|^b)" or "(a|^b)c" (with or
// without (?m)). Any other assertion (an anchor inside the text or a repeated
// group, \b, \B) is an error wrapping ErrUnsupported.
//
// JSON Schema patterns, which search rather than match in full and follow
// ECMA-262, need their own translation before they reach RegexExpr.
func RegexExpr(pattern string, lim Limits) (*Expr, error) {
	re, err := ParseRegex(pattern, lim)
	if err != nil {
		return nil, err
	}
	re, err = regexStrip(re, true, true)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			sc := regexScan(pattern)
			if off := sc.assertionOffset(pattern, e.Msg); off >= 0 {
				e.Pos = newPosTable(pattern).pos(off)
			}
		}
		return nil, err
	}
	return Re(re), nil
}

// FromRegex returns a grammar of one rule, "root", that matches exactly the
// strings pattern matches in full (see RegexExpr). lim bounds the pattern's
// bytes (RegexBytes); its zero value means the defaults.
func FromRegex(pattern string, lim Limits) (*Grammar, error) {
	e, err := RegexExpr(pattern, lim)
	if err != nil {
		return nil, err
	}
	g := &Grammar{Rules: []Rule{{Name: "root", Body: e}}}
	if err := g.Validate(); err != nil {
		return nil, &Error{Source: "regex", Msg: err.Error(), Err: err}
	}
	return g, nil
}

const (
	regexMsgAnchor   = "anchors (^, $, \\A, \\z) are only supported at the start and end of the pattern"
	regexMsgBoundary = "word boundary assertions (\\b, \\B) are not supported"
)

// regexStrip removes captures, and the anchors that a full match makes true,
// from re. atStart and atEnd say whether re begins at the start of the match
// and ends at its end on every path. Simplify shares nodes between the copies
// of a repetition, and one copy may sit at the start while another does not,
// so regexStrip never changes a node: it builds new ones where anything changes.
func regexStrip(re *syntax.Regexp, atStart, atEnd bool) (*syntax.Regexp, error) {
	switch re.Op {
	case syntax.OpCapture:
		return regexStrip(re.Sub[0], atStart, atEnd)
	case syntax.OpBeginText, syntax.OpBeginLine:
		if !atStart {
			return nil, &Error{Source: "regex", Msg: regexMsgAnchor, Err: ErrUnsupported}
		}
		return &syntax.Regexp{Op: syntax.OpEmptyMatch, Flags: re.Flags}, nil
	case syntax.OpEndText, syntax.OpEndLine:
		if !atEnd {
			return nil, &Error{Source: "regex", Msg: regexMsgAnchor, Err: ErrUnsupported}
		}
		return &syntax.Regexp{Op: syntax.OpEmptyMatch, Flags: re.Flags}, nil
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil, &Error{Source: "regex", Msg: regexMsgBoundary, Err: ErrUnsupported}
	case syntax.OpConcat:
		subs := make([]*syntax.Regexp, 0, len(re.Sub))
		for i, s := range re.Sub {
			t, err := regexStrip(s, atStart && regexAllEmptyWidth(re.Sub[:i]), atEnd && regexAllEmptyWidth(re.Sub[i+1:]))
			if err != nil {
				return nil, err
			}
			if t.Op != syntax.OpEmptyMatch {
				subs = append(subs, t)
			}
		}
		switch len(subs) {
		case 0:
			return &syntax.Regexp{Op: syntax.OpEmptyMatch, Flags: re.Flags}, nil
		case 1:
			return subs[0], nil
		}
		return regexWithSubs(re, subs), nil
	case syntax.OpAlternate:
		subs := make([]*syntax.Regexp, len(re.Sub))
		for i, s := range re.Sub {
			t, err := regexStrip(s, atStart, atEnd)
			if err != nil {
				return nil, err
			}
			subs[i] = t
		}
		return regexWithSubs(re, subs), nil
	case syntax.OpQuest, syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		// The one optional copy of a Quest, when present, spans the whole
		// of re; of the copies of the others, only the first starts where re
		// does, and only the last ends where it does.
		whole := re.Op == syntax.OpQuest || re.Op == syntax.OpRepeat && re.Max == 1
		t, err := regexStrip(re.Sub[0], atStart && whole, atEnd && whole)
		if err != nil {
			return nil, err
		}
		return regexWithSubs(re, []*syntax.Regexp{t}), nil
	}
	return re, nil
}

// regexWithSubs returns re itself when subs are its parts already, and a
// copy of re with subs as its parts otherwise.
func regexWithSubs(re *syntax.Regexp, subs []*syntax.Regexp) *syntax.Regexp {
	if len(subs) == len(re.Sub) {
		same := true
		for i := range subs {
			same = same && subs[i] == re.Sub[i]
		}
		if same {
			return re
		}
	}
	c := *re
	c.Sub = subs
	c.Sub0 = [1]*syntax.Regexp{}
	return &c
}

// regexAllEmptyWidth reports whether every one of res is an anchor or empty.
func regexAllEmptyWidth(res []*syntax.Regexp) bool {
	for _, s := range res {
		switch s.Op {
		case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpBeginLine, syntax.OpEndText, syntax.OpEndLine:
		default:
			return false
		}
	}
	return true
}

// regexScanner is a light lexer over a pattern that knows escapes, classes
// and \Q...\E quoting well enough to find PCRE-only constructs, with their
// offsets, and the places regexp/syntax errors do not give.
type regexScanner struct {
	err          error
	unclosedOpen int // offset of the innermost '(' never closed, or -1
	strayClose   int // offset of the first ')' with no '(', or -1
	unclosedSet  int // offset of a '[' never closed, or -1
	anchors      []int
	boundaries   []int
}

// regexPCREGroups names the (?... group openers RE2 lacks, longest first.
var regexPCREGroups = []struct{ prefix, msg string }{
	{"(?<=", "lookbehind is not supported"},
	{"(?<!", "lookbehind is not supported"},
	{"(?=", "lookahead is not supported"},
	{"(?!", "lookahead is not supported"},
	{"(?>", "atomic groups are not supported"},
	{"(?|", "branch reset groups are not supported"},
	{"(?#", "comments (?#...) are not supported"},
	{"(?P=", "backreferences are not supported"},
	{"(?P>", "subroutine calls are not supported"},
	{"(?&", "subroutine calls are not supported"},
	{"(?R)", "recursion is not supported"},
	{"(?(", "conditionals are not supported"},
	{"(?'", "named groups written (?'name'...) are not supported; use (?P<name>...)"},
	{"(?*", "non-atomic lookaround is not supported"},
}

// regexPCREEscapes names escapes of PCRE or ECMAScript that RE2 lacks.
var regexPCREEscapes = map[byte]string{
	'k': "backreferences are not supported",
	'g': "backreferences are not supported",
	'K': "\\K (match reset) is not supported",
	'G': "\\G (end of previous match) is not supported",
	'Z': "\\Z is not supported; use \\z",
	'R': "\\R (newline sequence) is not supported",
	'X': "\\X (grapheme cluster) is not supported",
	'h': "\\h (horizontal space) is not supported",
	'H': "\\H (non-horizontal space) is not supported",
	'V': "\\V (non-vertical space) is not supported",
	'N': "\\N is not supported",
	'e': "\\e (escape character) is not supported; use \\x1B",
	'c': "\\c (control character) is not supported",
	'o': "\\o{...} (octal) is not supported",
	'u': "\\uXXXX escapes are not supported; use \\x{XXXX}",
}

func regexScan(pattern string) *regexScanner {
	sc := &regexScanner{unclosedOpen: -1, strayClose: -1, unclosedSet: -1}
	var opens []int
	fail := func(off int, msg string) *regexScanner {
		sc.err = &Error{Source: "regex", Pos: newPosTable(pattern).pos(off), Msg: msg, Err: ErrUnsupported}
		return sc
	}
	afterQuant := false // the previous token was a quantifier
	quantAt := 0        // and this is where it started
	for i := 0; i < len(pattern); {
		c := pattern[i]
		wasQuant := afterQuant
		afterQuant = false
		switch c {
		case '\\':
			if i+1 >= len(pattern) {
				i++
				continue
			}
			e := pattern[i+1]
			switch {
			case e == 'Q':
				end := strings.Index(pattern[i+2:], `\E`)
				if end < 0 {
					i = len(pattern)
				} else {
					i += 2 + end + 2
				}
				continue
			case '1' <= e && e <= '9':
				if e >= '8' || i+2 >= len(pattern) || pattern[i+2] < '0' || pattern[i+2] > '7' {
					return fail(i, "backreferences are not supported")
				}
			case e == 'b' || e == 'B':
				sc.boundaries = append(sc.boundaries, i)
			case e == 'A' || e == 'z':
				sc.anchors = append(sc.anchors, i)
			case (e == 'x' || e == 'p' || e == 'P') && i+2 < len(pattern) && pattern[i+2] == '{':
				// \x{HHHH}, \p{Name}: the braces are not a repetition.
				if end := strings.IndexByte(pattern[i+2:], '}'); end >= 0 {
					i += 2 + end + 1
					continue
				}
			default:
				if msg, ok := regexPCREEscapes[e]; ok {
					return fail(i, msg)
				}
			}
			i += 2
		case '[':
			end := regexClassEnd(pattern, i)
			if end < 0 {
				sc.unclosedSet = i
				return sc
			}
			i = end
		case '(':
			for _, g := range regexPCREGroups {
				if strings.HasPrefix(pattern[i:], g.prefix) {
					return fail(i, g.msg)
				}
			}
			if strings.HasPrefix(pattern[i:], "(?") && i+2 < len(pattern) && (pattern[i+2] >= '0' && pattern[i+2] <= '9' || pattern[i+2] == '+' || pattern[i+2] == '-' && i+3 < len(pattern) && pattern[i+3] >= '0' && pattern[i+3] <= '9') {
				return fail(i, "recursion and subroutine calls are not supported")
			}
			if i+2 < len(pattern) && pattern[i+1] == '*' && 'A' <= pattern[i+2] && pattern[i+2] <= 'Z' {
				return fail(i, "backtracking verbs (*VERB) are not supported")
			}
			opens = append(opens, i)
			i++
		case ')':
			if len(opens) == 0 {
				if sc.strayClose < 0 {
					sc.strayClose = i
				}
			} else {
				opens = opens[:len(opens)-1]
			}
			i++
		case '^', '$':
			sc.anchors = append(sc.anchors, i)
			i++
		case '*', '+', '?':
			if wasQuant && c == '+' {
				return fail(quantAt, "possessive quantifiers are not supported")
			}
			quantAt = i
			i++
			afterQuant = !wasQuant
			if i < len(pattern) && pattern[i] == '?' && afterQuant {
				i++ // lazy
				afterQuant = false
			}
		case '{':
			if n := regexRepeatLen(pattern[i:]); n > 0 {
				quantAt = i
				i += n
				afterQuant = true
				if i < len(pattern) && pattern[i] == '?' {
					i++
					afterQuant = false
				}
				continue
			}
			i++
		default:
			i++
		}
	}
	if len(opens) > 0 {
		sc.unclosedOpen = opens[len(opens)-1]
	}
	return sc
}

// regexClassEnd returns the offset just past the ']' that closes the class
// opened at pattern[open], or -1 when it is never closed.
func regexClassEnd(pattern string, open int) int {
	i := open + 1
	if i < len(pattern) && pattern[i] == '^' {
		i++
	}
	if i < len(pattern) && pattern[i] == ']' {
		i++ // a leading ']' is literal
	}
	for i < len(pattern) {
		switch {
		case pattern[i] == '\\':
			i += 2
		case strings.HasPrefix(pattern[i:], "[:"):
			if end := strings.Index(pattern[i+2:], ":]"); end >= 0 {
				i += 2 + end + 2
			} else {
				i++
			}
		case pattern[i] == ']':
			return i + 1
		default:
			i++
		}
	}
	return -1
}

// regexRepeatLen returns the length of a repetition {n}, {n,} or {n,m} at
// the start of s, or 0 when s does not start with one (RE2 then reads '{'
// as a literal; it does so too for counts with leading zeros).
func regexRepeatLen(s string) int {
	i := 1
	number := func() (n int, ok bool) {
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i - start, i-start < 2 || s[start] != '0'
	}
	if n, ok := number(); n == 0 || !ok {
		return 0
	}
	if i < len(s) && s[i] == ',' {
		i++
		if _, ok := number(); !ok {
			return 0
		}
	}
	if i < len(s) && s[i] == '}' {
		return i + 1
	}
	return 0
}

// wrap turns an error from regexp/syntax into an *Error with the best
// position the scan can give.
func (sc *regexScanner) wrap(pattern string, err error) error {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return &Error{Source: "regex", Msg: err.Error(), Err: err}
	}
	off := -1
	cause := error(se)
	switch se.Code {
	case syntax.ErrMissingParen:
		off = sc.unclosedOpen
	case syntax.ErrUnexpectedParen:
		off = sc.strayClose
	case syntax.ErrMissingBracket:
		off = sc.unclosedSet
	case syntax.ErrLarge, syntax.ErrNestingDepth:
		cause = fmt.Errorf("%w (%w)", ErrLimit, se)
	case syntax.ErrInvalidRepeatSize:
		if !regexRepeatReversed(se.Expr) {
			cause = fmt.Errorf("%w (%w)", ErrLimit, se)
		}
	case syntax.ErrTrailingBackslash:
		off = len(pattern) - 1
	}
	if off < 0 && se.Expr != "" {
		off = strings.Index(pattern, se.Expr)
	}
	msg := se.Code.String()
	if se.Expr != "" {
		msg += ": `" + se.Expr + "`"
	}
	if se.Code == syntax.ErrInvalidRepeatSize && errors.Is(cause, ErrLimit) {
		msg += fmt.Sprintf(" (RE2 limits counts, and nested counts multiplied, to %d)", regexMaxRepeat)
	}
	e := &Error{Source: "regex", Msg: msg, Err: cause}
	if off >= 0 {
		e.Pos = newPosTable(pattern).pos(off)
	}
	return e
}

// regexRepeatReversed reports whether a repetition operator text like
// "{5,2}" has its maximum below its minimum: the one ErrInvalidRepeatSize
// that is a plain mistake, not RE2's limit on counts.
func regexRepeatReversed(op string) bool {
	lo, hi, ok := strings.Cut(strings.Trim(op, "{}"), ",")
	if !ok || hi == "" {
		return false
	}
	m, err1 := strconv.Atoi(lo)
	n, err2 := strconv.Atoi(hi)
	return err1 == nil && err2 == nil && n < m
}

// assertionOffset returns the offset of the first assertion of the kind the
// message names that is not a leading ^ or \A or a trailing $ or \z, or -1.
func (sc *regexScanner) assertionOffset(pattern, msg string) int {
	if msg == regexMsgBoundary {
		if len(sc.boundaries) > 0 {
			return sc.boundaries[0]
		}
		return -1
	}
	for _, off := range sc.anchors {
		switch {
		case off == 0 && (pattern[0] == '^' || strings.HasPrefix(pattern, `\A`)):
		case off == len(pattern)-1 && pattern[off] == '$':
		case off == len(pattern)-2 && pattern[off:] == `\z`:
		default:
			return off
		}
	}
	return -1
}
