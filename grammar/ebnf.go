package grammar

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reinlm/rein/internal/ecma"
)

// ParseEBNF parses a grammar in XGrammar's EBNF dialect (xgr.Grammar.from_ebnf)
// and returns it with the rule named opts.Root (or "root") as its start.
//
// The dialect is GBNF's, with these differences:
//
//	name ::= body               a rule; names are made of [a-zA-Z0-9_.-] and
//	                            do not start with a digit; the name begins
//	                            its line, and the body runs to the next
//	                            "name ::=", across line breaks
//	( )                         the empty string; an empty alternative is an
//	                            error (write "")
//	"\e" "\x1F600" "\/"         escapes: \" \\ \/ \' \? \n \r \t \b \f \a \v
//	                            \0 \e, \x with any number of hex digits,
//	                            \uXXXX, \UXXXXXXXX (code points); no raw line
//	                            break in a literal
//	[\-\]\^\.] [^]              classes also escape ^ $ \ . * + ? ( ) [ ] { }
//	                            | / -; [^] is any code point; \d \w \s are
//	                            errors, as in XGrammar
//	x{m, -1}                    x{m,}, as XGrammar prints it
//	name[opts] ::= body         rule options: capture, capture="x" and
//	                            temperature=0.7 are read and ignored (they do
//	                            not change the language); max_tokens is an
//	                            error wrapping ErrUnsupported
//	name ::= body (= la)        a lookahead assertion: parsed, checked and
//	                            dropped (below)
//
// and builtins, called like functions, whose arguments are strings,
// non-negative integers, true, false, rule names and tuples (a, b, ...):
//
//	Regex("[0-9]+")             a regular expression matched in full; the
//	                            pattern is ECMAScript's, as XGrammar reads it,
//	                            translated to Go's syntax as JSON Schema's
//	                            patterns are ('.' excludes line terminators,
//	                            \s and \S are ECMAScript's Unicode spaces,
//	                            \uXXXX, \u{X}, \cX and \0 escapes, [] and
//	                            [^]) and read by RegexExpr; lookaround and
//	                            backreferences, and json_string=true, are
//	                            errors wrapping ErrUnsupported
//	Token(1, 5, 9)              one token whose id is listed (TokenSet)
//	ExcludeToken(1, 5)          one token whose id is not listed
//	TagDispatch(("<a>", r1), ("<b>", r2), loop_after_dispatch=true,
//	        excludes=("</x>",)) free text (Text) holding no tag and no
//	                            exclude string whole; each complete tag is
//	                            followed by its rule in full, then, with
//	                            loop_after_dispatch (the default), by more
//	                            free text, else by nothing; a tag is a
//	                            literal in which a special token's text may
//	                            be that token (LitTokens); stop_eos=true is
//	                            accepted, stop_eos=false and stop_str are
//	                            errors wrapping ErrUnsupported
//	TokenTagDispatch((7, r1), loop_after_dispatch=true, excludes=(8,))
//	                            the same over tokens: any token but a
//	                            trigger or an excluded one, and after a
//	                            trigger its rule
//
// TagDispatch is refused where XGrammar's dispatch would differ from the
// grammar rein builds: a tag that holds another (the other dispatches
// first) and an exclude string that starts a tag.
//
// # Lookahead assertions
//
// XGrammar reads "rule ::= body (= la)" as a promise that every match of
// the rule is followed by text that la can start; its own byte-level
// matcher never consults it, and its analyzer adds such assertions to
// rules where they hold by construction. Only its token-mask precomputation
// uses one, to reject a token that runs past the rule's end into text la
// cannot start, which rejects nothing the grammar allows as long as the
// promise holds. The language XGrammar accepts is therefore the grammar
// without its lookaheads, and rein drops them: la is parsed and its rule
// names checked, and the rule is the body alone. Where a hand-written la
// does not hold, XGrammar's masks forbid strings its matcher accepts; rein
// allows them, as its matcher does.
//
// # Limits and errors
//
// The GBNF limits apply: lim.GBNFBytes bounds the source, GBNFDepth the
// nesting of groups, repetitions and builtin arguments, GBNFRepeat the
// repetition counts and their products, Enum the arguments of one builtin,
// TextExcludeBytes the tags and excludes of one TagDispatch, RegexBytes each
// pattern; a zero field means its default. Errors are as ParseGBNF's, with
// Source "ebnf": an ErrorList in source order, each with its line:column,
// after which the parser skips to the next line that starts a rule.
func ParseEBNF(src string, opts EBNFOptions) (*Grammar, error) {
	return ParseEBNFContext(context.Background(), src, opts)
}

// EBNFOptions tune ParseEBNF. The zero value means root "root" and the
// default limits.
type EBNFOptions struct {
	// Root names the start rule; "" means "root".
	Root string
	// Limits bounds the parse (see ParseEBNF); a zero field means its
	// default from DefaultLimits.
	Limits Limits
}

// ParseEBNFContext is ParseEBNF under ctx: once ctx is done the parse stops
// within a few thousand items and returns an *Error wrapping ctx.Err().
func ParseEBNFContext(ctx context.Context, src string, opts EBNFOptions) (*Grammar, error) {
	p := &gbnfParser{ebnf: true, ctx: ctx, lim: opts.Limits.WithDefaults(), src: src, index: map[string]int{}, info: map[*Expr]gbnfInfo{}}
	return p.run(opts.Root)
}

// ebnfIsNameChar reports whether c may stand in an EBNF rule name (not
// first, for a digit).
func ebnfIsNameChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// ebnfBuiltins are the names that call a builtin rather than a rule.
var ebnfBuiltins = []string{"Regex", "Token", "ExcludeToken", "TagDispatch", "TokenTagDispatch"}

func (p *gbnfParser) ebnfParse() {
	p.skipSpace(true)
	for !p.eof() {
		start := p.off
		if err := p.ebnfRule(); err != nil {
			if p.stopped != nil {
				return
			}
			// A rule that ends too early ("a ::= x |" before the next rule)
			// fails where the next one starts, which is parsed next.
			if p.off <= start || !p.ebnfLineStart(p.off) || !p.ebnfRuleStart(p.off) {
				p.skipToNextRule()
			}
		}
		p.skipSpace(true)
	}
	p.reportUndefined()
}

// ebnfRuleStart reports whether a rule definition starts at off: a name,
// options in brackets on the same line if any, and "::=".
func (p *gbnfParser) ebnfRuleStart(off int) bool {
	if off >= len(p.src) || !ebnfIsNameChar(p.src[off]) || isDigit(p.src[off]) {
		return false
	}
	for off < len(p.src) && ebnfIsNameChar(p.src[off]) {
		off++
	}
	off = skipBlanksAt(p.src, off)
	if off < len(p.src) && p.src[off] == '[' {
		end := strings.IndexAny(p.src[off:], "]\n\r")
		if end < 0 || p.src[off+end] != ']' {
			return false
		}
		off = skipBlanksAt(p.src, off+end+1)
	}
	return strings.HasPrefix(p.src[off:], "::=")
}

// skipBlanksAt returns the offset of the first byte at or after off that is
// not a space or a tab.
func skipBlanksAt(s string, off int) int {
	for off < len(s) && (s[off] == ' ' || s[off] == '\t') {
		off++
	}
	return off
}

// ebnfLineStart reports whether only blanks stand before off on its line.
func (p *gbnfParser) ebnfLineStart(off int) bool {
	for i := off - 1; i >= 0; i-- {
		switch p.src[i] {
		case '\n', '\r':
			return true
		case ' ', '\t':
		default:
			return false
		}
	}
	return true
}

// ebnfRule parses "name ::= body", with options and a lookahead if any.
func (p *gbnfParser) ebnfRule() error {
	start := p.off
	p.pending = p.pending[:0]
	if c := p.peek(); !ebnfIsNameChar(c) || isDigit(c) {
		return p.errorAt(start, nil, "expected rule name, found %s", p.describe())
	}
	if !p.ebnfLineStart(start) {
		return p.errorAt(start, nil, "a rule's name must begin its line")
	}
	name := p.parseName()
	if slices.Contains(ebnfBuiltins, name) {
		return p.errorAt(start, nil, "%q names a builtin and cannot name a rule", name)
	}
	i := p.ruleIndex(name)
	redefined := p.defined[i] >= 0
	if redefined {
		p.errorAt(start, nil, "rule %q is already defined at %s", name, p.posOf(p.defined[i]))
	} else {
		p.defined[i] = start
	}
	p.skipBlanks()
	if p.peek() == '[' {
		if err := p.ebnfRuleOptions(); err != nil {
			return err
		}
		p.skipBlanks()
	}
	if !strings.HasPrefix(p.src[p.off:], "::=") {
		return p.errorAt(p.off, nil, "expected \"::=\" after rule name %q, found %s", name, p.describe())
	}
	p.off += len("::=")
	p.skipSpace(true)
	body, err := p.parseAlternates(true)
	if err != nil {
		return err
	}
	if !redefined {
		p.rules[i].Body = body
	}
	if strings.HasPrefix(p.src[p.off:], "(=") {
		if err := p.ebnfLookahead(); err != nil {
			return err
		}
	}
	if !p.eof() && !p.ebnfRuleStart(p.off) {
		if strings.HasPrefix(p.src[p.off:], "(=") {
			return p.errorAt(p.off, nil, "a rule has one lookahead assertion at most")
		}
		return p.errorAt(p.off, nil, "unexpected %s", p.describe())
	}
	p.commitRefs()
	return nil
}

// ebnfLookahead parses a lookahead assertion "(= alternatives)" and drops
// it (see ParseEBNF); the rule names in it are checked as references.
func (p *gbnfParser) ebnfLookahead() error {
	open := p.off
	p.off += len("(=")
	p.skipSpace(true)
	if _, err := p.parseAlternates(true); err != nil {
		return err
	}
	if p.peek() != ')' {
		return p.errorAt(p.off, nil, "expected ')' to close the lookahead assertion at %s, found %s", p.posOf(open), p.describe())
	}
	p.off++
	p.skipSpace(true)
	return nil
}

// ebnfRuleOptions parses the options of a rule, [key=value, ...], which
// change nothing rein enforces: capture and temperature are ignored,
// max_tokens is refused.
func (p *gbnfParser) ebnfRuleOptions() error {
	open := p.off
	p.off++
	seen := map[string]bool{}
	for {
		p.skipBlanks()
		at := p.off
		for p.off < len(p.src) && ebnfIsNameChar(p.src[p.off]) {
			p.off++
		}
		key := p.src[at:p.off]
		if seen[key] {
			return p.errorAt(at, nil, "rule option %q given twice", key)
		}
		seen[key] = true
		p.skipBlanks()
		hasValue := p.peek() == '='
		if hasValue {
			p.off++
			p.skipBlanks()
		}
		switch key {
		case "capture":
			if hasValue {
				if p.peek() != '"' {
					return p.errorAt(p.off, nil, "expected a string literal after capture=, found %s", p.describe())
				}
				s, err := p.parseQuoted()
				if err != nil {
					return err
				}
				if s == "" {
					return p.errorAt(at, nil, "a capture name must not be empty")
				}
			}
		case "temperature":
			num := p.off
			for p.off < len(p.src) && strings.IndexByte("0123456789.eE+-", p.src[p.off]) >= 0 {
				p.off++
			}
			v, err := strconv.ParseFloat(p.src[num:p.off], 64)
			if !hasValue || err != nil || v < 0 || math.IsInf(v, 0) {
				return p.errorAt(num, nil, "temperature needs a finite non-negative number, as in temperature=0.7")
			}
		case "max_tokens":
			return p.errorAt(at, ErrUnsupported, "rule option max_tokens is not supported: rein cannot end a rule at any point its budget runs out")
		case "":
			return p.errorAt(at, nil, "expected a rule option (capture, temperature, max_tokens), found %s", p.describe())
		default:
			return p.errorAt(at, nil, "unknown rule option %q (there are capture, temperature and max_tokens)", key)
		}
		p.skipBlanks()
		switch p.peek() {
		case ',':
			p.off++
		case ']':
			p.off++
			return nil
		default:
			return p.errorAt(p.off, nil, "expected ',' or ']' in the rule options at %s, found %s", p.posOf(open), p.describe())
		}
	}
}

// ebnfItem parses an EBNF item other than a literal or a class, starting
// with c at start; more is false where the sequence ends (a lookahead
// assertion or the next rule).
func (p *gbnfParser) ebnfItem(start int, c byte) (item *Expr, more bool, err error) {
	switch {
	case strings.HasPrefix(p.src[p.off:], "(="):
		if p.depth > 0 {
			return nil, false, p.errorAt(start, nil, "a lookahead assertion (= ...) stands only after a rule's body")
		}
		return nil, false, nil
	case c == '(':
		item, err = p.parseGroup()
	case c == '-' && p.off+1 < len(p.src) && isDigit(p.src[p.off+1]):
		return nil, false, p.errorAt(start, nil, "unexpected number %s", p.describe())
	case ebnfIsNameChar(c) && !isDigit(c):
		if p.ebnfRuleStart(start) {
			return nil, false, nil
		}
		name := p.parseName()
		if slices.Contains(ebnfBuiltins, name) {
			item, err = p.ebnfBuiltin(name, start)
		} else {
			item = p.reference(name, start)
		}
	default:
		return nil, false, nil
	}
	return item, true, err
}

// ebnfEscape reads the escape \e whose backslash is at start (the offset
// is past e): XGrammar's escapes, and in a class its regex punctuation.
func (p *gbnfParser) ebnfEscape(start int, e byte, inClass bool) (rune, error) {
	switch e {
	case 'x', 'u', 'U':
		size := -1 // \x takes any number of digits
		switch e {
		case 'u':
			size = 4
		case 'U':
			size = 8
		}
		var v rune
		n := 0
		for ; p.off < len(p.src) && (size < 0 || n < size); n++ {
			d, ok := gbnfHexDigit(p.src[p.off])
			if !ok {
				break
			}
			if v = v<<4 | rune(d); v > maxRune {
				return 0, p.errorAt(start, nil, "escape %s... is beyond U+10FFFF", p.src[start:p.off+1])
			}
			p.off++
		}
		if n == 0 || size > 0 && n < size {
			want := "hex digits"
			if size > 0 {
				want = fmt.Sprintf("%d hex digits", size)
			}
			return 0, p.errorAt(start, nil, "escape \\%c needs %s, found %d", e, want, n)
		}
		return v, nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'a':
		return '\a', nil
	case 'v':
		return '\v', nil
	case '0':
		return 0, nil
	case 'e':
		return 0x1B, nil
	case '"', '\\', '/', '\'', '?':
		return rune(e), nil
	}
	if inClass {
		switch e {
		case '^', '$', '.', '*', '+', '(', ')', '[', ']', '{', '}', '|', '-':
			return rune(e), nil
		case 'd', 'D', 'w', 'W', 's', 'S':
			return 0, p.errorAt(start, nil, "class escape \\%c is not supported in EBNF: write the ranges, as in [0-9]", e)
		}
	}
	r, _ := utf8.DecodeRuneInString(p.src[start+1:])
	return 0, p.errorAt(start, nil, "unknown escape \\%s", string(r))
}

// ebnfValue is an argument of a builtin.
type ebnfValue struct {
	off   int
	kind  ebnfKind
	str   string      // ebnfString, ebnfName
	num   int         // ebnfInt
	bool  bool        // ebnfBool
	elems []ebnfValue // ebnfTuple
}

// ebnfKind says what an ebnfValue is.
type ebnfKind uint8

const (
	ebnfString ebnfKind = iota
	ebnfInt
	ebnfBool
	ebnfName
	ebnfTuple
)

var ebnfKindNames = [...]string{ebnfString: "a string", ebnfInt: "an integer", ebnfBool: "a boolean", ebnfName: "a rule name", ebnfTuple: "a tuple"}

// ebnfArgs are the arguments of a builtin call.
type ebnfArgs struct {
	pos   []ebnfValue
	named map[string]ebnfValue
	keyAt map[string]int // the offsets of the names of the named arguments
	items int            // values read, tuple members included, for Limits.Enum
}

// ebnfBuiltin parses the call of builtin name, at start, and returns its
// expression.
func (p *gbnfParser) ebnfBuiltin(name string, start int) (*Expr, error) {
	p.skipSpace(true)
	if p.peek() != '(' {
		return nil, p.errorAt(p.off, nil, "expected '(' after %s, found %s", name, p.describe())
	}
	args, err := p.ebnfArgs()
	if err != nil {
		return nil, err
	}
	switch name {
	case "Regex":
		return p.ebnfRegex(start, args)
	case "Token", "ExcludeToken":
		if len(args.named) > 0 {
			return nil, p.errorAt(start, nil, "%s takes no named arguments", name)
		}
		if len(args.pos) == 0 {
			return nil, p.errorAt(start, nil, "%s needs at least one token id", name)
		}
		ranges := make([]TokenRange, len(args.pos))
		for i, v := range args.pos {
			if v.kind != ebnfInt {
				return nil, p.errorAt(v.off, nil, "%s takes token ids, not %s", name, ebnfKindNames[v.kind])
			}
			ranges[i] = TokenRange{v.num, v.num}
		}
		return TokenSet(name == "ExcludeToken", nil, ranges), nil
	case "TagDispatch":
		return p.ebnfTagDispatch(start, args)
	default:
		return p.ebnfTokenTagDispatch(start, args)
	}
}

// ebnfArgs parses "(arg, ..., name=value, ...)".
func (p *gbnfParser) ebnfArgs() (ebnfArgs, error) {
	open := p.off
	p.off++
	args := ebnfArgs{named: map[string]ebnfValue{}, keyAt: map[string]int{}}
	p.skipSpace(true)
	if p.peek() == ')' {
		p.off++
		return args, nil
	}
	for {
		at := p.off
		key := ""
		if c := p.peek(); ebnfIsNameChar(c) && !isDigit(c) {
			end := at
			for end < len(p.src) && ebnfIsNameChar(p.src[end]) {
				end++
			}
			if eq := skipBlanksAt(p.src, end); eq < len(p.src) && p.src[eq] == '=' {
				key = p.src[at:end]
				p.off = eq + 1
				p.skipSpace(true)
			}
		}
		v, err := p.ebnfValue(&args.items)
		if err != nil {
			return args, err
		}
		if key == "" {
			args.pos = append(args.pos, v)
		} else {
			if _, ok := args.named[key]; ok {
				return args, p.errorAt(at, nil, "argument %q given twice", key)
			}
			args.named[key] = v
			args.keyAt[key] = at
		}
		p.skipSpace(true)
		switch p.peek() {
		case ',':
			p.off++
			p.skipSpace(true)
		case ')':
			p.off++
			return args, nil
		default:
			return args, p.errorAt(p.off, nil, "expected ',' or ')' in the arguments at %s, found %s", p.posOf(open), p.describe())
		}
	}
}

// ebnfValue parses one argument value; items counts the values read.
func (p *gbnfParser) ebnfValue(items *int) (ebnfValue, error) {
	at := p.off
	if *items++; *items > p.lim.Enum {
		return ebnfValue{}, p.errorAt(at, ErrLimit, "a builtin call has more arguments than Limits.Enum (%d)", p.lim.Enum)
	}
	c := p.peek()
	switch {
	case c == '"':
		s, err := p.parseQuoted()
		return ebnfValue{off: at, kind: ebnfString, str: s}, err
	case isDigit(c) || c == '+' && p.off+1 < len(p.src) && isDigit(p.src[p.off+1]):
		if c == '+' {
			p.off++
		}
		n, err := p.parseTokenID()
		return ebnfValue{off: at, kind: ebnfInt, num: n}, err
	case c == '-' && p.off+1 < len(p.src) && isDigit(p.src[p.off+1]):
		return ebnfValue{}, p.errorAt(at, nil, "a negative number is no token id")
	case ebnfIsNameChar(c):
		name := p.parseName()
		switch name {
		case "true", "false":
			return ebnfValue{off: at, kind: ebnfBool, bool: name == "true"}, nil
		}
		return ebnfValue{off: at, kind: ebnfName, str: name}, nil
	case c == '(':
		p.off++
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > p.lim.GBNFDepth {
			return ebnfValue{}, p.errorAt(at, ErrLimit, "tuples nested deeper than Limits.GBNFDepth (%d)", p.lim.GBNFDepth)
		}
		t := ebnfValue{off: at, kind: ebnfTuple}
		for {
			p.skipSpace(true)
			if p.peek() == ')' {
				p.off++
				return t, nil
			}
			v, err := p.ebnfValue(items)
			if err != nil {
				return t, err
			}
			t.elems = append(t.elems, v)
			p.skipSpace(true)
			switch p.peek() {
			case ',':
				p.off++
			case ')':
			default:
				return t, p.errorAt(p.off, nil, "expected ',' or ')' in the tuple at %s, found %s", p.posOf(at), p.describe())
			}
		}
	}
	return ebnfValue{}, p.errorAt(at, nil, "expected a string, a number, true, false, a rule name or a tuple, found %s", p.describe())
}

// ebnfBoolArg returns the named boolean argument key, or def.
func (p *gbnfParser) ebnfBoolArg(args ebnfArgs, key string, def bool) (bool, error) {
	v, ok := args.named[key]
	if !ok {
		return def, nil
	}
	if v.kind != ebnfBool {
		return false, p.errorAt(v.off, nil, "%s must be true or false, not %s", key, ebnfKindNames[v.kind])
	}
	return v.bool, nil
}

// ebnfTupleArg returns the members of the named tuple argument key, each
// of kind want (none when it is absent).
func (p *gbnfParser) ebnfTupleArg(args ebnfArgs, key string, want ebnfKind) ([]ebnfValue, error) {
	v, ok := args.named[key]
	if !ok {
		return nil, nil
	}
	if v.kind != ebnfTuple {
		return nil, p.errorAt(v.off, nil, "%s must be a tuple, as in %s=(...), not %s", key, key, ebnfKindNames[v.kind])
	}
	for _, x := range v.elems {
		if x.kind != want {
			return nil, p.errorAt(x.off, nil, "%s holds %s, not %s", key, ebnfKindNames[want], ebnfKindNames[x.kind])
		}
	}
	return v.elems, nil
}

// ebnfKnownArgs checks that args has no named argument but those in known.
func (p *gbnfParser) ebnfKnownArgs(name string, args ebnfArgs, known ...string) error {
	keys := slices.SortedFunc(maps.Keys(args.keyAt), func(a, b string) int { return args.keyAt[a] - args.keyAt[b] })
	for _, key := range keys {
		if !slices.Contains(known, key) {
			return p.errorAt(args.keyAt[key], nil, "%s has no argument %q (there are %s)", name, key, strings.Join(known, ", "))
		}
	}
	return nil
}

// ebnfPairs reads the positional arguments of a dispatch, (trigger, rule)
// pairs whose trigger is of kind want, and returns the triggers and the
// references to the rules.
func (p *gbnfParser) ebnfPairs(name string, args ebnfArgs, want ebnfKind) ([]ebnfValue, []*Expr, error) {
	triggers := make([]ebnfValue, len(args.pos))
	rules := make([]*Expr, len(args.pos))
	for i, v := range args.pos {
		if v.kind != ebnfTuple || len(v.elems) != 2 {
			return nil, nil, p.errorAt(v.off, nil, "each positional argument of %s is a pair (%s, rule)", name, ebnfKindNames[want])
		}
		t, r := v.elems[0], v.elems[1]
		if t.kind != want {
			return nil, nil, p.errorAt(t.off, nil, "a trigger of %s is %s, not %s", name, ebnfKindNames[want], ebnfKindNames[t.kind])
		}
		if r.kind != ebnfName || slices.Contains(ebnfBuiltins, r.str) {
			return nil, nil, p.errorAt(r.off, nil, "the second member of a %s pair names a rule", name)
		}
		k := p.ruleIndex(r.str)
		p.pending = append(p.pending, gbnfRef{k, r.off})
		triggers[i], rules[i] = t, Call(k)
	}
	return triggers, rules, nil
}

// ebnfTagDispatch builds TagDispatch (see ParseEBNF).
func (p *gbnfParser) ebnfTagDispatch(start int, args ebnfArgs) (*Expr, error) {
	const name = "TagDispatch"
	if err := p.ebnfKnownArgs(name, args, "loop_after_dispatch", "excludes", "stop_eos", "stop_str"); err != nil {
		return nil, err
	}
	tags, rules, err := p.ebnfPairs(name, args, ebnfString)
	if err != nil {
		return nil, err
	}
	loop, err := p.ebnfBoolArg(args, "loop_after_dispatch", true)
	if err != nil {
		return nil, err
	}
	excl, err := p.ebnfTupleArg(args, "excludes", ebnfString)
	if err != nil {
		return nil, err
	}
	stopEOS, err := p.ebnfBoolArg(args, "stop_eos", true)
	if err != nil {
		return nil, err
	}
	stops, err := p.ebnfTupleArg(args, "stop_str", ebnfString)
	if err != nil {
		return nil, err
	}
	if !stopEOS || len(stops) > 0 {
		return nil, p.errorAt(start, ErrUnsupported, "TagDispatch with stop_eos=false or stop_str is not supported: end the free text with excludes and what follows the TagDispatch")
	}
	free := make([]string, 0, len(tags)+len(excl))
	size := 0
	for i, t := range tags {
		if t.str == "" {
			return nil, p.errorAt(t.off, nil, "a TagDispatch tag must not be empty")
		}
		for j, u := range tags {
			if i != j && strings.Contains(t.str, u.str) && (len(u.str) < len(t.str) || j < i) {
				return nil, p.errorAt(t.off, nil, "tag %q holds tag %q, which dispatches first", t.str, u.str)
			}
		}
		free = append(free, t.str)
		size += len(t.str)
	}
	for _, x := range excl {
		if x.str == "" {
			return nil, p.errorAt(x.off, nil, "a TagDispatch exclude string must not be empty")
		}
		for _, t := range tags {
			if strings.HasPrefix(t.str, x.str) {
				return nil, p.errorAt(x.off, nil, "exclude string %q starts tag %q", x.str, t.str)
			}
		}
		free = append(free, x.str)
		size += len(x.str)
	}
	if size > p.lim.TextExcludeBytes {
		return nil, p.errorAt(start, ErrLimit, "the tags and excludes of TagDispatch have %d bytes, more than Limits.TextExcludeBytes (%d)", size, p.lim.TextExcludeBytes)
	}
	alts := make([]*Expr, len(tags))
	for i, t := range tags {
		alts[i] = Cat(LitTokens(t.str), rules[i])
	}
	if len(alts) == 0 {
		return Text(free...), nil
	}
	dispatch := Or(alts...)
	if !loop {
		return Cat(Text(free...), Rep(dispatch, 0, 1)), nil
	}
	return Cat(Rep(Cat(Text(free...), dispatch), 0, -1), Text(free...)), nil
}

// ebnfTokenTagDispatch builds TokenTagDispatch (see ParseEBNF).
func (p *gbnfParser) ebnfTokenTagDispatch(start int, args ebnfArgs) (*Expr, error) {
	const name = "TokenTagDispatch"
	if err := p.ebnfKnownArgs(name, args, "loop_after_dispatch", "excludes"); err != nil {
		return nil, err
	}
	triggers, rules, err := p.ebnfPairs(name, args, ebnfInt)
	if err != nil {
		return nil, err
	}
	loop, err := p.ebnfBoolArg(args, "loop_after_dispatch", true)
	if err != nil {
		return nil, err
	}
	excl, err := p.ebnfTupleArg(args, "excludes", ebnfInt)
	if err != nil {
		return nil, err
	}
	var notFree []TokenRange
	for _, x := range excl {
		for _, t := range triggers {
			if t.num == x.num {
				return nil, p.errorAt(x.off, nil, "token %d is both a trigger and excluded", x.num)
			}
		}
		notFree = append(notFree, TokenRange{x.num, x.num})
	}
	alts := make([]*Expr, len(triggers))
	for i, t := range triggers {
		notFree = append(notFree, TokenRange{t.num, t.num})
		alts[i] = Cat(TokenIDs(t.num), rules[i])
	}
	free := TokenSet(true, nil, notFree)
	switch {
	case len(alts) == 0:
		return Rep(free, 0, -1), nil
	case !loop:
		return Cat(Rep(free, 0, -1), Rep(Or(alts...), 0, 1)), nil
	}
	return Rep(Or(append([]*Expr{free}, alts...)...), 0, -1), nil
}

// ebnfRegex builds Regex(pattern) (see ParseEBNF).
func (p *gbnfParser) ebnfRegex(start int, args ebnfArgs) (*Expr, error) {
	if err := p.ebnfKnownArgs("Regex", args, "json_string"); err != nil {
		return nil, err
	}
	if len(args.pos) != 1 || args.pos[0].kind != ebnfString {
		return nil, p.errorAt(start, nil, "Regex takes one string, the pattern")
	}
	js, err := p.ebnfBoolArg(args, "json_string", false)
	if err != nil {
		return nil, err
	}
	if js {
		return nil, p.errorAt(args.keyAt["json_string"], ErrUnsupported, "Regex with json_string=true is not supported")
	}
	pat := args.pos[0]
	src, err := ecma.Translate(pat.str)
	if errors.Is(err, ecma.ErrUnsupported) {
		return nil, p.errorAt(pat.off, ErrUnsupported, "Regex: %v", err)
	} else if err != nil {
		return nil, p.errorAt(pat.off, err, "Regex: %v", err)
	}
	e, err := RegexExpr(src, p.lim)
	if err != nil {
		return nil, p.errorAt(pat.off, err, "Regex: %v", err)
	}
	return e, nil
}
