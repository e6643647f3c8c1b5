package jsonschema

import (
	"context"
	"errors"
	"fmt"
	"regexp/syntax"
	"strings"

	"github.com/reinlm/rein/grammar"
)

// PropertyOrder says in which order an object's declared properties may appear.
type PropertyOrder uint8

const (
	// OrderAuto, the default, accepts the declared properties of an object
	// in any order, each at most once, with undeclared keys anywhere among
	// them, where the object declares at most Limits.AnyOrderProperties
	// properties (the grammar needs a rule per set of them written). Larger
	// objects, objects whose minProperties or maxProperties also count
	// undeclared keys, objects that must hold a key a negation asks for, and
	// the elements of the XML styles keep OrderDeclared's order. It is
	// exact either way: what it accepts, the schema accepts.
	OrderAuto PropertyOrder = iota
	// OrderDeclared accepts declared properties in the order the schema lists
	// them (merged subschemas of allOf in their order); other keys follow
	// them. Jump-forward gains from it: each key that must come next is
	// forced.
	OrderDeclared
	// OrderAny accepts declared properties in any order. Required properties
	// are tracked exactly up to Limits.AnyOrderRequired of them.
	OrderAny
)

// Whitespace says what the grammar accepts between JSON tokens.
type Whitespace uint8

const (
	// WhitespaceFlexible accepts compact JSON and ordinary pretty-printing: at
	// each place between tokens, an optional line break ("\n" or "\r\n")
	// followed by at most Options.MaxIndent spaces and tabs. Runs are
	// bounded, so a model cannot loop on whitespace.
	WhitespaceFlexible Whitespace = iota
	// WhitespaceCompact accepts no whitespace at all.
	WhitespaceCompact
	// WhitespacePattern accepts Options.WhitespacePattern (RE2 syntax,
	// matched in full) between tokens.
	WhitespacePattern
)

// Options tune Compile. The zero value is the default: strict, declared
// property order, flexible whitespace, default limits.
type Options struct {
	// Lenient turns keywords that cannot be enforced into warnings: the
	// keyword is ignored (the grammar accepts more than the schema) and
	// listed in the returned warnings instead of failing the compilation.
	Lenient bool
	// FormatAnnotation reads format as drafts 2019-09 and 2020-12 do by
	// default (the format-annotation vocabulary): an annotation, not
	// enforced, so any string a format names is accepted and unknown
	// formats are no warning. By default rein asserts the formats it knows
	// (format-assertion), which is what a model's output usually needs.
	FormatAnnotation bool
	// Order is the accepted order of declared object properties.
	Order PropertyOrder
	// Whitespace is the whitespace mode; WhitespacePattern uses WhitespacePattern.
	Whitespace        Whitespace
	WhitespacePattern string
	// MaxIndent bounds the run of spaces and tabs in WhitespaceFlexible mode
	// (default 40); above Limits.Repeat it is an error wrapping
	// grammar.ErrLimit.
	MaxIndent int
	// DefaultDraft is the draft assumed when $schema is absent: 4, 6, 7, 2019
	// or 2020 (default 2020).
	DefaultDraft int
	// LoadRef, when set, returns the document for a $ref to an absolute URI
	// that the schema does not contain (without fragment). ctx is the
	// compile's context: a loader that does I/O should stop when it is done.
	LoadRef func(ctx context.Context, uri string) ([]byte, error)

	// Style is how the document is written: JSON (the zero value) or one
	// of the XML-like argument styles of tool-calling models, where the
	// schema's top level must be an object (see xml.go for what each style
	// accepts); an unknown style is an error.
	Style Style

	// Limits bounds the work of one compilation; a zero field means its
	// default from grammar.DefaultLimits. The front-end reads SchemaBytes,
	// SchemaStringBytes, SchemaKeyBytes, SchemaNumberDigits, SchemaDepth,
	// SchemaNodes, SchemaDocuments, Enum, Repeat, Alternatives, AnyOrderRequired, Rules,
	// ExprNodes, RegexBytes and PatternStates. Crossing one is an error
	// wrapping grammar.ErrLimit that names the field; crossing
	// PatternStates wraps grammar.ErrUnsupported too, and in Lenient mode
	// drops the constraint with a warning.
	Limits grammar.Limits
}

// Style is how a document is written. The XML styles write each property
// of the top-level object as an element, with string values raw and other
// values as JSON (see docs/design/tool-calling.md, section 2.1):
//
//   - The schema's top level must accept objects (an error naming the
//     pointer otherwise). Elements come in the order Options.Order asks,
//     with [ \n\t]* before and after each element and around JSON values.
//   - Undeclared properties are not written: additionalProperties absent
//     or true admits none; a schema for them, or patternProperties, is
//     unsupported. Property counts beyond what required implies are
//     unsupported.
//   - A raw string cannot hold its element's closing tag, nor the opening
//     of any element (the next property's, a nested Cohere value's), so
//     it cannot swallow what follows it; it may be empty. What follows the
//     document (the end of the call that holds it) is not known here and
//     not excluded, but the closing tag must come first. enum and const become raw literals (values holding a
//     tag are dropped); a pattern or format is kept when none of its
//     strings holds a tag (else unsupported), with minLength and maxLength
//     folded into it where its repetitions allow; minLength and maxLength
//     alone are kept by counting characters other than '<' (a
//     length-bounded string holds no '<' in its counted part); not is
//     unsupported.
//   - DeepSeek's string attribute is "true" exactly for raw strings;
//     Cohere's type is raw, json (numbers, booleans, null), dict (nested
//     named elements) or list (nested unnamed elements); Kimi-K3's type is
//     the JSON type, "number" for integers too. Styles without a type mark
//     accept a raw string or JSON where the schema allows both.
//   - The DeepSeek and Kimi-K3 markup is built with grammar.LitTokens, so
//     their special tokens match where the vocabulary has them.
//
// Unsupported means an error wrapping grammar.ErrUnsupported, or in Lenient
// mode a warning, with the constraint dropped (a raw string then takes any
// raw text) or the undeclared properties not written.
type Style string

// The styles.
const (
	StyleJSON        Style = ""            // JSON
	StyleQwenXML     Style = "qwen_xml"    // <parameter=KEY>VALUE</parameter>
	StyleMiniMaxXML  Style = "minimax_xml" // <parameter name="KEY">VALUE</parameter>
	StyleDeepSeekXML Style = "deepseek_xml"
	StyleGLMXML      Style = "glm_xml" // <arg_key>KEY</arg_key><arg_value>VALUE</arg_value>
	StyleCohereXML   Style = "cohere_xml"
	StyleKimiK3XML   Style = "kimi_k3_xml"
)

func (o *Options) setDefaults() {
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&o.MaxIndent, 40)
	def(&o.DefaultDraft, 2020)
	o.Limits = o.Limits.WithDefaults()
}

// Warning reports a keyword that Lenient mode ignored, a format that is
// not known and so not checked, or a key that an object of the schema
// writes more than once (the last of its values counts; at most 16 of
// these are listed). Compile returns at most 256; where there are more,
// the last one, with no pointer, counts the others.
type Warning struct {
	Pointer string // JSON pointer of the keyword in the schema
	Keyword string
	Msg     string
}

func (w Warning) String() string {
	if w.Pointer == "" {
		return w.Msg
	}
	return w.Pointer + ": " + w.Msg
}

// Compile compiles a JSON Schema (drafts 4, 6, 7, 2019-09 and 2020-12) into
// a grammar for the JSON documents it accepts.
//
// The grammar accepts documents that the schema validates, written as JSON
// with the whitespace that opts allows, object properties in the order opts
// asks for, and numbers and strings as follows: strings constrained by
// pattern, format, enum or const, and object keys, are accepted in their
// canonical spelling (characters literally, except the escapes \" \\ \b \f
// \n \r \t and \u00XX for other control characters); other strings accept
// every JSON escape. Numbers with bounds or multipleOf are written without
// exponent. Keywords the grammar cannot enforce (uniqueItems, most uses of
// not, ...) are errors naming their JSON pointer, unless opts.Lenient is set;
// then they are ignored and reported as warnings. Annotations and unknown
// keywords are ignored; unknown formats are ignored with a warning.
//
// Errors are *grammar.Error values with Source "jsonschema" (or a
// grammar.ErrorList of them); they wrap grammar.ErrUnsupported for what
// cannot be enforced and grammar.ErrLimit when a bound of opts.Limits is
// crossed.
func Compile(schema []byte, opts Options) (*grammar.Grammar, []Warning, error) {
	return CompileContext(context.Background(), schema, opts)
}

// CompileContext is Compile under a context: when ctx is cancelled or its
// deadline passes, the compilation stops within a few thousand steps of work
// (rules, expression nodes, automaton states, normalization and validation
// steps) and returns a *grammar.Error wrapping ctx.Err(). ctx is also passed
// to opts.LoadRef.
func CompileContext(ctx context.Context, schema []byte, opts Options) (*grammar.Grammar, []Warning, error) {
	opts.setDefaults()
	if err := ctx.Err(); err != nil {
		return nil, nil, &grammar.Error{Source: "jsonschema", Msg: "compilation stopped: " + err.Error(), Err: err}
	}
	if opts.MaxIndent > opts.Limits.Repeat {
		return nil, nil, &grammar.Error{Source: "jsonschema", Err: grammar.ErrLimit,
			Msg: fmt.Sprintf("Options.MaxIndent (%d) is above Limits.Repeat (%d)", opts.MaxIndent, opts.Limits.Repeat)}
	}
	c := newCompiler(ctx, opts)
	g, err := c.compile(schema)
	if err != nil {
		return nil, c.finishWarnings(), err
	}
	return g, c.finishWarnings(), nil
}

// newCompiler returns the state of one compilation under ctx; opts
// have their defaults set.
func newCompiler(ctx context.Context, opts Options) *compiler {
	c := &compiler{
		ctx:        ctx,
		opts:       opts,
		warned:     map[string]struct{}{},
		ruleOf:     map[string]int{},
		conjRule:   map[string]int{},
		dnfMemo:    map[int][]*schema{},
		inDNF:      map[int]bool{},
		negMemo:    map[int][]*schema{},
		names:      map[string]int{},
		charMemo:   map[string]*grammar.Expr{},
		regexes:    map[string]*pattern{},
		negNodes:   map[string]*node{},
		keyRules:   map[string]int{},
		escRules:   map[string]int{},
		escMasks:   map[uint64]int{},
		chunkRules: map[*grammar.Expr]int{},
	}
	c.ix = &schemaIndex{c: c, docs: map[string]*doc{}, resources: map[string]*node{}, anchors: map[string]*node{}}
	c.falseNode = &node{kind: kindBool, key: "false", id: -2}
	return c
}

// compiler holds the state of one Compile call.
type compiler struct {
	ctx      context.Context
	work     int // steps since ctx was last checked
	opts     Options
	ix       *schemaIndex
	warnings []Warning
	warned   map[string]struct{} // pointer and message of every warning (addWarning)
	repeats  int                 // warnings listed about repeated keys
	unlisted int                 // warnings left out
	// firstUnlisted is the first of them, listed after all where it is
	// the only one.
	firstUnlisted Warning

	rules    []grammar.Rule
	ruleOf   map[string]int // DNF key -> rule
	conjRule map[string]int // conjunction key -> rule (-1: empty language)
	names    map[string]int

	dnfMemo    map[int][]*schema // node id -> its branches
	inDNF      map[int]bool
	negMemo    map[int][]*schema // node id -> the branches of its negation, by parts
	synth      int               // synthetic node ids, counting down from -3
	negNodes   map[string]*node
	negAt      loc                   // the keyword (val) and pointer of the negation being built
	keyRules   map[string]int        // key language -> rule of the quoted key
	escRules   map[string]int        // name of a shared rule -> rule
	escMasks   map[uint64]int        // characters spelled escaped (see escapes) -> rule
	chunkRules map[*grammar.Expr]int // repeated expression -> rule of 64 of them

	falseNode *node

	ws       *grammar.Expr
	anyValue int // rule of any JSON value, -1 until made
	anyStr   int
	charMemo map[string]*grammar.Expr // normalized ranges (charSet's key) -> expression
	charKey  []byte                   // charSet's key, built here
	regexes  map[string]*pattern
	exprSize int
	depth    int
}

// ErrNoValue is wrapped by the error for a schema that no JSON value
// satisfies ({"allOf":[false]}, a string with minLength above maxLength):
// a grammar for it would match nothing, so no document can be decoded.
var ErrNoValue = errors.New("no value satisfies the schema")

func (c *compiler) compile(schema []byte) (*grammar.Grammar, error) {
	doc, err := c.ix.parse(schema, defaultBase, "")
	if err != nil {
		return nil, err
	}
	c.ix.resources[defaultBase] = doc.root
	c.ix.rootBase = doc.root.base
	c.anyValue, c.anyStr = -1, -1
	if err := c.setupWhitespace(); err != nil {
		return nil, err
	}
	if doc.root.kind != kindObject && doc.root.kind != kindBool {
		return nil, c.errorf("", "", nil, "a schema must be an object or a boolean, not %s", kindName(doc.root.kind))
	}
	var root int
	if c.opts.Style != StyleJSON {
		root, err = c.xmlRoot(doc.root)
	} else {
		root, err = c.ruleFor(conj{doc.root}, "root")
	}
	if err != nil {
		return nil, err
	}
	if root < 0 {
		return nil, c.errorf("", "", ErrNoValue, "the schema accepts no value")
	}
	if err := c.ix.checkUnique(); err != nil {
		return nil, err
	}
	g := prune(&grammar.Grammar{Rules: c.rules, Root: root})
	if err := g.Validate(); err != nil {
		return nil, &grammar.Error{Source: "jsonschema", Msg: err.Error(), Err: err}
	}
	return g, nil
}

// prune drops the rules the root cannot reach (rules made for branches
// that turned out empty, shared helpers nobody used) and renumbers the rest.
func prune(g *grammar.Grammar) *grammar.Grammar {
	reach := make([]bool, len(g.Rules))
	var visit func(e *grammar.Expr)
	stack := []int{g.Root}
	reach[g.Root] = true
	visit = func(e *grammar.Expr) {
		if e.Op == grammar.OpRef && !reach[e.Rule] {
			reach[e.Rule] = true
			stack = append(stack, e.Rule)
		}
		for _, s := range e.Subs {
			visit(s)
		}
	}
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		visit(g.Rules[r].Body)
	}
	index := make([]int, len(g.Rules))
	out := &grammar.Grammar{}
	for i, r := range g.Rules {
		index[i] = -1
		if reach[i] {
			index[i] = len(out.Rules)
			out.Rules = append(out.Rules, r)
		}
	}
	if len(out.Rules) == len(g.Rules) {
		return g
	}
	out.Root = index[g.Root]
	copied := map[*grammar.Expr]*grammar.Expr{}
	var rewrite func(e *grammar.Expr) *grammar.Expr
	rewrite = func(e *grammar.Expr) *grammar.Expr {
		if d, ok := copied[e]; ok {
			return d
		}
		d := *e
		if e.Op == grammar.OpRef {
			d.Rule = index[e.Rule]
		}
		if len(e.Subs) > 0 {
			d.Subs = make([]*grammar.Expr, len(e.Subs))
			for i, s := range e.Subs {
				d.Subs[i] = rewrite(s)
			}
		}
		copied[e] = &d
		return &d
	}
	for i := range out.Rules {
		out.Rules[i].Body = rewrite(out.Rules[i].Body)
	}
	return out
}

func kindName(k kind) string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// errorf returns a *grammar.Error for the keyword kw of the schema node at ptr.
func (c *compiler) errorf(ptr, kw string, cause error, format string, args ...any) error {
	p := ptr
	if kw != "" {
		p += "/" + escapePointer(kw)
	}
	if p == "" {
		p = "#" // the root; the empty pointer would not be shown
	}
	msg := fmt.Sprintf(format, args...)
	if kw != "" {
		msg = kw + ": " + msg
	}
	return &grammar.Error{Source: "jsonschema", Pointer: p, Msg: msg, Err: cause}
}

func (c *compiler) limitf(ptr, kw, format string, args ...any) error {
	return c.errorf(ptr, kw, grammar.ErrLimit, format, args...)
}

// unsupported reports a keyword that cannot be enforced: an error in strict
// mode, a warning (and nil) in Lenient mode.
func (c *compiler) unsupported(ptr, kw, format string, args ...any) error {
	if c.opts.Lenient {
		c.warn(ptr, kw, format+" (ignored)", args...)
		return nil
	}
	return c.errorf(ptr, kw, grammar.ErrUnsupported, format, args...)
}

// warn adds a warning on keyword kw of the schema at ptr, once per pointer
// and message.
func (c *compiler) warn(ptr, kw, format string, args ...any) {
	c.addWarning(ptr, kw, false, format, args...)
}

// addWarning is warn; repeat marks a key that an object writes twice,
// whose warnings are listed up to maxRepeatWarnings so that they never
// crowd out the others. Past maxWarnings-1 listed, the rest are counted:
// a schema of a million unknown formats costs neither a million warnings
// nor a search of them for every new one.
func (c *compiler) addWarning(ptr, kw string, repeat bool, format string, args ...any) {
	w := Warning{Pointer: ptr + "/" + escapePointer(kw), Keyword: kw, Msg: kw + ": " + fmt.Sprintf(format, args...)}
	key := w.Pointer + "\x00" + w.Msg
	if _, ok := c.warned[key]; ok {
		return
	}
	c.warned[key] = struct{}{}
	if len(c.warnings) == maxWarnings-1 || repeat && c.repeats == maxRepeatWarnings {
		if c.unlisted++; c.unlisted == 1 {
			c.firstUnlisted = w
		}
		return
	}
	if repeat {
		c.repeats++
	}
	c.warnings = append(c.warnings, w)
}

// finishWarnings returns the warnings: the one left out, or one counting
// those left out.
func (c *compiler) finishWarnings() []Warning {
	switch {
	case c.unlisted == 1:
		return append(c.warnings, c.firstUnlisted)
	case c.unlisted > 1:
		return append(c.warnings, Warning{Msg: fmt.Sprintf("%d more warnings, not listed (%d are)", c.unlisted, len(c.warnings))})
	}
	return c.warnings
}

// maxWarnings is the most warnings Compile returns, the last of them
// counting those left out where there are more; maxRepeatWarnings the most
// of them about repeated keys.
const (
	maxWarnings       = 256
	maxRepeatWarnings = 16
)

// newRule appends a rule, within Limits.Rules, and returns its index.
func (c *compiler) newRule(name string, body *grammar.Expr) (int, error) {
	if err := c.tick(1); err != nil {
		return 0, err
	}
	if len(c.rules) >= c.opts.Limits.Rules {
		return 0, c.limitf("", "", "the grammar needs more rules than Limits.Rules (%d)", c.opts.Limits.Rules)
	}
	return c.addRule(name, body), nil
}

// addRule appends a rule with a name made unique and returns its index.
func (c *compiler) addRule(name string, body *grammar.Expr) int {
	if n := c.names[name]; n > 0 {
		c.names[name] = n + 1
		name = fmt.Sprintf("%s-%d", name, n+1)
	} else {
		c.names[name] = 1
	}
	c.rules = append(c.rules, grammar.Rule{Name: name, Body: body})
	return len(c.rules) - 1
}

// ruleName turns a JSON pointer into a rule name.
func ruleName(ptr string) string {
	if ptr == "" {
		return "root"
	}
	var b strings.Builder
	for _, r := range strings.TrimPrefix(ptr, "/") {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			if s := b.String(); !strings.HasSuffix(s, "-") {
				b.WriteByte('-')
			}
		}
		if b.Len() > 60 {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		return "schema"
	}
	return s
}

// ruleFor returns the rule that matches the conjunction of schemas conj, or
// -1 when no value satisfies it. Rules are shared by every conjunction with
// the same normalized form.
func (c *compiler) ruleFor(conj conj, name string) (int, error) {
	if err := c.tick(1); err != nil {
		return 0, err
	}
	ck := conj.key()
	if r, ok := c.conjRule[ck]; ok {
		return r, nil
	}
	ptr := ""
	if len(conj) > 0 {
		ptr = conj[0].ptr
	}
	if name == "" {
		name = ruleName(ptr)
	}
	branches, err := c.conjDNF(conj, ptr)
	if err != nil {
		return 0, err
	}
	if len(branches) == 0 {
		c.conjRule[ck] = -1
		return -1, nil
	}
	dk := branchesKey(branches)
	if r, ok := c.ruleOf[dk]; ok {
		c.conjRule[ck] = r
		return r, nil
	}
	if isAny(branches) && c.anyValue >= 0 {
		c.conjRule[ck], c.ruleOf[dk] = c.anyValue, c.anyValue
		return c.anyValue, nil
	}
	r, err := c.newRule(name, grammar.Eps())
	if err != nil {
		return 0, err
	}
	c.conjRule[ck], c.ruleOf[dk] = r, r
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > c.opts.Limits.SchemaDepth {
		return 0, c.limitf(ptr, "", "subschemas nest deeper than Limits.SchemaDepth (%d)", c.opts.Limits.SchemaDepth)
	}
	body, err := c.compileBranches(branches)
	if err != nil {
		return 0, err
	}
	if body == nil {
		// Every branch turned out empty (for example a string whose
		// minLength exceeds its maxLength).
		c.conjRule[ck], c.ruleOf[dk] = -1, -1
		c.rules[r].Body = &grammar.Expr{Op: grammar.OpAlt}
		return -1, nil
	}
	c.rules[r].Body = body
	return r, nil
}

// compileBranches compiles the alternatives of a normalized subschema.
func (c *compiler) compileBranches(branches []*schema) (*grammar.Expr, error) {
	var alts []*grammar.Expr
	for _, s := range branches {
		e, err := c.compileBranch(s)
		if err != nil {
			return nil, err
		}
		if e != nil {
			alts = append(alts, e)
		}
	}
	return c.or(alts...), nil
}

// compileBranch compiles one conjunctive schema: the union of its types.
func (c *compiler) compileBranch(s *schema) (*grammar.Expr, error) {
	if err := c.checkNots(s); err != nil {
		return nil, err
	}
	if s.hasEnum {
		return c.compileEnum(s)
	}
	var alts []*grammar.Expr
	add := func(e *grammar.Expr, err error) error {
		if err != nil {
			return err
		}
		if e != nil {
			alts = append(alts, e)
		}
		return nil
	}
	if s.types&jtObject != 0 {
		if err := add(c.compileObject(s)); err != nil {
			return nil, err
		}
	}
	if s.types&jtArray != 0 {
		if err := add(c.compileArray(s)); err != nil {
			return nil, err
		}
	}
	if s.types&jtString != 0 {
		if err := add(c.compileString(s)); err != nil {
			return nil, err
		}
	}
	if s.types&jtNumber != 0 {
		if err := add(c.compileNumber(s)); err != nil {
			return nil, err
		}
	}
	if s.types&jtBool != 0 {
		if err := add(c.excludeLiterals(s, grammar.Or(grammar.Lit("true"), grammar.Lit("false")), kindBool)); err != nil {
			return nil, err
		}
	}
	if s.types&jtNull != 0 {
		if err := add(c.excludeLiterals(s, grammar.Lit("null"), kindNull)); err != nil {
			return nil, err
		}
	}
	return c.or(alts...), nil
}

// checkEvery is how many steps of work pass between two checks of the
// compile's context.
const checkEvery = 1024

// tick counts n steps of work and, every checkEvery of them, returns an
// error wrapping the context's error once it is cancelled or past its
// deadline.
func (c *compiler) tick(n int) error {
	c.work += n
	if c.work < checkEvery {
		return nil
	}
	c.work = 0
	if err := c.ctx.Err(); err != nil {
		return &grammar.Error{Source: "jsonschema", Msg: "compilation stopped: " + err.Error(), Err: err}
	}
	return nil
}

// stopped is the error of a compile whose context has ended (the caller
// has seen ctx.Err() != nil), as tick reports it.
func (c *compiler) stopped() error {
	c.work = checkEvery
	return c.tick(0)
}

// Expression helpers that propagate nil as "matches nothing" and count size.

func (c *compiler) count(n int) error {
	if err := c.tick(n); err != nil {
		return err
	}
	c.exprSize += n
	if c.exprSize > c.opts.Limits.ExprNodes {
		return c.limitf("", "", "the grammar needs more expression nodes than Limits.ExprNodes (%d)", c.opts.Limits.ExprNodes)
	}
	return nil
}

// or is Or without the empty alternatives (nil); nil when all are empty.
func (c *compiler) or(alts ...*grammar.Expr) *grammar.Expr {
	out := alts[:0:0]
	for _, a := range alts {
		if a != nil {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil
	}
	c.exprSize += len(out)
	return grammar.Or(out...)
}

// cat is Cat that is nil when a part is nil, and flattens nested sequences.
func (c *compiler) cat(parts ...*grammar.Expr) *grammar.Expr {
	out := make([]*grammar.Expr, 0, len(parts))
	for _, p := range parts {
		if p == nil {
			return nil
		}
		switch p.Op {
		case grammar.OpEmpty:
			continue
		case grammar.OpSeq:
			out = append(out, p.Subs...)
			continue
		}
		out = append(out, p)
	}
	c.exprSize += len(out)
	// Merge adjacent literals.
	merged := out[:0]
	for _, p := range out {
		if n := len(merged); n > 0 && p.Op == grammar.OpBytes && merged[n-1].Op == grammar.OpBytes {
			b := append(append([]byte(nil), merged[n-1].Bytes...), p.Bytes...)
			merged[n-1] = &grammar.Expr{Op: grammar.OpBytes, Bytes: b}
			continue
		}
		merged = append(merged, p)
	}
	return grammar.Cat(merged...)
}

// opt is e or nothing.
func (c *compiler) opt(e *grammar.Expr) *grammar.Expr {
	if e == nil {
		return grammar.Eps()
	}
	return grammar.Rep(e, 0, 1)
}

// rep is Rep with nil handling: zero repetitions of nothing is the empty string.
func (c *compiler) rep(e *grammar.Expr, lo, hi int) *grammar.Expr {
	if hi == 0 {
		return grammar.Eps()
	}
	if e == nil {
		if lo == 0 {
			return grammar.Eps()
		}
		return nil
	}
	if lo == 1 && hi == 1 {
		return e
	}
	c.exprSize++
	return grammar.Rep(e, lo, hi)
}

// inlineRepeat is the largest count of a bounded repetition written out in
// one rule; larger counts are split into chunks held by rules (bigRepeat).
const inlineRepeat = 256

// bigRepeat matches e between min and max times (max < 0: unbounded). The
// first inlineRepeat repetitions are written out in the caller's rule;
// repetitions past them become chunks of a helper rule, so that no rule's
// automaton has to count to the full bound.
//
// A chunk's end is a rule end inside the repetition: a token that crosses it
// (most tokens, a few characters before it, inside a long string) can only
// be decided against the matcher's stack, a walk of every such token at
// every chunk end. Writing the first repetitions out keeps that cost off
// every document shorter than them.
func (c *compiler) bigRepeat(e *grammar.Expr, lo, hi int, name string) (*grammar.Expr, error) {
	if hi >= 0 && hi < lo {
		return nil, nil
	}
	if hi > c.opts.Limits.Repeat || lo > c.opts.Limits.Repeat {
		return nil, c.limitf("", "", "a repetition count of %d is above Limits.Repeat (%d)", max(lo, hi), c.opts.Limits.Repeat)
	}
	if e == nil {
		return c.rep(nil, lo, hi), nil
	}
	const head = inlineRepeat
	if hi <= head && lo <= head || hi < 0 && lo <= head {
		return c.rep(e, lo, hi), nil
	}
	// e{lo,hi} is e{head} e{lo-head,hi-head} when lo reaches head, else
	// e{lo,head-1} | e{head} e{0,hi-head}: the two share their first
	// head-1 positions in one automaton, so the choice costs nothing.
	restHi := hi - head
	if hi < 0 {
		restHi = -1
	}
	rest, err := c.chunkedRepeat(e, max(lo-head, 0), restHi, name)
	if err != nil {
		return nil, err
	}
	full := c.cat(c.rep(e, head, head), rest)
	if lo >= head {
		return full, nil
	}
	return c.or(c.rep(e, lo, head-1), full), nil
}

// chunkedRepeat matches e between lo and hi times (hi < 0: unbounded) with
// chunks: x{0,N} with N = q*B + r is (X{0,q-1} x{0,B-1} | X{q} x{0,r}) where
// X ::= x{B}, which has bounded ambiguity (the last chunk or the tail).
func (c *compiler) chunkedRepeat(e *grammar.Expr, lo, hi int, name string) (*grammar.Expr, error) {
	const chunk = 64
	x, ok := c.chunkRules[e]
	if !ok {
		var err error
		if x, err = c.newRule(name+"-chunk", grammar.Rep(e, chunk, chunk)); err != nil {
			return nil, err
		}
		c.chunkRules[e] = x
	}
	X := grammar.Call(x)
	// The fixed part: lo = a*chunk + b.
	a, b := lo/chunk, lo%chunk
	fixed := c.cat(c.rep(X, a, a), c.rep(e, b, b))
	if hi < 0 {
		return c.cat(fixed, grammar.Rep(e, 0, -1)), nil
	}
	n := hi - lo
	q, r := n/chunk, n%chunk
	var tail *grammar.Expr
	if q == 0 {
		tail = c.rep(e, 0, r)
	} else {
		tail = c.or(
			c.cat(c.rep(X, 0, q-1), c.rep(e, 0, chunk-1)),
			c.cat(c.rep(X, q, q), c.rep(e, 0, r)),
		)
	}
	return c.cat(fixed, tail), nil
}

// setupWhitespace builds the expression placed between JSON tokens.
func (c *compiler) setupWhitespace() error {
	switch c.opts.Whitespace {
	case WhitespaceCompact:
		c.ws = grammar.Eps()
	case WhitespacePattern:
		re, err := syntax.Parse(c.opts.WhitespacePattern, syntax.Perl)
		if err != nil {
			return &grammar.Error{Source: "jsonschema", Msg: "whitespace pattern: " + err.Error(), Err: err}
		}
		e, err := grammar.RegexExpr(re.String(), c.opts.Limits)
		if err != nil {
			return &grammar.Error{Source: "jsonschema", Msg: "whitespace pattern: " + err.Error(), Err: err}
		}
		r, err := c.newRule("ws", e)
		if err != nil {
			return err
		}
		c.ws = grammar.Call(r)
	default:
		body := grammar.Cat(
			grammar.Rep(grammar.Or(grammar.Lit("\n"), grammar.Lit("\r\n")), 0, 1),
			grammar.Rep(grammar.Chars(false, grammar.RuneRange{Lo: ' ', Hi: ' '}, grammar.RuneRange{Lo: '\t', Hi: '\t'}), 0, c.opts.MaxIndent),
		)
		r, err := c.newRule("ws", body)
		if err != nil {
			return err
		}
		c.ws = grammar.Call(r)
	}
	return nil
}

// anyValueRule returns the rule of any JSON value.
func (c *compiler) anyValueRule() (int, error) {
	if c.anyValue >= 0 {
		return c.anyValue, nil
	}
	val, err := c.newRule("value", grammar.Eps())
	if err != nil {
		return 0, err
	}
	c.anyValue = val
	str, err := c.anyStringRule()
	if err != nil {
		return 0, err
	}
	ws, V, S := c.ws, grammar.Call(val), grammar.Call(str)
	member := c.cat(S, ws, grammar.Lit(":"), ws, V)
	obj := c.cat(grammar.Lit("{"), ws, c.opt(c.cat(member, grammar.Rep(c.cat(ws, grammar.Lit(","), ws, member), 0, -1), ws)), grammar.Lit("}"))
	arr := c.cat(grammar.Lit("["), ws, c.opt(c.cat(V, grammar.Rep(c.cat(ws, grammar.Lit(","), ws, V), 0, -1), ws)), grammar.Lit("]"))
	objR, err := c.newRule("object", obj)
	if err != nil {
		return 0, err
	}
	arrR, err := c.newRule("array", arr)
	if err != nil {
		return 0, err
	}
	c.rules[val].Body = grammar.Or(grammar.Call(objR), grammar.Call(arrR), S, numberExpr(), grammar.Lit("true"), grammar.Lit("false"), grammar.Lit("null"))
	c.ruleOf[branchesKey([]*schema{universal()})] = val
	return val, nil
}

// anyStringRule returns the rule of any JSON string, every escape allowed.
func (c *compiler) anyStringRule() (int, error) {
	if c.anyStr >= 0 {
		return c.anyStr, nil
	}
	r, err := c.newRule("string", grammar.Cat(grammar.Lit(`"`), grammar.Rep(anyChar(), 0, -1), grammar.Lit(`"`)))
	if err != nil {
		return 0, err
	}
	c.anyStr = r
	return r, nil
}

// valueRef returns the expression for a value matching conj, or nil when none can.
func (c *compiler) valueRef(conj conj, name string) (*grammar.Expr, error) {
	if conj.isTrue() {
		r, err := c.anyValueRule()
		return grammar.Call(r), err
	}
	r, err := c.ruleFor(conj, name)
	if err != nil || r < 0 {
		return nil, err
	}
	return grammar.Call(r), nil
}

// literal returns the expression for the JSON value v, with whitespace allowed
// inside objects and arrays.
func (c *compiler) literal(v *node) *grammar.Expr {
	switch v.kind {
	case kindNull:
		return grammar.Lit("null")
	case kindBool:
		if v.b {
			return grammar.Lit("true")
		}
		return grammar.Lit("false")
	case kindNumber:
		// As written, and as an integer where it is one ("1.0" also as
		// "1"); not every equal spelling, so that a const number stays
		// forced for jump-forward.
		var forms []*grammar.Expr
		for _, f := range literalForms(v) {
			forms = append(forms, grammar.Lit(f))
		}
		return grammar.Or(forms...)
	case kindString:
		return grammar.Lit(quote(v.str))
	case kindArray:
		parts := []*grammar.Expr{grammar.Lit("["), c.ws}
		for i, e := range v.elems {
			if i > 0 {
				parts = append(parts, c.ws, grammar.Lit(","), c.ws)
			}
			parts = append(parts, c.literal(e))
		}
		if len(v.elems) > 0 {
			parts = append(parts, c.ws)
		}
		return c.cat(append(parts, grammar.Lit("]"))...)
	}
	parts := []*grammar.Expr{grammar.Lit("{"), c.ws}
	for i, k := range v.keys {
		if i > 0 {
			parts = append(parts, c.ws, grammar.Lit(","), c.ws)
		}
		parts = append(parts, grammar.Lit(quote(k)), c.ws, grammar.Lit(":"), c.ws, c.literal(v.vals[i]))
	}
	if len(v.keys) > 0 {
		parts = append(parts, c.ws)
	}
	return c.cat(append(parts, grammar.Lit("}"))...)
}

// compileEnum compiles a schema with enum or const: the listed values that
// satisfy the rest of the schema, each as a literal.
func (c *compiler) compileEnum(s *schema) (*grammar.Expr, error) {
	if len(s.enum) > c.opts.Limits.Enum {
		return nil, c.limitf(s.enumPtr, "enum", "%d values, more than Limits.Enum (%d)", len(s.enum), c.opts.Limits.Enum)
	}
	var alts []*grammar.Expr
	seen := map[string]bool{}
	for _, v := range s.enum {
		ok, err := c.validate(s, v)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		var b strings.Builder
		compact(&b, v)
		if seen[b.String()] {
			continue
		}
		seen[b.String()] = true
		alts = append(alts, c.literal(v))
	}
	if err := c.count(len(alts)); err != nil {
		return nil, err
	}
	return c.or(alts...), nil
}
