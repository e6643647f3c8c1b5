package structtag

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
)

// styles maps the json_schema styles of a structural tag to jsonschema's;
// unsupported lists the styles XGrammar's newest code knows that rein does
// not.
var (
	styles = map[string]jsonschema.Style{
		"json":         jsonschema.StyleJSON,
		"qwen_xml":     jsonschema.StyleQwenXML,
		"minimax_xml":  jsonschema.StyleMiniMaxXML,
		"deepseek_xml": jsonschema.StyleDeepSeekXML,
		"glm_xml":      jsonschema.StyleGLMXML,
		"cohere_xml":   jsonschema.StyleCohereXML,
		"kimi_k3_xml":  jsonschema.StyleKimiK3XML,
	}
	unsupportedStyles = []string{"minimax_m3_xml", "deepseek_v4_1_xml", "gemma"}
)

// jsonSchema compiles a json_schema format (withStyle) or its legacy alias
// qwen_xml_parameter, whose style is qwen_xml: the JSON Schema front-end
// with any whitespace between tokens and strict objects (see strictSchema).
func (c *compiler) jsonSchema(v *value, ptr string, withStyle bool) (*grammar.Expr, error) {
	schemaPtr := pointerTo(ptr, "json_schema")
	sv := v.get("json_schema")
	if sv.kind != kindObject && sv.kind != kindBool {
		return nil, errorf(schemaPtr, "a JSON schema must be an object or a boolean, not %s", describe(sv))
	}
	style := jsonschema.StyleQwenXML
	if withStyle {
		name, ok, err := stringField(v, ptr, "style")
		if err != nil {
			return nil, err
		}
		if !ok {
			name = "json"
		}
		s, known := styles[name]
		switch {
		case slices.Contains(unsupportedStyles, name):
			return nil, unsupportedErr(pointerTo(ptr, "style"), "style %q is not supported by rein", name)
		case !known:
			return nil, errorf(pointerTo(ptr, "style"), "unknown style %q (known: json, qwen_xml, minimax_xml, deepseek_xml, glm_xml, cohere_xml, kimi_k3_xml)", name)
		}
		style = s
	}
	anyOrder, err := boolField(v, ptr, "any_order", false)
	if err != nil {
		return nil, err
	}
	ws := c.opts.WhitespacePattern
	if n, ok, err := countField(v, ptr, "max_whitespace_cnt", c.lim.Repeat, "Limits.Repeat"); err != nil {
		return nil, err
	} else if ok {
		ws = fmt.Sprintf(`[ \t\n\r]{0,%d}`, n)
	}
	excludes, err := stringList(v, ptr, "excludes", false)
	if err != nil {
		return nil, err
	}
	if len(excludes) > 0 {
		return nil, unsupportedErr(pointerTo(ptr, "excludes"), "json_schema.excludes (strings that string values may not hold) is not supported by rein")
	}
	opts := jsonschema.Options{
		Whitespace:        jsonschema.WhitespacePattern,
		WhitespacePattern: ws,
		Style:             style,
		Limits:            c.lim,
		Order:             jsonschema.OrderDeclared, // as the format asks without any_order
	}
	if anyOrder {
		opts.Order = jsonschema.OrderAny
	}
	// A schema written again with the same options is the same grammar:
	// it is compiled and embedded once, and its rule called from each
	// place (tools often share one arguments schema, and a request that
	// repeats a costly schema costs one compile of it).
	schema := strictSchema(c.src, sv, true)
	key := fmt.Sprintf("%s\x00%v\x00%s\x00%s", opts.Style, opts.Order, opts.WhitespacePattern, schema)
	if rule, ok := c.schemas[key]; ok {
		return grammar.Call(rule), nil
	}
	g, _, err := jsonschema.CompileContext(c.ctx, schema, opts)
	if err != nil {
		return nil, wrapErr(schemaPtr, err)
	}
	x, err := c.embed(schemaPtr, "schema", g)
	if err != nil {
		return nil, err
	}
	if c.schemas == nil {
		c.schemas = map[string]int{}
	}
	c.schemas[key] = x.Rule
	return x, nil
}

// How a keyword applies its subschemas (see strictSchema): to children of
// the instance, to the instance itself, or where a subschema accepting
// fewer instances may let the whole schema accept more.
var (
	atInstance = []string{"properties", "patternProperties", "additionalProperties", "unevaluatedProperties",
		"items", "prefixItems", "additionalItems", "unevaluatedItems", "contains"}
	inPlace = []string{"allOf", "anyOf", "then", "else", "dependentSchemas", "dependencies"}
	unsure  = []string{"oneOf", "if", "not", "propertyNames", "contentSchema"}
	// Keywords whose value is a map of subschemas, or a list of them (items
	// may be a list or one); the others hold one.
	schemaMaps  = []string{"properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"}
	schemaLists = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
)

// subschemas calls f with each subschema of schema s and the keyword that
// holds it, reading a key written twice by its last value (value.get).
func subschemas(s *value, f func(k string, sub *value)) {
	for i, k := range s.keys {
		if s.lastOf(k) != i {
			continue
		}
		sub := s.vals[i]
		switch {
		case slices.Contains(schemaMaps, k):
			if sub.kind == kindObject {
				for _, e := range sub.vals {
					f(k, e)
				}
			}
		case !slices.Contains(atInstance, k) && !slices.Contains(inPlace, k) && !slices.Contains(unsure, k):
		case sub.kind == kindArray && slices.Contains(schemaLists, k):
			for _, e := range sub.elems {
				f(k, e)
			}
		default:
			f(k, sub)
		}
	}
}

// A schema's place, as strictSchema finds it: an instance location's own
// schema (the root, a property's, an item's), applied in place (an allOf
// branch, a $ref target), or below a keyword where accepting fewer
// instances may accept more documents (not, if, oneOf, contains with
// maxContains: one fewer match turns a count or a negation around).
type place uint8

const (
	placeInstance place = 1 << iota
	placeInPlace
	placeUnsure
)

// strictSchema returns the source of the schema v, as strict mode reads
// it: an instance location's object schema that declares properties (or
// pattern properties), itself or in a subschema applied in place, and says
// nothing of the others gets "unevaluatedProperties": false; with tuples,
// one with a tuple of items and nothing said of the items after it gets
// "items": false (prefixItems) or "additionalItems": false (items as a
// list). A schema that declares no properties, such as {"type":
// "object"}, keeps accepting any object.
//
// Strict mode only ever narrows what the schema accepts. So it closes no
// schema applied in place (allOf branches declaring different properties
// would each refuse the other's; unevaluatedProperties at their instance
// location sees them all), and none below not, if, oneOf or a contains
// with maxContains, where a subschema that matches less lets more
// documents through. A $ref is followed to the subschema it names by a
// JSON pointer or an $anchor, in a document whose subschemas have no $id
// (nor draft 4's id) of their own; any other reference ($dynamicRef,
// another document, a value not in schema position) leaves the whole
// schema as written, since its target could be closed elsewhere and what
// it applies below not or oneOf would go unseen.
//
// The text is changed only by insertions, so JSON pointers into it stay
// valid. The walk is iterative and visits each subschema at most once per
// kind of place.
func strictSchema(src []byte, v *value, tuples bool) []byte {
	type visit struct {
		s  *value
		at place
	}
	places := map[*value]place{}
	inPlaceParents := map[*value][]*value{} // subschemas applied in place, to the schemas applying them
	var declaring []*value                  // schemas that declare properties
	idx := indexSchemas(v)
	stack := []visit{{v, placeInstance}}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		s := x.s
		if s.kind != kindObject || places[s]&x.at != 0 {
			continue
		}
		if places[s] == 0 && (s.get("properties") != nil || s.get("patternProperties") != nil) {
			declaring = append(declaring, s)
		}
		places[s] |= x.at
		// push follows a keyword's subschema sub, which applies the way
		// how says; below an unsure place every place is unsure.
		push := func(sub *value, how place, applies bool) {
			if x.at == placeUnsure {
				how = placeUnsure
			}
			if applies {
				inPlaceParents[sub] = append(inPlaceParents[sub], s)
			}
			stack = append(stack, visit{sub, how})
		}
		for _, k := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
			ref := s.get(k)
			if ref == nil {
				continue
			}
			var target *value
			if k == "$ref" && ref.kind == kindString {
				target = idx.resolve(ref.text)
			}
			if target == nil {
				// Its target, unknown, may be closed elsewhere, and its own
				// not or oneOf go unseen: strict mode leaves the schema as
				// written.
				return src[v.start:v.end]
			}
			push(target, placeInPlace, true)
		}
		subschemas(s, func(k string, sub *value) {
			var how place
			switch {
			case k == "$defs" || k == "definitions":
				return // reached through references
			case k == "contains" && s.get("maxContains") != nil:
				how = placeUnsure
			case slices.Contains(atInstance, k):
				how = placeInstance
			case slices.Contains(inPlace, k):
				how = placeInPlace
			default:
				how = placeUnsure
			}
			// A subschema counts toward the properties its parent declares
			// where unevaluatedProperties sees it, and it is a shape of the
			// object, not a test of it: applied in place, but under not and
			// if.
			push(sub, how, how != placeInstance && k != "not" && k != "if" && k != "propertyNames" && k != "contentSchema" && k != "contains")
		})
	}
	// The schemas that declare properties, themselves or through what they
	// apply in place.
	declares := map[*value]bool{}
	for len(declaring) > 0 {
		s := declaring[len(declaring)-1]
		declaring = declaring[:len(declaring)-1]
		if declares[s] {
			continue
		}
		declares[s] = true
		declaring = append(declaring, inPlaceParents[s]...)
	}
	type insert struct {
		at   int
		text string
	}
	var ins []insert
	for s, at := range places {
		if at != placeInstance {
			continue // applied in place somewhere, or unsure
		}
		has := func(k string) bool { return s.get(k) != nil }
		if declares[s] && !has("additionalProperties") && !has("unevaluatedProperties") {
			ins = append(ins, insert{s.end - 1, `,"unevaluatedProperties":false`})
		}
		if tuples && !has("unevaluatedItems") {
			items := s.get("items")
			switch {
			case has("prefixItems") && items == nil:
				ins = append(ins, insert{s.end - 1, `,"items":false`})
			case items != nil && items.kind == kindArray && !has("additionalItems"):
				ins = append(ins, insert{s.end - 1, `,"additionalItems":false`})
			}
		}
	}
	out := src[v.start:v.end]
	if len(ins) == 0 {
		return out
	}
	slices.SortStableFunc(ins, func(a, b insert) int { return a.at - b.at })
	buf := make([]byte, 0, len(out)+len(ins)*32)
	last := v.start
	for _, in := range ins {
		buf = append(buf, src[last:in.at]...)
		buf = append(buf, in.text...)
		last = in.at
	}
	return append(buf, src[last:v.end]...)
}

// schemaIndex is what strictSchema resolves references with: the values
// of a document in schema position (the root, and the subschemas of the
// keywords that hold them, $defs and definitions included), the $anchor
// names, and the root's $id.
type schemaIndex struct {
	root    *value
	schemas map[*value]bool
	anchors map[string]*value
	id      string
	nested  bool // a subschema has an $id (or draft 4's id) of its own
}

// indexSchemas indexes the schema document v, iteratively.
func indexSchemas(v *value) *schemaIndex {
	x := &schemaIndex{root: v, schemas: map[*value]bool{}, anchors: map[string]*value{}}
	x.id = idOf(v)
	stack := []*value{v}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.kind != kindObject || x.schemas[s] {
			continue
		}
		x.schemas[s] = true
		if s != v && idOf(s) != "" {
			x.nested = true
		}
		if a := s.get("$anchor"); a != nil && a.kind == kindString {
			x.anchors[a.text] = s
		}
		subschemas(s, func(_ string, sub *value) { stack = append(stack, sub) })
	}
	return x
}

// idOf is the $id of schema s (or draft 4's id), or "".
func idOf(s *value) string {
	for _, k := range []string{"$id", "id"} {
		if id := s.get(k); id != nil && id.kind == kindString {
			return id.text
		}
	}
	return ""
}

// resolve returns the subschema that ref names, or nil where strictSchema
// cannot tell which: a reference to another document, into one with an $id
// of its own, or to a value that is not in schema position (a const, a map
// of properties). It reads a JSON pointer in the fragment ("#",
// "#/$defs/a", percent-encoded or not) and an $anchor name, against the
// root or its $id.
func (x *schemaIndex) resolve(ref string) *value {
	if x.nested {
		return nil
	}
	if x.id != "" {
		ref = strings.TrimPrefix(ref, strings.TrimSuffix(x.id, "#"))
	}
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil
	}
	var at *value
	switch {
	case frag == "":
		at = x.root
	case !strings.HasPrefix(frag, "/"):
		at = x.anchors[frag]
	default:
		at = pointerIn(x.root, frag[1:])
	}
	if !x.schemas[at] {
		return nil
	}
	return at
}

// pointerIn returns the value the JSON pointer ptr (without its leading
// slash) names in root, or nil.
func pointerIn(root *value, ptr string) *value {
	at := root
	for tok := range strings.SplitSeq(ptr, "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch at.kind {
		case kindObject:
			at = at.get(tok)
		case kindArray:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(at.elems) || tok != strconv.Itoa(i) {
				return nil
			}
			at = at.elems[i]
		default:
			return nil
		}
		if at == nil {
			return nil
		}
	}
	return at
}

// CloseObjects returns the JSON Schema schema with every object schema at
// an instance location (the root, a property's, an item's) that declares
// properties (or pattern properties), itself or in a subschema it applies
// in place (allOf, anyOf, oneOf, then, else, dependentSchemas, a $ref
// target), and says nothing of the others closed to them, by inserting
// "unevaluatedProperties": false, as vLLM's disable_additional_properties
// asks. unevaluatedProperties rather than additionalProperties, at the
// instance location rather than in each branch, keeps allOf branches that
// declare different properties satisfiable together. Nothing below not,
// if, oneOf or a contains with maxContains is closed: the schema only ever
// accepts fewer documents (see strictSchema). A schema that declares no
// properties, such as {"type": "object"}, keeps accepting any object;
// arrays are left as they are. The source is read as structural tags are
// (bounded by lim.SchemaBytes and SchemaNodes; a zero field means its
// default) and changed only by insertions, so JSON pointers into it stay
// valid.
func CloseObjects(schema []byte, lim grammar.Limits) ([]byte, error) {
	v, err := parseJSON(schema, lim.WithDefaults())
	if err != nil {
		return nil, err
	}
	return strictSchema(schema, v, false), nil
}
