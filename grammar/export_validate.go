package grammar

import "github.com/tidwall/gjson"

// ValidateJSONSchemaInstance reports whether the JSON document doc is valid
// under schema as FromJSONSchema reads it with opts: the front-end's own
// instance validator, the one it filters enum and const values with. It is
// for tests that check generated documents against the schema (a soak); the
// error is FromJSONSchema's when the schema does not compile, or one naming
// a document that is not JSON.
func ValidateJSONSchemaInstance(schema, doc []byte, opts SchemaOptions) (bool, error) {
	opts.setDefaults()
	c := &schemaCompiler{
		opts:       opts,
		ruleOf:     map[string]int{},
		conjRule:   map[string]int{},
		dnfMemo:    map[int][]*jsSchema{},
		inDNF:      map[int]bool{},
		names:      map[string]int{},
		charMemo:   map[string]*Expr{},
		regexes:    map[string]*jsPattern{},
		negNodes:   map[string]*jsNode{},
		keyRules:   map[string]int{},
		escRules:   map[string]int{},
		chunkRules: map[*Expr]int{},
	}
	c.ix = &schemaIndex{c: c, docs: map[string]*jsDoc{}, resources: map[string]*jsNode{}, anchors: map[string]*jsNode{}}
	c.falseNode = &jsNode{kind: jsBool, key: "false", id: -2}
	if _, err := c.compile(schema); err != nil {
		return false, err
	}
	if !gjson.ValidBytes(doc) {
		return false, &Error{Source: "jsonschema", Msg: "instance is not valid JSON"}
	}
	v, err := c.ix.build(gjson.ParseBytes(doc), "", 0)
	if err != nil {
		return false, err
	}
	return c.validateConj(jsConj{c.ix.resources[jsDefaultBase]}, v)
}
