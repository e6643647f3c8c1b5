package grammar

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseGBNF parses a grammar in llama.cpp's GBNF dialect, with llguidance's
// token terminals and rein's extensions, and returns it with the rule named
// root (or "root" when root is "") as its start. It is ParseGBNFOptions
// without a JSON Schema compiler: %json is an error.
//
// The dialect, as llama.cpp's parser accepts it:
//
//	name ::= alternatives       a rule; names are made of [a-zA-Z0-9-]
//	a b                         sequence
//	a | b                       alternation
//	( ... )                     group
//	"text"                      literal (code points, UTF-8 encoded)
//	[a-z0-9_] [^"\\]            character class, negated with ^
//	.                           any code point
//	x* x+ x? x{m} x{m,} x{m,n}  repetition
//	# comment                   to the end of the line
//	<token>                     the one token whose text is <token>, such as
//	                            <|im_end|> or <think>
//	<[id]>                      the token with that id
//	!<token> !<[id]>            any one token but that one
//
// Token terminals after llguidance, which match one whole token by its
// identity, never its text (a literal "<|im_end|>" is text, which ordinary
// tokens spell; <|im_end|> is the special token):
//
//	<[1,5-9,12]>                one token whose id is in the list (ranges
//	                            inclusive)
//	<["[TOOL_CALLS]"]>          one token by its text, quoted as a literal,
//	                            for texts not of the shape <...>; quoted
//	                            texts mix with ids: <[7,"[INST]"]>
//	<[^1,5-9,"x"]>              one token not in the list
//	<[*]>                       any one token
//
// A token's text in <token> runs from '<' to the first '>', with no blank,
// control character, quote or backslash in between, and does not start
// with '['. Ids are decimal, at most 2^31-1. The names are looked up in the
// vocabulary when the grammar is compiled for one (package mask), which
// fails for a name that is no token's text; see TokenSet for what a negated
// set allows. '!' negates a list too (!<[1,2]> is <[^1,2]>).
//
// rein's extensions, which spell the IR that GBNF cannot (Grammar.String
// writes them, so every grammar prints as text this parser reads back); all
// but /re/ start with '%', as llguidance's %json does:
//
//	%json { ...schema... }      the JSON documents a JSON Schema accepts;
//	                            the object may span lines
//	/re/                        a regular expression (Go RE2 syntax, with
//	                            "/" written "\/"), matched in full
//	                            (RegexExpr), as in llguidance's lexemes
//	%text                       any UTF-8 text (Text)
//	%text -("a" | "b")          any UTF-8 text in which none of the strings
//	                            occurs (Text); it may end with part of one
//	%lit_tokens "text"          a literal in which a special token's text
//	                            may also be that token (LitTokens)
//
// %json embeds the grammar GBNFOptions.JSONSchema compiles the schema into
// (Grammar.Embed): its rules follow the source's, named "json-" (then
// "json2-", ...) followed by their name in the schema's grammar, with a
// suffix where that clashes with a rule of the source; a schema written
// twice, byte for byte, is embedded once. Errors in a schema come back
// located at the %json, with the schema's JSON pointer in Error.Pointer.
// Without GBNFOptions.JSONSchema, %json is an error wrapping ErrUnsupported.
//
// Escapes in literals and classes are \xHH, \uHHHH, \UHHHHHHHH (code points,
// not bytes: "\xFF" is U+00FF), \t, \r, \n, \\, \", \[, \] and \-. Inside a
// class, x-y is a range unless the '-' comes right before the closing ']'.
// A rule ends at the end of its line; it goes on to the next line only right
// after "::=" or '|', or inside parentheses.
//
// The result is faithful to the text: one Rule per GBNF rule, in the order the
// names first appear (embedded schemas' rules last); groups become nested Seq
// and Alt expressions, literals Bytes, classes Class (negated ones
// complemented over Unicode without the surrogates), '.' a Class of every
// code point, repetitions Repeat, token terminals Token, /re/ Regex and
// %text Text.
//
// Where llama.cpp is silent or lenient, ParseGBNF reports an error instead: a
// rule defined twice (llama.cpp keeps the last definition), an empty class "[]"
// (llama.cpp drops it), a reversed range [z-a] or <[9-5]>, a class that
// matches no code point, a repetition {m,n} with n < m, an escape beyond
// U+10FFFF or a lone surrogate. So do three slips llama.cpp reads some
// meaning into and XGrammar refuses: a '|' with nothing after it at the end
// of a rule or group ("a" |, which llama.cpp takes for an empty last
// alternative; an empty first one, ws ::= | " ", is llama.cpp's idiom and
// stays),
// a repetition operator right after another ("a"++, "a"??, "a"{1,3}{1,3},
// which llama.cpp applies in turn: write ("a"+)+), and a raw line break
// inside [...] (which llama.cpp takes as a member: write \n).
//
// lim bounds the source (GBNFBytes, %json schemas included), every
// repetition count {m,n} and the product of the counts of nested repetitions
// (GBNFRepeat; an unbounded one counts as its minimum, so that
// "((x{100}){100}){100}" cannot ask the compiler for a million copies), the
// nesting of groups and repetitions (GBNFDepth), the items
// of one token list <[...]> and the strings of one %text -(...) (Enum),
// the rules of a grammar with embedded schemas (Rules), each regular
// expression (RegexBytes), and each %json schema (the limits are passed to
// GBNFOptions.JSONSchema); a zero field means its default from
// DefaultLimits. Crossing one is an error
// wrapping ErrLimit that names the field (llama.cpp silently treats a maximum
// above 2000 as unbounded).
//
// Errors in the text come back as an ErrorList of *Error values with Source
// "gbnf" and a line:column, in source order: after a syntax error the parser
// skips to the next line that starts a rule and goes on, and every undefined
// rule is reported where it is first used; errors in a %json schema carry
// its JSON pointer too. A missing root, a source over lim.GBNFBytes or a
// grammar with embedded schemas over lim.Rules is a single *Error. Either way, errors.As with an *Error target
// finds the first error.
func ParseGBNF(src, root string, lim Limits) (*Grammar, error) {
	return ParseGBNFOptionsContext(context.Background(), src, GBNFOptions{Root: root, Limits: lim})
}

// ParseGBNFContext is ParseGBNF under ctx: once ctx is done the parse stops
// within a few thousand items and returns an *Error wrapping ctx.Err().
func ParseGBNFContext(ctx context.Context, src, root string, lim Limits) (*Grammar, error) {
	return ParseGBNFOptionsContext(ctx, src, GBNFOptions{Root: root, Limits: lim})
}

// GBNFOptions tune ParseGBNFOptions. The zero value is ParseGBNF's
// behaviour: root "root", default limits, no %json.
type GBNFOptions struct {
	// Root names the start rule; "" means "root".
	Root string
	// Limits bounds the parse (see ParseGBNF); a zero field means
	// its default from DefaultLimits.
	Limits Limits
	// JSONSchema compiles the schema of a %json expression into a grammar
	// for the JSON documents it accepts, under lim. Package
	// grammar/jsonschema's Embed is the one to use; grammar cannot call it
	// itself, since jsonschema imports grammar. Nil makes %json an error.
	JSONSchema func(schema []byte, lim Limits) (*Grammar, error)
}

// ParseGBNFOptions is ParseGBNF with options: the root rule, the limits, and
// the JSON Schema compiler that %json needs.
func ParseGBNFOptions(src string, opts GBNFOptions) (*Grammar, error) {
	return ParseGBNFOptionsContext(context.Background(), src, opts)
}

// ParseGBNFOptionsContext is ParseGBNFOptions under ctx: once ctx is done
// the parse stops within a few thousand items (or after the %json schema
// being compiled) and returns an *Error wrapping ctx.Err().
func ParseGBNFOptionsContext(ctx context.Context, src string, opts GBNFOptions) (*Grammar, error) {
	p := &gbnfParser{ctx: ctx, lim: opts.Limits.WithDefaults(), jsonSchema: opts.JSONSchema, src: src, index: map[string]int{}, info: map[*Expr]gbnfInfo{}}
	return p.run(opts.Root)
}

// run parses the source in p's dialect and returns the grammar whose start
// is the rule named root ("" means "root").
func (p *gbnfParser) run(root string) (*Grammar, error) {
	if root == "" {
		root = "root"
	}
	if len(p.src) > p.lim.GBNFBytes {
		return nil, &Error{Source: p.source(), Msg: fmt.Sprintf("source is %d bytes, more than Limits.GBNFBytes (%d)", len(p.src), p.lim.GBNFBytes), Err: ErrLimit}
	}
	if p.ebnf {
		p.ebnfParse()
	} else {
		p.parse()
	}
	if p.stopped != nil {
		return nil, &Error{Source: p.source(), Msg: "parse stopped: " + p.stopped.Error(), Err: p.stopped}
	}
	if len(p.errs) > 0 {
		return nil, p.sortedErrs()
	}
	g := &Grammar{Rules: p.rules}
	r, ok := p.index[root]
	if !ok {
		return nil, &Error{Source: p.source(), Msg: fmt.Sprintf("missing root rule %q", root)}
	}
	g.Root = r
	if err := p.embedSchemas(g); err != nil {
		return nil, err
	}
	if err := g.Validate(); err != nil {
		return nil, &Error{Source: p.source(), Msg: err.Error(), Err: err}
	}
	return g, nil
}

// gbnfParser is a recursive-descent parser over the source text. Rules are
// numbered in the order their names first appear, definitions or references.
// It reads XGrammar's EBNF too (ebnf set, see ebnf.go), which shares its
// literals, classes, repetitions, limits and error handling.
type gbnfParser struct {
	ebnf    bool // the dialect is XGrammar's EBNF, not GBNF
	ctx     context.Context
	steps   int   // items parsed, to look at ctx now and then
	stopped error // ctx's error once it is done
	lim     Limits

	src   string
	off   int
	lines posTable
	errs  ErrorList

	rules   []Rule
	index   map[string]int
	defined []int // per rule: offset of the definition, -1 while undefined
	used    []int // per rule: offset of the first reference, -1 if none

	pending []gbnfRef // references of the rule being parsed
	depth   int
	info    map[*Expr]gbnfInfo

	jsonSchema  func([]byte, Limits) (*Grammar, error)
	schemas     []*Grammar     // the compiled %json schemas, to embed
	schemaIndex map[string]int // schema text -> index in schemas
	schemaRules int            // rules of the schemas together
	schemaRefs  []gbnfSchemaRef
}

// gbnfSchemaRef is a reference to the root of embedded schema number
// schema, whose rule is known once the schemas are embedded.
type gbnfSchemaRef struct {
	ref    *Expr
	schema int
}

// gbnfRef is a reference to rule number rule at offset off.
type gbnfRef struct{ rule, off int }

// gbnfInfo is what the limits need to know of a built expression: the product
// of the counts of its nested repetitions and its nesting depth.
type gbnfInfo struct {
	weight int
	depth  int
}

// errGBNFSyntax is returned up through the parse of a rule once the error has
// been recorded; parse then skips to the next rule.
var errGBNFSyntax = errors.New("gbnf syntax error")

func (p *gbnfParser) parse() {
	p.skipSpace(true)
	for p.off < len(p.src) {
		if err := p.parseRule(); err != nil {
			if p.stopped != nil {
				return
			}
			p.skipToNextRule()
		}
		p.skipSpace(true)
	}
	p.reportUndefined()
}

// reportUndefined records an error for every rule that is used but never
// defined, where it is first used.
func (p *gbnfParser) reportUndefined() {
	for i, r := range p.rules {
		if p.defined[i] < 0 && p.used[i] >= 0 {
			p.errorAt(p.used[i], nil, "undefined rule %q", r.Name)
		}
	}
}

// commitRefs counts the references of the rule just parsed as uses. Only
// the references of rules that parsed count: a broken rule would report
// its half-read tokens as undefined rules.
func (p *gbnfParser) commitRefs() {
	for _, r := range p.pending {
		if p.used[r.rule] < 0 {
			p.used[r.rule] = r.off
		}
	}
}

// sortedErrs orders the errors by position, as go/scanner does.
func (p *gbnfParser) sortedErrs() error {
	sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].Pos.Offset < p.errs[j].Pos.Offset })
	return p.errs.Err()
}

func (p *gbnfParser) errorAt(off int, cause error, format string, args ...any) error {
	p.errs = append(p.errs, &Error{Source: p.source(), Pos: p.posOf(off), Msg: fmt.Sprintf(format, args...), Err: cause})
	return errGBNFSyntax
}

// source names the dialect in errors.
func (p *gbnfParser) source() string {
	if p.ebnf {
		return "ebnf"
	}
	return "gbnf"
}

func (p *gbnfParser) posOf(off int) Pos {
	if p.lines == nil {
		p.lines = newPosTable(p.src)
	}
	return p.lines.pos(off)
}

// ruleIndex returns the number of the rule called name, adding it if new.
func (p *gbnfParser) ruleIndex(name string) int {
	if i, ok := p.index[name]; ok {
		return i
	}
	i := len(p.rules)
	p.index[name] = i
	p.rules = append(p.rules, Rule{Name: name})
	p.defined = append(p.defined, -1)
	p.used = append(p.used, -1)
	return i
}

func (p *gbnfParser) peek() byte {
	if p.off < len(p.src) {
		return p.src[p.off]
	}
	return 0
}

func (p *gbnfParser) eof() bool { return p.off >= len(p.src) }

// skipSpace skips blanks and comments, and line breaks when newlines is set.
func (p *gbnfParser) skipSpace(newlines bool) {
	for p.off < len(p.src) {
		switch c := p.src[p.off]; {
		case c == ' ' || c == '\t':
			p.off++
		case c == '#':
			for p.off < len(p.src) && p.src[p.off] != '\n' && p.src[p.off] != '\r' {
				p.off++
			}
		case newlines && (c == '\n' || c == '\r'):
			p.off++
		default:
			return
		}
	}
}

// skipToNextRule moves to the start of the next line that starts a rule
// definition ("name ::=", in EBNF with rule options too), or to the end:
// after an error, the parse goes on from there.
func (p *gbnfParser) skipToNextRule() {
	for p.off < len(p.src) {
		for p.off < len(p.src) && p.src[p.off] != '\n' && p.src[p.off] != '\r' {
			p.off++
		}
		for p.off < len(p.src) && (p.src[p.off] == '\n' || p.src[p.off] == '\r') {
			p.off++
		}
		start, at := p.off, skipBlanksAt(p.src, p.off)
		switch {
		case p.ebnf && p.ebnfRuleStart(at):
			p.off = at
			return
		case !p.ebnf && p.gbnfRuleStart(at):
			p.off = start
			return
		}
	}
}

// gbnfRuleStart reports whether a GBNF rule definition, "name ::=", starts
// at off.
func (p *gbnfParser) gbnfRuleStart(off int) bool {
	n := off
	for n < len(p.src) && gbnfIsWordChar(p.src[n]) {
		n++
	}
	if n == off {
		return false
	}
	return strings.HasPrefix(p.src[skipBlanksAt(p.src, n):], "::=")
}

func gbnfIsWordChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-'
}

// nameChar reports whether c may stand in a rule name of the dialect.
func (p *gbnfParser) nameChar(c byte) bool {
	if p.ebnf {
		return ebnfIsNameChar(c)
	}
	return gbnfIsWordChar(c)
}

func (p *gbnfParser) parseName() string {
	start := p.off
	for p.off < len(p.src) && p.nameChar(p.src[p.off]) {
		p.off++
	}
	return p.src[start:p.off]
}

// parseRule parses "name ::= alternatives" and the line break after it.
func (p *gbnfParser) parseRule() error {
	start := p.off
	p.pending = p.pending[:0]
	name := p.parseName()
	if name == "" {
		if len(p.rules) > 0 && !p.eof() && strings.IndexByte("\"[(.|*+?{<!%/", p.src[p.off]) >= 0 {
			return p.errorAt(start, nil, "expected rule name, found %s (a rule goes on to the next line only after \"::=\", '|' or inside parentheses)", p.describe())
		}
		return p.errorAt(start, nil, "expected rule name, found %s", p.describe())
	}
	i := p.ruleIndex(name)
	redefined := p.defined[i] >= 0
	if redefined {
		p.errorAt(start, nil, "rule %q is already defined at %s", name, p.posOf(p.defined[i]))
	} else {
		p.defined[i] = start
	}
	p.skipSpace(false)
	if len(p.src)-p.off < 3 || p.src[p.off:p.off+3] != "::=" {
		return p.errorAt(p.off, nil, "expected \"::=\" after rule name %q, found %s", name, p.describe())
	}
	p.off += 3
	p.skipSpace(true)
	body, err := p.parseAlternates(false)
	if err != nil {
		return err
	}
	if !redefined {
		p.rules[i].Body = body
	}
	if p.eof() || p.src[p.off] == '\n' || p.src[p.off] == '\r' {
		p.commitRefs()
		return nil
	}
	if strings.HasPrefix(p.src[p.off:], "::=") {
		return p.errorAt(p.off, nil, "unexpected \"::=\": this line continues the rule before it, which goes on to the next line after \"::=\", '|' or inside parentheses")
	}
	return p.errorAt(p.off, nil, "unexpected %s", p.describe())
}

// describe names the byte at the current offset for error messages.
func (p *gbnfParser) describe() string {
	if p.eof() {
		return "end of input"
	}
	switch c := p.src[p.off]; c {
	case '\n', '\r':
		return "end of line"
	default:
		r, _ := utf8.DecodeRuneInString(p.src[p.off:])
		return strconv.QuoteRune(r)
	}
}

func (p *gbnfParser) parseAlternates(nested bool) (*Expr, error) {
	seq, err := p.parseSequence(nested)
	if err != nil {
		return nil, err
	}
	alts := []*Expr{seq}
	for p.peek() == '|' {
		bar := p.off
		p.off++
		p.skipSpace(true)
		if !p.ebnf && (p.eof() || p.peek() == ')') {
			// A '|' with nothing after it, at the end of a rule or group:
			// llama.cpp reads the empty string, but an empty alternative
			// that means it comes first, by llama.cpp's own idiom
			// (ws ::= | " "); this is a slip.
			return nil, p.errorAt(bar, nil, `'|' with nothing after it (an empty alternative is written first, as in x ::= | "a", or as "")`)
		}
		seq, err := p.parseSequence(nested)
		if err != nil {
			return nil, err
		}
		alts = append(alts, seq)
	}
	return p.built(Or(alts...), alts), nil
}

// parseSequence parses one or more items, each with a repetition if any:
// up to '|', ')' or the end of the rule's line in GBNF, and in EBNF up to
// '|', ')', a lookahead assertion, the next rule or the end (items are
// read by gbnfItem and ebnfItem).
func (p *gbnfParser) parseSequence(nested bool) (*Expr, error) {
	var items []*Expr
	repeated := false // the last item ends with a repetition operator
	for !p.eof() {
		if p.steps++; p.steps%1024 == 0 {
			if err := p.ctx.Err(); err != nil {
				p.stopped = err
				return nil, err
			}
		}
		start := p.off
		var item *Expr
		var err error
		c := p.src[p.off]
		switch {
		case c == '"':
			item, err = p.parseLiteral()
		case c == '[':
			item, err = p.parseClass()
		case c == '*' || c == '+' || c == '?' || c == '{':
			if len(items) == 0 {
				return nil, p.errorAt(start, nil, "repetition operator %q has nothing to repeat", c)
			}
			if repeated {
				// llama.cpp applies both; XGrammar refuses them.
				return nil, p.errorAt(start, nil, "repetition operator %q right after another: group what it repeats, as in (x+)*", c)
			}
			repeated = true
			item, err = p.parseRepetition(items[len(items)-1], nested)
			if err != nil {
				return nil, err
			}
			items[len(items)-1] = item
			p.skipSpace(nested)
			continue
		default:
			var more bool
			if p.ebnf {
				item, more, err = p.ebnfItem(start, c)
			} else {
				item, more, err = p.gbnfItem(start, c, nested)
			}
			if err == nil && !more {
				return p.endSequence(items)
			}
		}
		if err != nil {
			return nil, err
		}
		items = append(items, item)
		repeated = false
		p.skipSpace(nested)
	}
	return p.endSequence(items)
}

// endSequence builds a parsed sequence; in EBNF an empty one is an error.
func (p *gbnfParser) endSequence(items []*Expr) (*Expr, error) {
	if p.ebnf && len(items) == 0 {
		return nil, p.errorAt(p.off, nil, `expected a string, a class, a group or a rule name, found %s (write "" for the empty string)`, p.describe())
	}
	return p.built(Cat(items...), items), nil
}

// gbnfItem parses a GBNF item other than a literal or a class, starting
// with c at start; more is false where the sequence ends.
func (p *gbnfParser) gbnfItem(start int, c byte, nested bool) (item *Expr, more bool, err error) {
	switch {
	case c == '.':
		p.off++
		return Chars(true), true, nil
	case c == '(':
		item, err = p.parseGroup()
	case c == '<' || c == '!':
		item, err = p.parseToken()
	case c == '%':
		item, err = p.parseDirective(nested)
	case c == '/':
		item, err = p.parseRegex()
	case gbnfIsWordChar(c):
		item = p.reference(p.parseName(), start)
	default:
		return nil, false, nil
	}
	return item, true, err
}

// reference is a call of the rule named name, used at start.
func (p *gbnfParser) reference(name string, start int) *Expr {
	r := p.ruleIndex(name)
	p.pending = append(p.pending, gbnfRef{r, start})
	return Call(r)
}

// built records the limits information of a sequence or alternation made of parts.
func (p *gbnfParser) built(e *Expr, parts []*Expr) *Expr {
	if len(parts) < 2 {
		return e
	}
	var in gbnfInfo
	for _, s := range parts {
		si := p.infoOf(s)
		in.weight = max(in.weight, si.weight)
		in.depth = max(in.depth, si.depth)
	}
	in.depth++
	p.info[e] = in
	return e
}

func (p *gbnfParser) infoOf(e *Expr) gbnfInfo {
	if in, ok := p.info[e]; ok {
		return in
	}
	return gbnfInfo{weight: 1, depth: 1}
}

func (p *gbnfParser) parseGroup() (*Expr, error) {
	open := p.off
	p.off++
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > p.lim.GBNFDepth {
		return nil, p.errorAt(open, ErrLimit, "groups nested deeper than Limits.GBNFDepth (%d)", p.lim.GBNFDepth)
	}
	p.skipSpace(true)
	if p.ebnf && p.peek() == ')' {
		p.off++ // XGrammar's ( ): the empty string
		return Eps(), nil
	}
	e, err := p.parseAlternates(true)
	if err != nil {
		return nil, err
	}
	if p.peek() != ')' {
		if p.eof() {
			return nil, p.errorAt(open, nil, "unclosed '('")
		}
		return nil, p.errorAt(p.off, nil, "expected ')' to close '(' at %s, found %s", p.posOf(open), p.describe())
	}
	p.off++
	return e, nil
}

// parseRepetition parses one of * + ? {m} {m,} {m,n} and applies it to sub.
// Inside braces, line breaks count as blanks where they do around the braces.
func (p *gbnfParser) parseRepetition(sub *Expr, nested bool) (*Expr, error) {
	start := p.off
	lo, hi := 0, -1
	switch p.src[p.off] {
	case '*':
		p.off++
	case '+':
		p.off++
		lo = 1
	case '?':
		p.off++
		hi = 1
	case '{':
		p.off++
		p.skipSpace(nested)
		n, err := p.parseCount()
		if err != nil {
			return nil, err
		}
		lo = n
		p.skipSpace(nested)
		switch p.peek() {
		case '}':
			hi = lo
		case ',':
			p.off++
			p.skipSpace(nested)
			if p.ebnf && strings.HasPrefix(p.src[p.off:], "-1") {
				// XGrammar prints an unbounded {m,} as {m, -1}.
				p.off += 2
				p.skipSpace(nested)
			} else if c := p.peek(); '0' <= c && c <= '9' {
				if hi, err = p.parseCount(); err != nil {
					return nil, err
				}
				p.skipSpace(nested)
			}
			if p.peek() != '}' {
				return nil, p.errorAt(p.off, nil, "expected '}' to close repetition at %s, found %s", p.posOf(start), p.describe())
			}
		default:
			return nil, p.errorAt(p.off, nil, "expected ',' or '}' in repetition, found %s", p.describe())
		}
		p.off++
		if hi >= 0 && hi < lo {
			return nil, p.errorAt(start, nil, "repetition {%d,%d} has a maximum below its minimum", lo, hi)
		}
	}
	in := p.infoOf(sub)
	count := hi
	if count < 0 {
		count = lo
	}
	weight := in.weight * max(count, 1)
	if weight > p.lim.GBNFRepeat {
		return nil, p.errorAt(start, ErrLimit, "nested repetitions multiply to more copies than Limits.GBNFRepeat (%d)", p.lim.GBNFRepeat)
	}
	if in.depth+1 > p.lim.GBNFDepth {
		return nil, p.errorAt(start, ErrLimit, "repetitions nested deeper than Limits.GBNFDepth (%d)", p.lim.GBNFDepth)
	}
	e := Rep(sub, lo, hi)
	p.info[e] = gbnfInfo{weight: weight, depth: in.depth + 1}
	return e, nil
}

// parseCount parses a decimal repetition count at most Limits.GBNFRepeat.
func (p *gbnfParser) parseCount() (int, error) {
	start := p.off
	for p.off < len(p.src) && '0' <= p.src[p.off] && p.src[p.off] <= '9' {
		p.off++
	}
	if p.off == start {
		return 0, p.errorAt(p.off, nil, "expected a number in repetition, found %s", p.describe())
	}
	digits := p.src[start:p.off]
	n, err := strconv.Atoi(digits)
	if err != nil || n > p.lim.GBNFRepeat {
		return 0, p.errorAt(start, ErrLimit, "repetition count %s is above Limits.GBNFRepeat (%d)", digits, p.lim.GBNFRepeat)
	}
	return n, nil
}

func (p *gbnfParser) parseLiteral() (*Expr, error) {
	s, err := p.parseQuoted()
	if err != nil {
		return nil, err
	}
	return Lit(s), nil
}

// parseQuoted parses a string literal and returns its text.
func (p *gbnfParser) parseQuoted() (string, error) {
	open := p.off
	p.off++
	var buf []byte
	for {
		if p.eof() {
			return "", p.errorAt(open, nil, "unterminated string literal")
		}
		if p.src[p.off] == '"' {
			p.off++
			return string(buf), nil
		}
		at := p.off
		if c := p.src[p.off]; p.ebnf && (c == '\n' || c == '\r') {
			return "", p.errorAt(p.off, nil, "line break inside the string literal opened at %s (write \\n or \\r, or close it with '\"')", p.posOf(open))
		}
		r, err := p.parseChar(false)
		if err != nil {
			return "", err
		}
		if gbnfSurrogate(r) {
			return "", p.errorAt(at, nil, "surrogate code point U+%04X cannot be encoded in UTF-8", r)
		}
		buf = utf8.AppendRune(buf, r)
	}
}

func (p *gbnfParser) parseClass() (*Expr, error) {
	open := p.off
	p.off++
	negate := false
	if p.peek() == '^' {
		negate = true
		p.off++
	}
	if negate && p.ebnf && p.peek() == ']' {
		// XGrammar's [^]: any code point.
		p.off++
		return Chars(true), nil
	}
	var ranges []RuneRange
	for {
		if p.eof() {
			return nil, p.errorAt(open, nil, "unterminated character class")
		}
		if p.src[p.off] == ']' {
			p.off++
			break
		}
		if c := p.src[p.off]; c == '\n' || c == '\r' {
			// llama.cpp takes the raw byte; it is far likelier a missing ']'.
			return nil, p.errorAt(p.off, nil, "line break inside the character class opened at %s (write \\n or \\r, or close it with ']')", p.posOf(open))
		}
		at := p.off
		lo, err := p.parseChar(true)
		if err != nil {
			return nil, err
		}
		hi := lo
		if p.peek() == '-' && p.off+1 < len(p.src) && p.src[p.off+1] != ']' {
			p.off++
			if hi, err = p.parseChar(true); err != nil {
				return nil, err
			}
			if hi < lo {
				return nil, p.errorAt(at, nil, "invalid character range %s: U+%04X is above U+%04X", p.src[at:p.off], lo, hi)
			}
		} else if gbnfSurrogate(lo) {
			return nil, p.errorAt(at, nil, "surrogate code point U+%04X cannot be encoded in UTF-8", lo)
		}
		ranges = append(ranges, RuneRange{lo, hi})
	}
	if len(ranges) == 0 {
		return nil, p.errorAt(open, nil, "empty character class")
	}
	e := Chars(negate, ranges...)
	if !negate {
		e.Ranges = NormalizeRanges(removeSurrogates(e.Ranges))
	}
	if len(e.Ranges) == 0 {
		return nil, p.errorAt(open, nil, "character class %s matches no code point", p.src[open:p.off])
	}
	return e, nil
}

// parseChar parses one code point, escaped or raw, inside a literal or
// (inClass) a class, with the escapes of the dialect.
func (p *gbnfParser) parseChar(inClass bool) (rune, error) {
	start := p.off
	if p.eof() {
		return 0, p.errorAt(p.off, nil, "unexpected end of input")
	}
	c := p.src[p.off]
	if c != '\\' {
		r, n := utf8.DecodeRuneInString(p.src[p.off:])
		if r == utf8.RuneError && n <= 1 {
			return 0, p.errorAt(p.off, nil, "invalid UTF-8 byte 0x%02X", c)
		}
		p.off += n
		return r, nil
	}
	if p.off+1 >= len(p.src) {
		return 0, p.errorAt(start, nil, "unterminated escape")
	}
	e := p.src[p.off+1]
	p.off += 2
	if p.ebnf {
		return p.ebnfEscape(start, e, inClass)
	}
	switch e {
	case 'x', 'u', 'U':
		size := 2
		if e == 'u' {
			size = 4
		} else if e == 'U' {
			size = 8
		}
		var v uint64
		for i := range size {
			if p.off >= len(p.src) {
				return 0, p.errorAt(start, nil, "escape \\%c needs %d hex digits, found %d", e, size, i)
			}
			d, ok := gbnfHexDigit(p.src[p.off])
			if !ok {
				return 0, p.errorAt(start, nil, "escape \\%c needs %d hex digits, found %d", e, size, i)
			}
			v = v<<4 | uint64(d)
			p.off++
		}
		if v > maxRune {
			return 0, p.errorAt(start, nil, "escape %s is beyond U+10FFFF", p.src[start:p.off])
		}
		return rune(v), nil
	case 't':
		return '\t', nil
	case 'r':
		return '\r', nil
	case 'n':
		return '\n', nil
	case '\\', '"', '[', ']', '-':
		return rune(e), nil
	}
	r, _ := utf8.DecodeRuneInString(p.src[start+1:])
	return 0, p.errorAt(start, nil, "unknown escape \\%s", string(r))
}

func gbnfHexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func gbnfSurrogate(r rune) bool { return 0xD800 <= r && r <= 0xDFFF }

// posTable maps byte offsets of a text to line:column positions.
type posTable []int // offsets at which lines start

func newPosTable(src string) posTable {
	t := posTable{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			t = append(t, i+1)
		}
	}
	return t
}

func (t posTable) pos(off int) Pos {
	line := sort.Search(len(t), func(i int) bool { return t[i] > off }) - 1
	return Pos{Line: line + 1, Col: off - t[line] + 1, Offset: off}
}

// maxTokenID is the largest token id a token terminal may name.
const maxTokenID = 1<<31 - 1

// skipBlanks skips spaces and tabs, the only blanks a token set may hold.
func (p *gbnfParser) skipBlanks() {
	for p.off < len(p.src) && (p.src[p.off] == ' ' || p.src[p.off] == '\t') {
		p.off++
	}
}

// parseToken parses a token terminal: <token> or <[...]>, or either after
// '!', which negates it.
func (p *gbnfParser) parseToken() (*Expr, error) {
	start := p.off
	negate := p.src[p.off] == '!'
	if negate {
		p.off++
		if p.peek() != '<' {
			return nil, p.errorAt(p.off, nil, "expected a token terminal <token> or <[...]> after '!', found %s", p.describe())
		}
	}
	var e *Expr
	var err error
	if strings.HasPrefix(p.src[p.off:], "<[") {
		e, err = p.parseTokenSet()
	} else {
		e, err = p.parseTokenName()
	}
	if err != nil {
		return nil, err
	}
	if negate {
		if e.Negate {
			return nil, p.errorAt(start, nil, "'!' before a token set that is negated already (<[^...]> or <[*]>)")
		}
		e.Negate = true
	}
	return e, nil
}

// parseTokenName parses <token>, the token whose text runs from '<' to the
// first '>'.
func (p *gbnfParser) parseTokenName() (*Expr, error) {
	open := p.off
	p.off++
	for p.off < len(p.src) && gbnfTokenNameByte(p.src[p.off]) {
		p.off++
	}
	if p.peek() != '>' {
		return nil, p.errorAt(p.off, nil, "expected '>' to end the token text that starts at %s, found %s (a token's text holds no blank, control character, quote or backslash)", p.posOf(open), p.describe())
	}
	p.off++
	name := p.src[open:p.off]
	if name == "<>" {
		return nil, p.errorAt(open, nil, "<> names no token")
	}
	if !utf8.ValidString(name) {
		return nil, p.errorAt(open, nil, "token text %q is not valid UTF-8", name)
	}
	return Token(name), nil
}

// parseTokenSet parses <[...]>: <[*]>, or a list, negated by a leading '^',
// of ids, ranges of ids and quoted token texts.
func (p *gbnfParser) parseTokenSet() (*Expr, error) {
	open := p.off
	p.off += len("<[")
	p.skipBlanks()
	if p.peek() == '*' {
		p.off++
		p.skipBlanks()
		if err := p.closeTokenSet(open, `"]>"`); err != nil {
			return nil, err
		}
		return AnyToken(), nil
	}
	negate := p.peek() == '^'
	if negate {
		p.off++
		p.skipBlanks()
	}
	var names []string
	var ranges []TokenRange
	for items := 1; ; items++ {
		if items > p.lim.Enum {
			return nil, p.errorAt(open, ErrLimit, "token set has more items than Limits.Enum (%d)", p.lim.Enum)
		}
		at := p.off
		switch c := p.peek(); {
		case c == '"':
			name, err := p.parseQuoted()
			if err != nil {
				return nil, err
			}
			if name == "" {
				return nil, p.errorAt(at, nil, "an empty text names no token")
			}
			names = append(names, name)
		case '0' <= c && c <= '9':
			lo, err := p.parseTokenID()
			if err != nil {
				return nil, err
			}
			hi := lo
			p.skipBlanks()
			if p.peek() == '-' {
				p.off++
				p.skipBlanks()
				if c := p.peek(); c < '0' || c > '9' {
					return nil, p.errorAt(p.off, nil, "expected a token id after '-' in a token set, found %s", p.describe())
				}
				if hi, err = p.parseTokenID(); err != nil {
					return nil, err
				}
				if hi < lo {
					return nil, p.errorAt(at, nil, "token range %d-%d has its end below its start", lo, hi)
				}
			}
			ranges = append(ranges, TokenRange{lo, hi})
		default:
			return nil, p.errorAt(p.off, nil, "expected a token id, a range of ids or a quoted token text in a token set, found %s", p.describe())
		}
		p.skipBlanks()
		if p.peek() == ',' {
			p.off++
			p.skipBlanks()
			continue
		}
		if err := p.closeTokenSet(open, `',' or "]>"`); err != nil {
			return nil, err
		}
		return TokenSet(negate, names, ranges), nil
	}
}

// closeTokenSet reads the "]>" that closes the token set opened at open;
// want says what else could stand here, for the error.
func (p *gbnfParser) closeTokenSet(open int, want string) error {
	if strings.HasPrefix(p.src[p.off:], "]>") {
		p.off += len("]>")
		return nil
	}
	if p.peek() == ']' {
		p.off++
		want = `'>'`
	}
	return p.errorAt(p.off, nil, "expected %s to close the token set that starts at %s, found %s", want, p.posOf(open), p.describe())
}

// parseTokenID parses a decimal token id, at most maxTokenID.
func (p *gbnfParser) parseTokenID() (int, error) {
	start := p.off
	for p.off < len(p.src) && '0' <= p.src[p.off] && p.src[p.off] <= '9' {
		p.off++
	}
	digits := p.src[start:p.off]
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > maxTokenID {
		if len(digits) > 20 {
			digits = digits[:20] + "..."
		}
		return 0, p.errorAt(start, ErrLimit, "token id %s is above %d", digits, maxTokenID)
	}
	return int(n), nil
}

// parseDirective parses one of rein's extensions, which start with '%'.
func (p *gbnfParser) parseDirective(nested bool) (*Expr, error) {
	start := p.off
	p.off++
	for p.off < len(p.src) && (gbnfIsWordChar(p.src[p.off]) && p.src[p.off] != '-' || p.src[p.off] == '_') {
		p.off++
	}
	switch word := p.src[start+1 : p.off]; word {
	case "json":
		return p.parseJSONSchema(start, nested)
	case "text":
		return p.parseText(nested)
	case "lit_tokens":
		p.skipSpace(nested)
		if p.peek() != '"' {
			return nil, p.errorAt(p.off, nil, "expected a string literal after %%lit_tokens, found %s", p.describe())
		}
		s, err := p.parseQuoted()
		if err != nil {
			return nil, err
		}
		return LitTokens(s), nil
	default:
		return nil, p.errorAt(start, nil, "unknown extension %%%s (there are %%json, %%text and %%lit_tokens)", word)
	}
}

// parseRegex parses /re/: the text up to the next '/' that no backslash
// escapes, on the same line, as a regular expression.
func (p *gbnfParser) parseRegex() (*Expr, error) {
	open := p.off
	end := open + 1
	for end < len(p.src) && p.src[end] != '/' && p.src[end] != '\n' && p.src[end] != '\r' {
		if p.src[end] == '\\' && end+1 < len(p.src) && p.src[end+1] != '\n' && p.src[end+1] != '\r' {
			end++
		}
		end++
	}
	if end >= len(p.src) || p.src[end] != '/' {
		return nil, p.errorAt(open, nil, "unterminated regular expression (it ends at the next '/' on its line; write a slash inside it as \\/)")
	}
	p.off = end + 1
	e, err := RegexExpr(p.src[open+1:end], p.lim)
	if err == nil {
		return e, nil
	}
	var re *Error
	if !errors.As(err, &re) {
		return nil, p.errorAt(open, err, "regular expression: %v", err)
	}
	at := open + 1
	if re.Pos.IsValid() {
		at += re.Pos.Offset
	}
	msg := re.Msg
	if msg == "" && re.Err != nil {
		msg = re.Err.Error()
	}
	return nil, p.errorAt(at, re, "regular expression: %s", msg)
}

// parseText parses what follows %text: nothing, or the strings the text
// excludes, -("a" | "b" | ...). A '-' not followed by '(' starts a rule
// name, as in "%text -x".
func (p *gbnfParser) parseText(nested bool) (*Expr, error) {
	after := p.off
	p.skipSpace(nested)
	if p.peek() != '-' {
		p.off = after
		return Text(), nil
	}
	minus := p.off
	p.off++
	p.skipSpace(nested)
	if p.peek() != '(' {
		p.off = after
		return Text(), nil
	}
	p.off++
	p.skipSpace(true)
	var excludes []string
	for {
		if p.peek() != '"' {
			return nil, p.errorAt(p.off, nil, "expected a string literal in %%text -(...), found %s", p.describe())
		}
		if len(excludes) == p.lim.Enum {
			return nil, p.errorAt(minus, ErrLimit, "%%text -(...) excludes more strings than Limits.Enum (%d)", p.lim.Enum)
		}
		at := p.off
		s, err := p.parseQuoted()
		if err != nil {
			return nil, err
		}
		if s == "" {
			return nil, p.errorAt(at, nil, "%%text -(...) cannot exclude the empty string")
		}
		excludes = append(excludes, s)
		p.skipSpace(true)
		switch p.peek() {
		case '|':
			p.off++
			p.skipSpace(true)
		case ')':
			p.off++
			return Text(excludes...), nil
		default:
			return nil, p.errorAt(p.off, nil, "expected '|' or ')' to close the %%text -( at %s, found %s", p.posOf(minus), p.describe())
		}
	}
}

// parseJSONSchema parses the object of %json (at start), compiles it with
// the parser's JSON Schema compiler and returns a reference to the schema's
// root, which embedSchemas fills in.
func (p *gbnfParser) parseJSONSchema(start int, nested bool) (*Expr, error) {
	p.skipSpace(nested)
	if p.peek() != '{' {
		return nil, p.errorAt(p.off, nil, "expected a JSON object after %%json, found %s", p.describe())
	}
	open := p.off
	end, err := p.scanJSONObject()
	if err != nil {
		return nil, err
	}
	p.off = end
	if p.jsonSchema == nil {
		return nil, p.errorAt(start, ErrUnsupported, "%%json needs a JSON Schema compiler: parse with ParseGBNFOptions and GBNFOptions{JSONSchema: jsonschema.Embed}")
	}
	schema := p.src[open:end]
	k, ok := p.schemaIndex[schema]
	if !ok {
		if err := p.ctx.Err(); err != nil {
			p.stopped = err
			return nil, err
		}
		sub, err := p.jsonSchema([]byte(schema), p.lim)
		if err != nil {
			return nil, p.schemaErrors(start, err)
		}
		if sub == nil || sub.Root < 0 || sub.Root >= len(sub.Rules) {
			return nil, p.errorAt(start, nil, "%%json: the JSON Schema compiler returned no grammar")
		}
		p.schemaRules += len(sub.Rules)
		if len(p.rules)+p.schemaRules > p.lim.Rules {
			return nil, p.errorAt(start, ErrLimit, "the grammar and its %%json schemas have more rules than Limits.Rules (%d)", p.lim.Rules)
		}
		if p.schemaIndex == nil {
			p.schemaIndex = map[string]int{}
		}
		k = len(p.schemas)
		p.schemas = append(p.schemas, sub)
		p.schemaIndex[schema] = k
	}
	ref := &Expr{Op: OpRef, Rule: -1}
	p.schemaRefs = append(p.schemaRefs, gbnfSchemaRef{ref: ref, schema: k})
	return ref, nil
}

// scanJSONObject returns the offset just past the JSON object that starts
// at the current offset: the '}' that closes its '{', with brackets matched
// outside strings and escapes inside them skipped. It checks nothing else
// of the JSON, which the schema compiler parses.
func (p *gbnfParser) scanJSONObject() (int, error) {
	open := p.off
	var stack []byte // the open brackets
	for i := open; i < len(p.src); i++ {
		switch c := p.src[i]; c {
		case '"':
			str := i
			for i++; i < len(p.src) && p.src[i] != '"'; i++ {
				if p.src[i] == '\\' {
					i++
				}
			}
			if i >= len(p.src) {
				return 0, p.errorAt(str, nil, "unterminated string in the %%json object")
			}
		case '{', '[':
			stack = append(stack, c)
		case '}', ']':
			want := byte('{')
			if c == ']' {
				want = '['
			}
			if stack[len(stack)-1] != want {
				return 0, p.errorAt(i, nil, "%q does not close the %q before it in the %%json object", c, stack[len(stack)-1])
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1, nil
			}
		}
	}
	return 0, p.errorAt(open, nil, "unclosed %%json object")
}

// schemaErrors records the errors of a %json schema at start, the place of
// the %json, each with the JSON pointer the schema compiler gave it.
func (p *gbnfParser) schemaErrors(start int, err error) error {
	var list ErrorList
	var one *Error
	switch {
	case errors.As(err, &list) && len(list) > 0:
	case errors.As(err, &one):
		list = ErrorList{one}
	default:
		return p.errorAt(start, err, "%%json: %v", err)
	}
	for _, e := range list {
		msg := e.Msg
		if msg == "" && e.Err != nil {
			msg = e.Err.Error()
		}
		p.errs = append(p.errs, &Error{Source: "gbnf", Pos: p.posOf(start), Pointer: e.Pointer, Msg: "%json: " + msg, Err: e})
	}
	return errGBNFSyntax
}

// embedSchemas appends the rules of the %json schemas to g and points the
// references to them at their roots.
func (p *gbnfParser) embedSchemas(g *Grammar) error {
	if len(p.schemas) == 0 {
		return nil
	}
	roots := make([]int, len(p.schemas))
	for i, sub := range p.schemas {
		prefix := "json-"
		if i > 0 {
			prefix = fmt.Sprintf("json%d-", i+1)
		}
		roots[i] = g.Embed(sub, prefix)
	}
	for _, r := range p.schemaRefs {
		r.ref.Rule = roots[r.schema]
	}
	if len(g.Rules) > p.lim.Rules {
		return &Error{Source: "gbnf", Msg: fmt.Sprintf("the grammar and its %%json schemas have %d rules, more than Limits.Rules (%d)", len(g.Rules), p.lim.Rules), Err: ErrLimit}
	}
	return nil
}
