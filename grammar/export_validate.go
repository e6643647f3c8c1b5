package grammar

import (
	"context"

	"github.com/tidwall/gjson"
)

// ValidateJSONSchemaInstance reports whether the JSON document doc is valid
// under schema as FromJSONSchema reads it with opts: the front-end's own
// instance validator, the one it filters enum and const values with. It is
// for tests that check generated documents against the schema (a soak); the
// error is FromJSONSchema's when the schema does not compile, or one naming
// a document that is not JSON.
func ValidateJSONSchemaInstance(schema, doc []byte, opts SchemaOptions) (bool, error) {
	opts.setDefaults()
	c := newSchemaCompiler(context.Background(), opts)
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
