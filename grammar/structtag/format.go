package structtag

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/reinlm/rein/grammar"
)

// ends is what the nearest enclosing tag closes with. The unlimited formats
// inside it may not run past it: string-level free text (any_text,
// triggered_tags, dispatch) excludes the strings, token-level free tokens
// (exclude_token, any_tokens, token_triggered_tags, token_dispatch) the
// token. Only the nearest tag counts, and only at its level: a tag that
// ends with a token hands no strings down, and the other way round.
type ends struct {
	strs []string // its non-empty end strings
	tok  *tokenRef
}

// shape is what end detection needs to know of a compiled format.
type shape struct {
	unlimited bool // it can consume output without bound
	excludes  bool // it has exclude strings of its own, which can end it
}

// format compiles the format object v at ptr, nested depth levels deep,
// inside a tag that ends with e.
func (c *compiler) format(v *value, ptr string, depth int, e ends) (*grammar.Expr, shape, error) {
	if depth > MaxDepth {
		return nil, shape{}, errorf(ptr, "formats are nested deeper than %d levels", MaxDepth)
	}
	if err := c.ctx.Err(); err != nil {
		return nil, shape{}, &grammar.Error{Source: source, Pointer: shown(ptr), Msg: "compilation stopped: " + err.Error(), Err: err}
	}
	if v.kind != kindObject {
		return nil, shape{}, errorf(ptr, "a format must be an object, not %s", describe(v))
	}
	typ, err := typeOf(v, ptr)
	if err != nil {
		return nil, shape{}, err
	}
	if err := checkFields(v, ptr, typ); err != nil {
		return nil, shape{}, err
	}
	var (
		x  *grammar.Expr
		sh shape
	)
	switch typ {
	case "const_string":
		x, err = c.constString(v, ptr)
	case "json_schema":
		x, err = c.jsonSchema(v, ptr, true)
	case "qwen_xml_parameter":
		x, err = c.jsonSchema(v, ptr, false)
	case "grammar":
		x, err = c.ebnf(v, ptr)
	case "regex":
		x, err = c.regex(v, ptr)
	case "any_text":
		x, sh, err = c.anyText(v, ptr, e)
	case "sequence", "or":
		x, sh, err = c.list(v, ptr, typ, depth, e)
	case "optional", "plus", "star", "repeat":
		x, sh, err = c.repeat(v, ptr, typ, depth, e)
	case "tag":
		var t tag
		t, err = c.tag(v, ptr, depth)
		x, sh = t.expr, t.shape
	case "triggered_tags":
		x, sh, err = c.triggeredTags(v, ptr, depth, e)
	case "tags_with_separator":
		x, sh, err = c.tagsWithSeparator(v, ptr, depth)
	case "dispatch":
		x, sh, err = c.dispatch(v, ptr, depth, e)
	case "token":
		var t tokenRef
		t, err = c.tokenRef(v.get("token"), pointerTo(ptr, "token"))
		x = tokenExpr(false, t)
	case "exclude_token":
		x, err = c.excludeToken(v, ptr, e)
	case "any_tokens":
		x, sh, err = c.anyTokens(v, ptr, e)
	case "token_triggered_tags":
		x, sh, err = c.tokenTriggeredTags(v, ptr, depth, e)
	case "token_dispatch":
		x, sh, err = c.tokenDispatch(v, ptr, depth, e)
	}
	if err != nil {
		return nil, shape{}, err
	}
	switch x.Op {
	case grammar.OpSeq, grammar.OpAlt, grammar.OpRepeat:
		x = c.call(typ, x) // one rule per composite format keeps the grammar small
	}
	return x, sh, nil
}

func (c *compiler) constString(v *value, ptr string) (*grammar.Expr, error) {
	s, _, err := stringField(v, ptr, "value")
	if err != nil {
		return nil, err
	}
	if v.get("value").kind == kindNull {
		return nil, errorf(pointerTo(ptr, "value"), `"value" must be a string, not null`)
	}
	return grammar.LitTokens(s), nil
}

// ebnf reads a grammar format: XGrammar's EBNF dialect
// (grammar.ParseEBNF), root rule "root", as XGrammar reads its structural
// tags' grammars. A grammar the dialect refuses as malformed (not for a
// limit, nor for what rein cannot enforce) is read as rein's GBNF
// (grammar.ParseGBNF), as this format was before: `.`, an empty
// alternative, token terminals and GBNF's escapes keep working. A grammar
// both read is XGrammar's; one both refuse gets both dialects' errors.
func (c *compiler) ebnf(v *value, ptr string) (*grammar.Expr, error) {
	src, err := nonEmptyString(v, ptr, "grammar")
	if err != nil {
		return nil, err
	}
	p := pointerTo(ptr, "grammar")
	g, err := grammar.ParseEBNFContext(c.ctx, src, grammar.EBNFOptions{Root: "root", Limits: c.lim})
	if err != nil && c.ctx.Err() == nil && !errors.Is(err, grammar.ErrLimit) && !errors.Is(err, grammar.ErrUnsupported) {
		if gb, gerr := grammar.ParseGBNFContext(c.ctx, src, "root", c.lim); gerr == nil {
			g, err = gb, nil
		} else {
			err = fmt.Errorf("%w (nor is it rein's GBNF: %w)", err, gerr)
		}
	}
	if err != nil {
		if cerr := c.ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			// The context ended while the dialects were tried: which one
			// reads the grammar, if either, is not known.
			err = fmt.Errorf("%w (stopped: %w)", err, cerr)
		}
		return nil, wrapErr(p, err)
	}
	return c.embed(p, "grammar", g)
}

func (c *compiler) regex(v *value, ptr string) (*grammar.Expr, error) {
	pattern, err := nonEmptyString(v, ptr, "pattern")
	if err != nil {
		return nil, err
	}
	x, err := grammar.RegexExpr(pattern, c.lim)
	if err != nil {
		return nil, wrapErr(pointerTo(ptr, "pattern"), err)
	}
	return x, nil
}

// nonEmptyString reads the required string field key, which must not be
// empty.
func nonEmptyString(v *value, ptr, key string) (string, error) {
	s, ok, err := stringField(v, ptr, key)
	if err != nil {
		return "", err
	}
	if !ok || s == "" {
		return "", errorf(pointerTo(ptr, key), "%q must be a non-empty string", key)
	}
	return s, nil
}

func (c *compiler) anyText(v *value, ptr string, e ends) (*grammar.Expr, shape, error) {
	excludes, err := stringList(v, ptr, "excludes", false)
	if err != nil {
		return nil, shape{}, err
	}
	if _, ok, err := countField(v, ptr, "max_chars", math.MaxInt32, "2^31-1"); err != nil {
		return nil, shape{}, err
	} else if ok {
		return nil, shape{}, unsupportedErr(pointerTo(ptr, "max_chars"), "any_text.max_chars: rein cannot bound a region of free text by characters; leave it out or null")
	}
	n, bounded, err := countField(v, ptr, "max_tokens", math.MaxInt32, "2^31-1")
	if err != nil {
		return nil, shape{}, err
	}
	text := grammar.Text(union(excludes, e.strs)...)
	sh := shape{unlimited: true, excludes: len(excludes) > 0}
	switch {
	case !bounded:
		return text, sh, nil
	case n == 0:
		return grammar.Eps(), shape{}, nil
	}
	// The text as a rule of its own with a token budget: the matcher ends
	// it once it has taken n tokens (grammar.Rule.MaxTokens).
	i := c.newRule("any_text", text)
	c.rules[i].MaxTokens = n
	return grammar.Call(i), sh, nil
}

// list compiles sequence and or.
func (c *compiler) list(v *value, ptr, typ string, depth int, e ends) (*grammar.Expr, shape, error) {
	elems, err := arrayField(v, ptr, "elements")
	if err != nil {
		return nil, shape{}, err
	}
	p := pointerTo(ptr, "elements")
	subs := make([]*grammar.Expr, len(elems))
	var sh shape
	for i, el := range elems {
		x, s, err := c.format(el, pointerAt(p, i), depth+1, e)
		if err != nil {
			return nil, shape{}, err
		}
		subs[i] = x
		sh.unlimited = sh.unlimited || s.unlimited && !s.excludes
	}
	if typ == "or" {
		return grammar.Or(subs...), sh, nil
	}
	return grammar.Cat(subs...), sh, nil
}

// repeat compiles optional, plus, star and repeat.
func (c *compiler) repeat(v *value, ptr, typ string, depth int, e ends) (*grammar.Expr, shape, error) {
	lo, hi := 0, -1
	switch typ {
	case "optional":
		hi = 1
	case "plus":
		lo = 1
	case "repeat":
		var err error
		if lo, hi, err = c.repeatBounds(v, ptr); err != nil {
			return nil, shape{}, err
		}
	}
	x, s, err := c.format(v.get("content"), pointerTo(ptr, "content"), depth+1, e)
	if err != nil {
		return nil, shape{}, err
	}
	sh := shape{unlimited: hi < 0 || hi != 0 && s.unlimited}
	if typ == "optional" {
		sh = s
	}
	return grammar.Rep(x, lo, hi), sh, nil
}

// repeatBounds reads min and max of a repeat: max -1 is unbounded, and so
// is a max above 2^31-1, as in XGrammar.
func (c *compiler) repeatBounds(v *value, ptr string) (lo, hi int, err error) {
	minp, maxp := pointerTo(ptr, "min"), pointerTo(ptr, "max")
	mn, err := intValue(v.get("min"), minp, `"min"`)
	if err != nil {
		return 0, 0, err
	}
	mx, err := intValue(v.get("max"), maxp, `"max"`)
	if err != nil {
		return 0, 0, err
	}
	switch {
	case mn < 0:
		return 0, 0, errorf(minp, `"min" must not be negative, not %s`, v.get("min").text)
	case mn > math.MaxInt32:
		return 0, 0, errorf(minp, `"min" must be at most 2^31-1, not %s`, v.get("min").text)
	case mx < -1:
		return 0, 0, errorf(maxp, `"max" must be -1 (unbounded) or at least 0, not %s`, v.get("max").text)
	case mx > math.MaxInt32:
		mx = -1
	}
	if mx >= 0 && mn > mx {
		return 0, 0, errorf(ptr, `"min" (%d) is greater than "max" (%d)`, mn, mx)
	}
	if mn > int64(c.lim.Repeat) || mx > int64(c.lim.Repeat) {
		return 0, 0, limitErr(ptr, "a repeat count above Limits.Repeat (%d)", c.lim.Repeat)
	}
	return int(mn), int(mx), nil
}

// union returns the strings of the lists, each once, in order.
func union(lists ...[]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range lists {
		for _, s := range l {
			if s != "" && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// nonEmpty returns the non-empty strings of ss.
func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// describeStrings quotes a few strings for an error.
func describeStrings(ss []string) string {
	var b strings.Builder
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"` + s + `"`)
	}
	return b.String()
}
