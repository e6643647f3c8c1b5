package jsonschema_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/reinlm/rein/grammar"
)

// checkSchemaError checks that a Compile error is a *grammar.Error
// (or a list of them) from the jsonschema front-end with a reason and a JSON
// pointer that, when set, names a place in the schema ("#" for the root):
// every reference token but the last (the keyword, which may be the one
// missing) resolves.
func checkSchemaError(t *testing.T, schema []byte, err error) {
	t.Helper()
	var list grammar.ErrorList
	if !errors.As(err, &list) {
		var e *grammar.Error
		if !errors.As(err, &e) {
			t.Fatalf("%q: error %v (%T) is not a *grammar.Error", schema, err, err)
		}
		list = grammar.ErrorList{e}
	}
	if len(list) == 0 {
		t.Fatalf("%q: empty error list", schema)
	}
	for _, e := range list {
		if e.Source != "jsonschema" || e.Msg == "" {
			t.Fatalf("%q: error %q has source %q, message %q", schema, e.Error(), e.Source, e.Msg)
		}
		if e.Pointer == "" || e.Pointer == "#" { // unknown, or the root
			continue
		}
		if !strings.HasPrefix(e.Pointer, "/") {
			t.Fatalf("%q: error %q: pointer %q does not start with /", schema, e.Error(), e.Pointer)
		}
		if !gjson.ValidBytes(schema) {
			continue
		}
		toks := strings.Split(e.Pointer[1:], "/")
		v := gjson.ParseBytes(schema)
		for _, tok := range toks[:len(toks)-1] {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			// Of duplicate keys the last counts, as it does for the
			// compiler (node.get): the error is in that one.
			var next gjson.Result
			found, i := false, 0
			v.ForEach(func(k, val gjson.Result) bool {
				if v.IsArray() && strconv.Itoa(i) == tok || v.IsObject() && k.Str == tok {
					next, found = val, true
				}
				i++
				return true
			})
			if !found {
				t.Fatalf("%q: error %q: pointer %q does not resolve at %q", schema, e.Error(), e.Pointer, tok)
			}
			v = next
		}
	}
}
