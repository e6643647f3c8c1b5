package jsonschema_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/oracle"
)

// llamaDeviation is a failing string of a llama.cpp schema case that the
// JSON Schema standard says is valid: llama.cpp's converter is stricter than
// the standard there. The test does not hold rein to llama.cpp's verdict on
// it; it asserts rein's own verdict (reinAccepts, with default options) and,
// when anyOrder is set (properties out of declared order), that rein refuses
// it with OrderDeclared, as llama.cpp does.
type llamaDeviation struct {
	desc, input string
	why         string // the rule of the standard that makes input valid
	reinAccepts bool
	anyOrder    bool
}

// llamaOrderRule is why an object whose declared properties come out of
// schema order is valid: neither RFC 8259 nor JSON Schema's properties give
// object members an order. llama.cpp fixes the declared order; so does rein's
// OrderDeclared, and its default (OrderAuto) accepts any order.
const llamaOrderRule = "member order is not significant (RFC 8259 §4; properties constrains values, not order): llama.cpp and rein's OrderDeclared fix the declared order, rein's default OrderAuto accepts it"

// llamaDeviations lists every place where llama.cpp's expectation departs from
// the standard. All of them are failing strings that are in fact valid.
//
// Not listed, because the standard leaves the choice to implementations and
// rein makes the same one as llama.cpp: "exotic formats (list)" asserts
// format (2020-12 makes it an annotation unless the format-assertion
// vocabulary is on, and allows asserting it), and reads its array-form items
// as draft 2019-09's tuple form.
var llamaDeviations = []llamaDeviation{
	{desc: "min 0", input: "-0", why: "-0 is a JSON number (RFC 8259 §6) equal to 0, and JSON Schema compares numbers by value, so it meets minimum 0; rein spells bounded numbers without a negative zero, so it rejects it too"},
	{desc: "min 0", input: "100000000000000000000000000000000", reinAccepts: true, why: "JSON Schema sets no limit on the size of an integer; llama.cpp's integer ranges stop at 16 digits"},
	{desc: "min 2", input: "12345678900000000", reinAccepts: true, why: "JSON Schema sets no limit on the size of an integer; llama.cpp's integer ranges stop at 16 digits"},
	{desc: "integer", input: "12345678901234567  ", why: "JSON Schema sets no limit on the size of an integer, and a JSON text may end in whitespace (RFC 8259 §2); rein's grammars have no whitespace around the top-level value, so it rejects it too"},
	{desc: "empty schema (object)", input: "[]", reinAccepts: true, why: "the empty schema {} accepts every instance (JSON Schema core §4.3.2); llama.cpp reads it as an object"},
	{desc: "empty schema (object)", input: "null", reinAccepts: true, why: "the empty schema {} accepts every instance (JSON Schema core §4.3.2); llama.cpp reads it as an object"},
	{desc: "empty schema (object)", input: `""`, reinAccepts: true, why: "the empty schema {} accepts every instance (JSON Schema core §4.3.2); llama.cpp reads it as an object"},
	{desc: "empty schema (object)", input: "true", reinAccepts: true, why: "the empty schema {} accepts every instance (JSON Schema core §4.3.2); llama.cpp reads it as an object"},
	{desc: "min+max items", input: "1", reinAccepts: true, why: "without type, items, minItems and maxItems constrain arrays only and every other instance is valid (JSON Schema validation §6); later llama.cpp versions list it as passing"},
	{desc: "object properties", input: `{ "number": 1600, "street_name": "Pennsylvania", "street_type":"Avenue", "direction":"NW"}`, reinAccepts: true, why: "an absent additionalProperties means {}: undeclared properties are allowed (JSON Schema core §10.3.2.3); llama.cpp defaults it to false"},
	{desc: "object properties", input: `{ "street_name": "Pennsylvania", "number": 1600 }`, reinAccepts: true, anyOrder: true, why: llamaOrderRule},
	{desc: "object properties, additionalProperties: true", input: `{ "street_name": "Pennsylvania", "number": 1600, "street_type":"Avenue"}`, reinAccepts: true, anyOrder: true, why: llamaOrderRule},
	{desc: "required + optional props each in original order", input: `{ "street_type": "Avenue", "number": 1600 }`, reinAccepts: true, anyOrder: true, why: llamaOrderRule},
	{desc: "required + optional props each in original order", input: `{"a": "foo", "b": "bar"}`, reinAccepts: true, anyOrder: true, why: llamaOrderRule},
	{desc: "required + optional props each in original order", input: `{"a":"foo", "b":"bar", "c":"baz", "d":"qux"}`, reinAccepts: true, anyOrder: true, why: llamaOrderRule},
	{desc: "required props", input: `{"productName": "A green door", "price": 12.50, "productId": 1}`, reinAccepts: true, anyOrder: true, why: llamaOrderRule},
	{desc: "required props", input: `{"productId": 1, "productName": "A green door", "price": 12.50, "dimensions": {"length": 785, "width": 250.5, "height": -0.359}, "tags": ["home", "green"]}`, reinAccepts: true, anyOrder: true, why: llamaOrderRule},
}

// llamaUnescape undoes the C++ escapes that the extraction of the cases
// kept in a few strings (llama.cpp writes `"[\"123\"]"`, an ordinary C++
// string literal, where it means ["123"]). No string of a schema case holds a
// backslash of its own.
func llamaUnescape(t *testing.T, s string) (string, bool) {
	t.Helper()
	if !strings.Contains(s, `\`) {
		return s, false
	}
	u, err := strconv.Unquote(`"` + s + `"`)
	require.NoError(t, err, "unescaping %q", s)
	return u, true
}

// llamaCases is llama.cpp's grammar integration cases, exported to JSON.
// Kind "test_schema" cases hold a JSON Schema ("test_grammar" ones hold GBNF,
// which grammar's tests read). Passing strings must be sentences of the
// grammar; failing ones must not (they may be viable prefixes).
type llamaCases struct {
	Cases []struct {
		Kind    string   `json:"kind"`
		Desc    string   `json:"desc"`
		Grammar string   `json:"grammar"`
		Passing []string `json:"passing"`
		Failing []string `json:"failing"`
	} `json:"cases"`
}

// TestJSONSchemaLlamaCases compiles every JSON Schema case of llama.cpp's
// grammar integration tests with the default options (strict, declared
// order, flexible whitespace) and checks with the Earley oracle that the
// grammar accepts the passing strings and rejects the failing ones, except
// the failing strings listed in llamaDeviations, which the standard says are
// valid: for those it asserts rein's own verdict.
func TestJSONSchemaLlamaCases(t *testing.T) {
	path := datadir.Shared(t, "gbnf", "llama.cpp", "test-grammar-integration.cases.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var file llamaCases
	require.NoError(t, json.Unmarshal(data, &file))

	deviation := map[[2]string]*llamaDeviation{}
	for i := range llamaDeviations {
		d := &llamaDeviations[i]
		deviation[[2]string{d.desc, d.input}] = d
	}
	used := map[*llamaDeviation]int{}
	cases, checked, deviations, unescaped := 0, 0, 0, 0
	for i, c := range file.Cases {
		if c.Kind != "test_schema" {
			continue
		}
		cases++
		t.Run(fmt.Sprintf("%02d %s", i, c.Desc), func(t *testing.T) {
			opts := jsonschema.Options{}
			g, warns, err := jsonschema.Compile([]byte(c.Grammar), opts)
			require.NoError(t, err, "schema:\n%s", c.Grammar)
			var ptrs []string
			for _, w := range warns {
				ptrs = append(ptrs, w.Pointer)
			}
			assert.Empty(t, ptrs, "warnings")
			r, err := oracle.New(g)
			require.NoError(t, err)
			var declared *oracle.Recognizer
			accepts := func(r *oracle.Recognizer, s string) bool {
				o := r.Clone()
				o.Feed([]byte(s))
				return o.Complete()
			}
			for _, want := range []bool{true, false} {
				list := c.Passing
				if !want {
					list = c.Failing
				}
				for _, raw := range list {
					s, fixed := llamaUnescape(t, raw)
					if fixed {
						unescaped++
					}
					d := deviation[[2]string{c.Desc, raw}]
					if d == nil || want {
						checked++
						assert.Equal(t, want, accepts(r, s), "%q: llama.cpp expects accepted=%v; schema:\n%s", s, want, c.Grammar)
						continue
					}
					used[d]++
					deviations++
					t.Logf("deviation, llama.cpp rejects %q: %s", s, d.why)
					assert.Equal(t, d.reinAccepts, accepts(r, s), "%q: rein should give accepted=%v", s, d.reinAccepts)
					if d.anyOrder {
						if declared == nil {
							o := opts
							o.Order = jsonschema.OrderDeclared
							gd, _, err := jsonschema.Compile([]byte(c.Grammar), o)
							require.NoError(t, err)
							declared, err = oracle.New(gd)
							require.NoError(t, err)
						}
						assert.False(t, accepts(declared, s), "%q should be refused with OrderDeclared", s)
					}
				}
			}
		})
	}
	for i := range llamaDeviations {
		d := &llamaDeviations[i]
		assert.Equal(t, 1, used[d], "deviation %q / %q should match one failing string", d.desc, d.input)
	}
	t.Logf("%d schema cases, %d strings checked against llama.cpp, %d deviations from the standard checked against rein's own verdict, %d strings unescaped",
		cases, checked, deviations, unescaped)
	require.NotZero(t, cases)
}
