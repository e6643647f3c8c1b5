package jsonschema

import "github.com/reinlm/rein/grammar"

// Embed compiles schema with the default Options under lim and returns the
// grammar, without the warnings. It is the JSON Schema compiler that GBNF's
// %json needs:
//
//	g, err := grammar.ParseGBNFOptions(src, grammar.GBNFOptions{JSONSchema: jsonschema.Embed})
func Embed(schema []byte, lim grammar.Limits) (*grammar.Grammar, error) {
	g, _, err := Compile(schema, Options{Limits: lim})
	return g, err
}
