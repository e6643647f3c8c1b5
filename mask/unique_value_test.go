package mask

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCanonValue: equal JSON values have one form, distinct ones two.
func TestCanonValue(t *testing.T) {
	tests := []struct {
		a, b  string
		equal bool
	}{
		{`{"a": 1, "b": [1, 2]}`, `{"b":[1.0,2e0],"a":10e-1}`, true},
		{`{"a": "x"}`, `{"\u0061": "\u0078"}`, true},
		{`[0]`, `[-0.0]`, true},
		{`[100]`, `[1e2]`, true},
		{`[0.05]`, `[5E-2]`, true},
		{`["\ud83d\ude00"]`, `["😀"]`, true},
		{`[[], {}]`, `[[ ], { }]`, true},
		{`{"ab": 1, "a": 2}`, `{"a": 2, "ab": 1}`, true},
		{`[1, 2]`, `[2, 1]`, false},
		{`[1]`, `[10]`, false},
		{`[0.1]`, `[1]`, false},
		{`["a"]`, `["a", "a"]`, false},
		{`{"a": "b:c"}`, `{"a:": "bc"}`, false},
		{`{"a": [1]}`, `{"a": 1}`, false},
		{`["1"]`, `[1]`, false},
		{`[true]`, `["true"]`, false},
		{`[null]`, `[{}]`, false},
		{`["\ud800"]`, `["\ud801"]`, false},
		{`[{"a": 1, "a": 1}]`, `[{"a": 1}]`, false},
	}
	var r uniqueRun
	for _, tc := range tests {
		a := string(r.canonValue([]byte(tc.a)))
		b := string(r.canonValue([]byte(tc.b)))
		assert.Equal(t, tc.equal, a == b, "%s (%q) against %s (%q)", tc.a, a, tc.b, b)
	}
}

// FuzzCanonValue: any bytes have a form (nothing panics), and a valid
// document's form does not depend on its whitespace.
func FuzzCanonValue(f *testing.F) {
	for _, s := range []string{`{"a": [1, {"b": null}], "c": "\u0041"}`, `[1e5, -0.0, "x\"y"]`, `{"a":`, `]}`, `["\ud83d`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var r uniqueRun
		form := string(r.canonValue([]byte(s)))
		if !json.Valid([]byte(s)) || len(s) == 0 || (s[0] != '{' && s[0] != '[') {
			return
		}
		var ind bytes.Buffer
		if json.Indent(&ind, []byte(s), "", "  ") != nil {
			return
		}
		if again := string(r.canonValue(ind.Bytes())); again != form {
			t.Fatalf("%q: %q, indented %q", s, form, again)
		}
	})
}
