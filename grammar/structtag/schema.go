package structtag

import (
	"fmt"
	"slices"

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
	g, _, err := jsonschema.CompileContext(c.ctx, strictSchema(c.src, sv, true), opts)
	if err != nil {
		return nil, wrapErr(schemaPtr, err)
	}
	return c.embed(schemaPtr, "schema", g)
}

// Keywords whose values are subschemas: a map of them, a list of them (items
// may be either), or one.
var (
	schemaMaps  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
	schemaLists = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	schemaOne   = []string{"additionalProperties", "additionalItems", "items", "contains", "not", "if", "then", "else",
		"propertyNames", "unevaluatedProperties", "unevaluatedItems", "contentSchema"}
)

// strictSchema returns the source of the schema v, as XGrammar's strict
// mode reads it: an object schema that declares properties (or pattern
// properties) and says nothing of the others gets "unevaluatedProperties":
// false, and an array schema with a tuple of items and nothing said of the
// items after it gets "items": false (prefixItems) or "additionalItems":
// false (items as a list). A schema that declares no properties, such as
// {"type": "object"}, keeps accepting any object. The text is changed only
// by insertions, so JSON pointers into it stay valid. With tuples false,
// arrays are left as they are.
func strictSchema(src []byte, v *value, tuples bool) []byte {
	type insert struct {
		at   int
		text string
	}
	var ins []insert
	stack := []*value{v}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.kind != kindObject {
			continue
		}
		has := func(k string) bool { return s.get(k) != nil }
		if (has("properties") || has("patternProperties")) && !has("additionalProperties") && !has("unevaluatedProperties") {
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
		for i, k := range s.keys {
			if s.lastOf(k) != i {
				continue // a key written again: its last value counts (value.get)
			}
			sub := s.vals[i]
			switch {
			case slices.Contains(schemaMaps, k) && sub.kind == kindObject:
				stack = append(stack, sub.vals...)
			case slices.Contains(schemaLists, k) && sub.kind == kindArray:
				stack = append(stack, sub.elems...)
			case slices.Contains(schemaOne, k):
				stack = append(stack, sub)
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

// CloseObjects returns the JSON Schema schema with every object schema that
// declares properties (or pattern properties) and says nothing of the
// others closed to them, by inserting "unevaluatedProperties": false, as
// XGrammar's strict mode reads schemas and as vLLM's
// disable_additional_properties asks. unevaluatedProperties rather than
// additionalProperties keeps allOf branches that declare different
// properties satisfiable together. A schema that declares no properties,
// such as {"type": "object"}, keeps accepting any object; arrays are left
// as they are. The source is read as structural tags are (bounded by
// lim.SchemaBytes and SchemaNodes; a zero field means its default) and
// changed only by insertions, so JSON pointers into it stay valid.
func CloseObjects(schema []byte, lim grammar.Limits) ([]byte, error) {
	v, err := parseJSON(schema, lim.WithDefaults())
	if err != nil {
		return nil, err
	}
	return strictSchema(schema, v, false), nil
}
