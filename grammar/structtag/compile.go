package structtag

import (
	"context"
	"fmt"

	"github.com/reinlm/rein/grammar"
)

// MaxDepth is how deep format objects may nest, as in XGrammar: a format
// nested deeper is an error naming its JSON pointer.
const MaxDepth = 100

// Options tune Compile. The zero value is the default: default limits, any
// JSON whitespace, token texts resolved later by package mask.
type Options struct {
	// Limits bounds the work of one compilation; a zero field means its
	// default from grammar.DefaultLimits. The request's bytes and JSON
	// values are bounded by SchemaBytes and SchemaNodes, repeat counts and
	// max_tokens by Repeat, the whole grammar by Rules and ExprNodes; the
	// embedded JSON Schema, EBNF and regex front-ends read theirs.
	Limits grammar.Limits

	// WhitespacePattern is what json_schema formats accept between JSON
	// tokens, in RE2 syntax; "" means any run of spaces, tabs and line
	// breaks ([ \t\n\r]*), as XGrammar's structural tags do. A format's
	// max_whitespace_cnt N bounds the run to N instead.
	WhitespacePattern string

	// TokenID, when set, resolves a token given by its text (in token,
	// exclude_token, any_tokens, token_triggered_tags, token_dispatch and
	// token begin and end markers) to its id, so that a text no token has
	// is an error naming its JSON pointer, and token ids and texts can be
	// told apart when triggers are matched to tags. Pass a vocabulary's
	// TokenID method (tokenizer.Vocab.TokenID). When nil, texts stay names
	// in the grammar and package mask resolves them.
	TokenID func(text string) (id int, ok bool)
}

// defaultWhitespace is any JSON whitespace, unbounded.
const defaultWhitespace = `[ \t\n\r]*`

// Compile turns an XGrammar structural tag into a grammar: either the
// request shape {"type": "structural_tag", "format": {...}} or a bare format
// object. See the package documentation for the formats and how rein reads
// them.
//
// Errors are *grammar.Error values with Source "structtag" and the JSON
// pointer of the offending value (or, for JSON that does not parse, its
// line and column). They wrap grammar.ErrUnsupported for what rein cannot
// enforce (any_text.max_chars, for one) and grammar.ErrLimit when a bound
// of opts.Limits is crossed; errors of the embedded JSON Schema, EBNF and
// regex front-ends are wrapped with the pointer of their format.
func Compile(data []byte, opts Options) (*grammar.Grammar, error) {
	return CompileContext(context.Background(), data, opts)
}

// CompileContext is Compile under a context: the embedded JSON Schema and
// EBNF compilations stop when ctx ends, and the compilation returns an error
// wrapping ctx.Err().
func CompileContext(ctx context.Context, data []byte, opts Options) (*grammar.Grammar, error) {
	opts.Limits = opts.Limits.WithDefaults()
	if opts.WhitespacePattern == "" {
		opts.WhitespacePattern = defaultWhitespace
	}
	top, err := parseJSON(data, opts.Limits)
	if err != nil {
		return nil, err
	}
	c := &compiler{ctx: ctx, opts: opts, lim: opts.Limits, src: data}
	root, ptr, err := formatOf(top)
	if err != nil {
		return nil, err
	}
	if err := checkText(root, ptr); err != nil {
		return nil, err
	}
	body, _, err := c.format(root, ptr, 1, ends{})
	if err != nil {
		return nil, err
	}
	g := &grammar.Grammar{Rules: c.rules, Root: c.newRule("root", body)}
	if err := c.checkSize(); err != nil {
		return nil, err
	}
	if err := g.Validate(); err != nil {
		return nil, errorf(ptr, "%v", err)
	}
	return g, nil
}

// formatOf finds the format of a request: the value of "format" in the
// request shape, else the whole object.
func formatOf(top *value) (*value, string, error) {
	if top.kind != kindObject {
		return nil, "", errorf("", "the request is %s, not an object", top.kind)
	}
	typ := top.get("type")
	if top.get("format") == nil {
		if typ != nil && typ.kind == kindString && typ.text == "structural_tag" {
			return nil, "", errorf("", `the request has type "structural_tag" but no "format"`)
		}
		return top, "", nil
	}
	if err := checkKeys(top, "", []string{"type", "format"}); err != nil {
		return nil, "", err
	}
	if typ != nil && (typ.kind != kindString || typ.text != "structural_tag") {
		return nil, "", errorf("/type", `the request's type must be "structural_tag", not %s`, describe(typ))
	}
	return top.get("format"), "/format", nil
}

// compiler holds the state of one compilation.
type compiler struct {
	ctx   context.Context
	opts  Options
	lim   grammar.Limits
	src   []byte
	rules []grammar.Rule
	nodes int // expression nodes of the rules embedded from other front-ends
	// schemas is the root rule of each JSON Schema embedded, by its
	// options and strict bytes (jsonSchema).
	schemas map[string]int
}

// newRule adds a rule and returns its index.
func (c *compiler) newRule(name string, body *grammar.Expr) int {
	c.rules = append(c.rules, grammar.Rule{Name: fmt.Sprintf("%s_%d", name, len(c.rules)), Body: body})
	return len(c.rules) - 1
}

// call adds a rule and returns a reference to it.
func (c *compiler) call(name string, body *grammar.Expr) *grammar.Expr {
	return grammar.Call(c.newRule(name, body))
}

// embed adds the rules of g, a grammar another front-end made, and returns
// a reference to its root. The rules are copied with their references
// renumbered: front-ends share expression nodes between rules, and g is
// not changed.
func (c *compiler) embed(ptr, name string, g *grammar.Grammar) (*grammar.Expr, error) {
	base := len(c.rules)
	if base+len(g.Rules) > c.lim.Rules {
		return nil, limitErr(ptr, "the grammar has more than Limits.Rules (%d) rules", c.lim.Rules)
	}
	copies := map[*grammar.Expr]*grammar.Expr{}
	var order, stack []*grammar.Expr
	for _, r := range g.Rules {
		stack = append(stack, r.Body)
	}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if copies[e] != nil {
			continue
		}
		if c.nodes++; c.nodes > c.lim.ExprNodes {
			return nil, limitErr(ptr, "the grammar has more than Limits.ExprNodes (%d) expression nodes", c.lim.ExprNodes)
		}
		cp := *e
		copies[e] = &cp
		order = append(order, &cp)
		stack = append(stack, e.Subs...)
	}
	for _, cp := range order {
		if cp.Op == grammar.OpRef {
			cp.Rule += base
		}
		if len(cp.Subs) > 0 {
			subs := make([]*grammar.Expr, len(cp.Subs))
			for i, s := range cp.Subs {
				subs[i] = copies[s]
			}
			cp.Subs = subs
		}
	}
	for _, r := range g.Rules {
		// What the matcher enforces beside the body (a schema's distinct
		// items, a text's token budget) comes along.
		r.Name, r.Body = fmt.Sprintf("%s_%d_%s", name, base, r.Name), copies[r.Body]
		c.rules = append(c.rules, r)
	}
	return grammar.Call(base + g.Root), nil
}

// checkSize checks the whole grammar against Limits.Rules and ExprNodes.
func (c *compiler) checkSize() error {
	if len(c.rules) > c.lim.Rules {
		return limitErr("", "the grammar has more than Limits.Rules (%d) rules", c.lim.Rules)
	}
	n := 0
	var stack []*grammar.Expr
	for _, r := range c.rules {
		stack = append(stack[:0], r.Body)
		for len(stack) > 0 {
			e := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n++; n > c.lim.ExprNodes {
				return limitErr("", "the grammar has more than Limits.ExprNodes (%d) expression nodes", c.lim.ExprNodes)
			}
			stack = append(stack, e.Subs...)
		}
	}
	return nil
}
