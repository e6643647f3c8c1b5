package jsonschema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/jsonschema"
)

// taggedAlternatives returns n object schemas told apart by the value of
// "kind", each with two properties of its own, joined by sep.
func taggedAlternatives(n int, required bool) string {
	alts := make([]string, n)
	for i := range n {
		req := ""
		if required {
			req = `"required":["kind","a` + fmt.Sprint(i) + `"],`
		}
		alts[i] = fmt.Sprintf(`{%s"properties":{"kind":{"const":"k%d"},"a%d":{"type":"integer","minimum":%d},"b%d":{"type":"string","maxLength":%d}}}`, req, i, i, i, i, i+1)
	}
	return strings.Join(alts, ",")
}

// combinatorCases are schemas whose anyOf, oneOf, allOf and not used to
// multiply into more branches than Limits.Alternatives, or to need a
// negation that cannot be expressed, when a cheaper exact form exists.
var combinatorCases = []schemaCase{
	// oneOf judged within its siblings: "kind" is required and listed
	// beside oneOf, so alternatives that give it different constants are
	// disjoint even though none of them requires it.
	{
		name:    "oneOf tagged by a sibling's required property",
		schema:  `{"type":"object","required":["kind"],"properties":{"kind":{"type":"string"}},"oneOf":[` + taggedAlternatives(12, false) + `]}`,
		valid:   []string{`{"kind":"k0"}`, `{"kind":"k3","a3":3,"b3":"abcd"}`, `{"kind":"k11","a0":"x","zz":null}`},
		invalid: []string{`{}`, `{"kind":"k12"}`, `{"kind":"k3","a3":2}`, `{"kind":"k3","b3":"abcde"}`, `[]`},
	},
	// Exactly-one by negation, where one alternative's values are all the
	// other's: the larger one keeps what the smaller does not accept.
	{
		name: "oneOf with a sub-alternative",
		schema: `{"type":"object","properties":{"c":{"oneOf":[` +
			`{"type":"object","required":["f","t","s"],"properties":{"f":{"type":"object"},"t":{"enum":["l","a"]},"s":{"type":"string"}}},` +
			`{"type":"object","required":["f","t"],"properties":{"f":{"type":"object"},"t":{"enum":["l","a"]},"tall":{"type":"boolean"}}},` +
			`{"type":"object","required":["u"],"properties":{"u":{"type":"string"}}},` +
			`{"type":"object","required":["v"],"properties":{"v":{"type":"string"}}},` +
			`{"type":"object","required":["w"],"properties":{"w":{"type":"string"}}},` +
			`{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"string"}},"additionalProperties":false}]}}}`,
		valid:   []string{`{"c":{"f":{},"t":"l"}}`, `{"c":{"u":"1"}}`, `{"c":{"x":"1"}}`, `{"c":{}}`, `{"c":{"f":{},"t":"l","s":1}}`},
		invalid: []string{`{"c":{"f":{},"t":"l","s":"s"}}`, `{"c":{"u":"1","v":"2"}}`, `{"c":{"x":1}}`, `{"c":{"f":{},"t":"z"}}`},
	},
	// The complement of a tagged union, by cases on the tag. (A branch of
	// the complement declares the property that fails, so the others
	// follow it.)
	{
		name:    "not of a tagged union",
		schema:  `{"type":"object","not":{"anyOf":[` + taggedAlternatives(8, true) + `]}}`,
		valid:   []string{`{}`, `{"kind":"k9","a9":1}`, `{"kind":"k2","a2":1}`, `{"kind":"k2","b2":"abcd","a2":2}`, `{"kind":"k5"}`},
		invalid: []string{`{"kind":"k2","a2":2}`, `{"kind":"k7","a7":7,"b7":"x"}`, `1`},
	},
	// A tagged union under oneOf beside an alternative that overlaps it.
	{
		name:    "oneOf of a tagged union and an untagged alternative",
		schema:  `{"oneOf":[` + taggedAlternatives(8, true) + `,{"type":"object","required":["kind","g"],"properties":{"kind":{"type":"string"}}}]}`,
		valid:   []string{`{"kind":"k1","a1":1}`, `{"kind":"k1","g":0}`, `{"kind":"k1","a1":0,"g":0}`, `{"kind":"zz","g":0}`},
		invalid: []string{`{"kind":"k1","a1":1,"g":0}`, `{"kind":"zz"}`, `{"g":0}`},
	},
	// ¬(A ∧ ¬B) is ¬A ∨ B, also when B itself cannot be negated.
	{
		name:    "not of a conjunction with a negation",
		schema:  `{"not":{"allOf":[{"type":"object"},{"not":{"patternProperties":{"^x":{"type":"integer"}}}}]}}`,
		valid:   []string{`1`, `"s"`, `{}`, `{"xa":1,"b":"s"}`},
		invalid: []string{`{"xa":"s"}`, `{"b":1,"xb":[]}`},
	},
	// The same, reached through draft-7 $refs, inside array items that
	// oneOf tells apart. (Documents list properties in the order the
	// schemas declare them.)
	{
		name: "oneOf of arrays of refs that negate refs",
		schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","oneOf":[` +
			`{"items":{"allOf":[{"$ref":"#/definitions/common"},{"$ref":"#/definitions/plain"}]}},` +
			`{"items":{"allOf":[{"$ref":"#/definitions/common"},{"$ref":"#/definitions/special"}]}}],` +
			`"definitions":{"common":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}},` +
			`"plain":{"required":["type"],"properties":{"type":{"enum":["f","d","l"]}},"not":{"$ref":"#/definitions/special"}},` +
			`"special":{"required":["u"],"properties":{"u":{"type":"string","minLength":1}},"oneOf":[` +
			`{"required":["type","size"],"properties":{"type":{"const":"f"},"size":{"type":"integer"}}},` +
			`{"required":["type","size","n"],"properties":{"type":{"const":"d"},"size":{"type":"integer"},"n":{"type":"integer","minimum":1}}},` +
			`{"required":["type"],"properties":{"type":{"const":"l"}}}]}}}`,
		valid:   []string{`[{"name":"a","type":"f"}]`, `[{"name":"a","u":"x","type":"l"}]`, `[{"name":"a","type":"f","u":"x"},{"name":"b","type":"d"}]`},
		invalid: []string{`[]`, `[{"name":"a"}]`, `[{"name":"a","type":"f"},{"name":"b","type":"l","u":"x"}]`, `[{"name":"a","type":"q"}]`},
	},

	// contains beside prefixItems, items false, minItems/maxItems or a
	// second contains: counted position by position.
	{
		name:    "contains with maxItems",
		schema:  `{"type":"array","items":{"type":"integer"},"contains":{"minimum":10},"maxItems":3}`,
		valid:   []string{`[10]`, `[1,2,10]`, `[10,10,10]`},
		invalid: []string{`[]`, `[1,2,3]`, `[1,2,3,10]`, `[1,"a",10]`},
	},
	{
		name:    "contains with minItems past minContains",
		schema:  `{"type":"array","contains":{"const":"x"},"minContains":2,"maxContains":3,"minItems":5}`,
		valid:   []string{`["x","x",1,2,3]`, `[1,"x",2,"x","x"]`},
		invalid: []string{`["x","x",1,2]`, `["x","x","x","x",1]`, `["x",1,2,3,4]`},
	},
	{
		name:    "contains with prefixItems and items false",
		schema:  `{"prefixItems":[{"type":"string"},{"type":"integer"},{"type":"boolean"}],"items":false,"contains":{"type":"integer"}}`,
		valid:   []string{`["a",1]`, `["a",1,true]`},
		invalid: []string{`[]`, `["a"]`, `["a",1,true,2]`, `[1]`},
	},
	{
		name:    "two contains with bounds",
		schema:  `{"type":"array","allOf":[{"contains":{"type":"string"}},{"contains":{"type":"integer"},"maxContains":1}],"maxItems":4}`,
		valid:   []string{`["a",1]`, `[1,"a",null,"b"]`},
		invalid: []string{`[1]`, `["a"]`, `["a",1,2]`, `["a",null,null,null,1]`, `[]`},
	},
	// Negated bounded contains: fewer than minContains or more than
	// maxContains.
	{
		name:    "not contains with minContains and maxContains",
		schema:  `{"type":"array","not":{"contains":{"const":1},"minContains":2,"maxContains":3}}`,
		valid:   []string{`[]`, `[1]`, `[1,2,3]`, `[1,1,1,1]`},
		invalid: []string{`[1,1]`, `[1,2,1,3,1]`},
	},
	// oneOf of arrays whose item enums are apart: the negation of the
	// others' items asks for an item outside their enum, which every item
	// of this alternative is; only the empty array is in all of them.
	{
		name: "oneOf of arrays with bounded items apart",
		schema: `{"oneOf":[` +
			`{"type":"array","maxItems":5,"items":{"enum":["a","b"]}},` +
			`{"type":"array","maxItems":5,"items":{"enum":["c","d"]}},` +
			`{"type":"array","maxItems":5,"items":{"enum":["e"]}},` +
			`{"type":"array","maxItems":5,"items":{"enum":["f","g"]}},` +
			`{"type":"array","maxItems":5,"items":{"enum":["h"]}}]}`,
		valid:   []string{`["a"]`, `["c","d","c"]`, `["h","h","h","h","h"]`},
		invalid: []string{`[]`, `["a","c"]`, `["h","h","h","h","h","h"]`, `["z"]`},
	},

	// Negated patternProperties, propertyNames and additionalProperties ask
	// for a key: a declared property, or one among the undeclared keys.
	{
		name:    "not propertyNames",
		schema:  `{"type":"object","not":{"propertyNames":{"not":{"const":"0"}}},"patternProperties":{"\\d":{"type":"boolean"}}}`,
		valid:   []string{`{"0":true}`, `{"a":1,"0":false,"b":2}`},
		invalid: []string{`{}`, `{"1":true}`, `{"0":1}`},
	},
	{
		name:    "not propertyNames false",
		schema:  `{"type":"object","not":{"propertyNames":false}}`,
		valid:   []string{`{"a":1}`},
		invalid: []string{`{}`, `1`},
	},
	{
		name:    "oneOf of patternProperties",
		schema:  `{"type":"object","oneOf":[{"patternProperties":{"a":{"multipleOf":10,"maximum":35}}},{"patternProperties":{"a":{"multipleOf":10,"maximum":40}}}]}`,
		valid:   []string{`{"a":40}`, `{"xa":40,"b":1}`, `{"b":1,"ab":40,"c":10}`, `{"a":40,"ba":10}`},
		invalid: []string{`{}`, `{"a":10}`, `{"a":30,"ba":10}`, `{"a":50}`},
	},
	{
		name:    "not patternProperties with a declared property",
		schema:  `{"type":"object","properties":{"ax":{"type":"integer"}},"not":{"patternProperties":{"^a":{"type":"integer"}}}}`,
		valid:   []string{`{"ab":"s"}`, `{"ax":1,"ay":[]}`},
		invalid: []string{`{}`, `{"ax":1}`, `{"ax":"s"}`, `{"b":"s"}`},
	},
	{
		name:    "not additionalProperties on an open object",
		schema:  `{"type":"object","properties":{"a":{}},"not":{"properties":{"a":{},"b":{}},"additionalProperties":{"type":"string"}}}`,
		valid:   []string{`{"c":1}`, `{"a":1,"c":"s","d":2}`},
		invalid: []string{`{}`, `{"a":1}`, `{"c":"s"}`, `{"b":1}`},
	},
	{
		name:    "oneOf of open objects apart only by an extra key",
		schema:  `{"oneOf":[{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}}},{"type":"object","properties":{"a":{"type":"string"}}}]}`,
		valid:   []string{`{"b":1}`, `{"a":"s","b":null}`},
		invalid: []string{`{}`, `{"a":"s"}`, `{"a":1,"b":1}`},
	},

	// Several such keys among the undeclared ones: distinct keys, or one
	// key in every key language whose value fails every schema.
	{
		name:    "not anyOf of two propertyNames",
		schema:  `{"type":"object","not":{"anyOf":[{"propertyNames":{"not":{"const":"a"}}},{"propertyNames":{"not":{"const":"b"}}}]}}`,
		valid:   []string{`{"a":1,"b":2}`, `{"b":1,"a":2}`, `{"x":0,"b":1,"y":2,"a":3}`},
		invalid: []string{`{}`, `{"a":1}`, `{"b":1,"c":1}`, `{"x":1,"y":2}`},
	},
	{
		name:    "not anyOf of three propertyNames",
		schema:  `{"type":"object","not":{"anyOf":[{"propertyNames":{"not":{"const":"a"}}},{"propertyNames":{"not":{"const":"b"}}},{"propertyNames":{"not":{"const":"c"}}}]}}`,
		valid:   []string{`{"a":1,"b":1,"c":1}`, `{"c":1,"x":1,"a":1,"b":1}`},
		invalid: []string{`{"a":1,"b":1}`, `{"a":1,"c":1,"d":1}`, `{}`},
	},
	{
		// A key matching both patterns serves both only if its value fails
		// both schemas: "ab":10.5 is not an integer and is above 10; a
		// string passes maximum, so it serves the first alone.
		name:    "not anyOf of two patternProperties, one key for both",
		schema:  `{"type":"object","properties":{"p":{}},"not":{"anyOf":[{"patternProperties":{"a":{"type":"integer"}}},{"patternProperties":{"b":{"maximum":10}}}]}}`,
		valid:   []string{`{"ab":10.5}`, `{"a":5.5,"b":20}`, `{"ab":20,"a":"s"}`, `{"p":1,"x":1,"ab":12.5,"y":2}`, `{"ab":5.5,"ab2":20}`},
		invalid: []string{`{"ab":5.5}`, `{"ab":20}`, `{"ab":"s"}`, `{"c":"s"}`, `{"a":"s","c":1}`, `{}`, `{"p":1.5,"b":20}`, `{"a":"s","b":"s"}`},
	},
	{
		name:    "not anyOf of two patternProperties, a declared key for one",
		schema:  `{"type":"object","properties":{"ab":{"type":"number"}},"not":{"anyOf":[{"patternProperties":{"a":{"type":"integer"}}},{"patternProperties":{"b":{"maximum":10}}}]}}`,
		valid:   []string{`{"ab":10.5}`, `{"ab":5.5,"b":11}`, `{"ab":20,"a":1.5}`, `{"b":11,"a":1.5}`},
		invalid: []string{`{"ab":5.5}`, `{"ab":"s"}`, `{"ab":20,"xb":3}`, `{"ab":1,"a":1.5}`, `{"ab":5.5,"b":"x"}`},
	},
	{
		// The first alternative alone: no "a" key fails, and a "b" key and
		// a "c" key (or one key with both) hold non-integers.
		name:    "oneOf of three patternProperties",
		schema:  `{"type":"object","oneOf":[{"patternProperties":{"a":{"type":"integer"}}},{"patternProperties":{"b":{"type":"integer"}}},{"patternProperties":{"c":{"type":"integer"}}}]}`,
		valid:   []string{`{"b":"s","c":"s"}`, `{"bc":"s"}`, `{"a":1,"bc":"s"}`, `{"a":1,"b":"s","c":[]}`},
		invalid: []string{`{"abc":"s"}`, `{"bc":1}`, `{}`, `{"b":"s"}`, `{"a":"s","b":"s","c":"s"}`},
	},

	// Such keys counted by minProperties and maxProperties, declared or not.
	{
		// Exactly one: every "a" key a multiple of 10 and one above 40, or
		// every one at most 40 and one not a multiple of 10.
		name:    "oneOf of patternProperties with minProperties",
		schema:  `{"type":"object","oneOf":[{"patternProperties":{"a":{"multipleOf":10}}},{"patternProperties":{"a":{"maximum":40}}}],"minProperties":2}`,
		valid:   []string{`{"a":50,"b":1}`, `{"a":15,"x":1}`, `{"b":1,"a":50}`, `{"a":50,"ba":60}`},
		invalid: []string{`{"a":50}`, `{"a":10,"b":1}`, `{"a":50,"ba":15}`, `{"b":1,"c":2}`, `{}`},
	},
	{
		name:    "three keys asked for with minProperties",
		schema:  `{"type":"object","not":{"anyOf":[{"propertyNames":{"not":{"enum":["1","3"]}}},{"propertyNames":{"not":{"enum":["2","3"]}}},{"propertyNames":{"not":{"enum":["1","3"]}}}]},"minProperties":3}`,
		valid:   []string{`{"1":0,"2":0,"x":0}`, `{"3":0,"a":0,"b":0}`, `{"a":0,"2":0,"b":0,"1":0}`},
		invalid: []string{`{"3":0,"a":0}`, `{"1":0,"2":0}`, `{"1":0,"a":0,"b":0}`, `{}`},
	},
	{
		// Each enum needs a key in it: "2" serves the last three, "3"
		// the first two, "5" the last two.
		name:    "four keys asked for with maxProperties",
		schema:  `{"type":"object","not":{"anyOf":[{"propertyNames":{"not":{"enum":["1","3"]}}},{"propertyNames":{"not":{"enum":["2","3"]}}},{"propertyNames":{"not":{"enum":["2","4","5"]}}},{"propertyNames":{"not":{"enum":["1","2","5"]}}}]},"maxProperties":2}`,
		valid:   []string{`{"2":0,"1":0}`, `{"2":0,"3":0}`, `{"3":0,"5":0}`, `{"1":0,"2":0}`},
		invalid: []string{`{"3":0,"4":0}`, `{"1":0,"3":0}`, `{"2":0}`, `{"1":0,"2":0,"3":0}`, `{"1":0,"5":0}`},
	},
	{
		name:    "five keys asked for with maxProperties",
		schema:  `{"type":"object","not":{"anyOf":[{"propertyNames":{"not":{"enum":["1","3"]}}},{"propertyNames":{"not":{"enum":["2","3"]}}},{"propertyNames":{"not":{"enum":["2","4","5"]}}},{"propertyNames":{"not":{"enum":["1","2","5"]}}},{"propertyNames":{"not":{"enum":["3","5"]}}}]},"maxProperties":2}`,
		valid:   []string{`{"3":0,"5":0}`, `{"2":0,"3":0}`},
		invalid: []string{`{"1":0,"2":0}`, `{"2":0,"1":0}`, `{"3":0,"4":0}`, `{"2":0,"3":0,"5":0}`},
	},
	{
		name:    "two keys asked for with maxProperties",
		schema:  `{"type":"object","properties":{"p":{}},"not":{"anyOf":[{"propertyNames":{"not":{"const":"a"}}},{"propertyNames":{"not":{"const":"b"}}}]},"maxProperties":3}`,
		valid:   []string{`{"a":1,"b":1}`, `{"p":1,"a":1,"b":1}`, `{"b":1,"x":1,"a":1}`},
		invalid: []string{`{"p":1,"a":1,"b":1,"x":1}`, `{"a":1,"b":1,"x":1,"y":1}`, `{"a":1,"x":1}`, `{"p":1,"a":1}`},
	},
	{
		name:    "two keys asked for with minProperties and maxProperties",
		schema:  `{"type":"object","properties":{"p":{"type":"integer"}},"not":{"anyOf":[{"propertyNames":{"not":{"const":"a"}}},{"propertyNames":{"not":{"const":"b"}}}]},"minProperties":4,"maxProperties":6}`,
		valid:   []string{`{"a":1,"b":1,"c":1,"d":1}`, `{"x":1,"a":1,"y":1,"b":1,"z":1,"w":1}`, `{"p":1,"b":1,"x":1,"a":1}`},
		invalid: []string{`{"a":1,"b":1,"c":1}`, `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1}`, `{"p":1,"a":1,"b":1,"c":1,"d":1,"e":1,"f":1}`, `{"c":1,"d":1,"e":1,"f":1}`, `{"p":"s","a":1,"b":1,"c":1}`},
	},
	{
		name:    "a key asked for, declared or not, with exactly two properties",
		schema:  `{"type":"object","properties":{"ab":{}},"not":{"patternProperties":{"a":{"type":"integer"}}},"minProperties":2,"maxProperties":2}`,
		valid:   []string{`{"ab":"s","x":1}`, `{"ab":1,"a":"s"}`, `{"x":1,"a":"s"}`},
		invalid: []string{`{"ab":"s"}`, `{"ab":1,"x":"s"}`, `{"ab":"s","x":1,"y":1}`, `{"a":"s","b":"s","c":1}`, `{"a":"s"}`},
	},
	{
		name:    "a key outside the declared ones with minProperties",
		schema:  `{"type":"object","minProperties":2,"not":{"additionalProperties":false,"properties":{"a":{}}}}`,
		valid:   []string{`{"a":1,"b":1}`, `{"b":1,"c":1}`},
		invalid: []string{`{"b":1}`, `{"a":1}`, `{}`},
	},
	{
		// not of a keyword that holds for every non-object refuses them.
		name:    "some key with maxProperties",
		schema:  `{"properties":{"a":{"maxProperties":3,"not":{"additionalProperties":false}}}}`,
		valid:   []string{`{"a":{"x":1}}`, `{"a":{"x":1,"y":2,"z":3}}`, `{}`},
		invalid: []string{`{"a":{}}`, `{"a":{"w":1,"x":1,"y":2,"z":3}}`, `{"a":5}`},
	},
	{
		name:    "not patternProperties with minProperties",
		schema:  `{"type":"object","minProperties":2,"not":{"patternProperties":{"a":{"type":"integer"}}}}`,
		valid:   []string{`{"a":"s","b":1}`, `{"b":1,"ba":null}`},
		invalid: []string{`{"a":"s"}`, `{"a":1,"b":1}`, `{"b":"s","c":"s"}`},
	},

	// additionalProperties evaluates every key it applies to, true and {}
	// too, so unevaluatedProperties beside it constrains nothing
	// (2020-12 core, 10.3.2.3 and 11.3).
	{
		name:    "unevaluatedProperties after additionalProperties true",
		schema:  `{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":true,"unevaluatedProperties":false}`,
		valid:   []string{`{"x":1}`, `{"a":1,"x":"s"}`, `{}`},
		invalid: []string{`{"a":"s"}`, `1`},
	},
	{
		name:    "unevaluatedProperties after additionalProperties {} through $ref",
		schema:  `{"$defs":{"open":{"type":"object","additionalProperties":{}}},"$ref":"#/$defs/open","unevaluatedProperties":false}`,
		valid:   []string{`{"x":1}`, `{}`},
		invalid: []string{`[]`},
	},
	{
		name:    "unevaluatedProperties beside an anyOf branch with additionalProperties true",
		schema:  `{"type":"object","anyOf":[{"required":["a"],"additionalProperties":true},{"required":["b"],"properties":{"b":{}}}],"unevaluatedProperties":false}`,
		valid:   []string{`{"a":1,"x":1}`, `{"b":1}`},
		invalid: []string{`{"b":1,"x":1}`, `{}`},
	},
	// Branches alike but for additionalProperties true: whichever comes
	// first, the one that evaluates every key serves.
	{
		name:    "unevaluatedProperties beside anyOf of {} and additionalProperties true",
		schema:  `{"type":"object","anyOf":[{},{"additionalProperties":true}],"unevaluatedProperties":false}`,
		valid:   []string{`{"a":1}`, `{}`},
		invalid: []string{`[]`},
	},
	{
		name:    "unevaluatedProperties beside anyOf of additionalProperties true and {}",
		schema:  `{"type":"object","anyOf":[{"additionalProperties":true},{}],"unevaluatedProperties":false}`,
		valid:   []string{`{"a":1}`, `{}`},
		invalid: []string{`[]`},
	},
	// A negation's annotations are dropped: what a not of a not imposes on
	// keys evaluates none of them.
	{
		name:    "unevaluatedProperties beside a not of a not of additionalProperties",
		schema:  `{"type":"object","not":{"not":{"additionalProperties":{"type":"integer"}}},"unevaluatedProperties":false}`,
		valid:   []string{`{}`},
		invalid: []string{`{"a":1}`, `{"a":"s"}`},
	},
	{
		name:    "unevaluatedProperties beside a not of a not of patternProperties",
		schema:  `{"type":"object","not":{"not":{"patternProperties":{"^a":{"type":"integer"}}}},"properties":{"b":{}},"unevaluatedProperties":false}`,
		valid:   []string{`{}`, `{"b":"s"}`},
		invalid: []string{`{"a":1}`, `{"a":"s"}`, `{"c":1}`},
	},
}

func TestJSONSchemaCombinators(t *testing.T) {
	for _, tc := range combinatorCases {
		t.Run(tc.name, func(t *testing.T) {
			for _, doc := range tc.valid {
				ok, err := jsonschema.Validate([]byte(tc.schema), []byte(doc), jsonschema.Options{})
				require.NoError(t, err)
				require.True(t, ok, "the validator accepts %s", doc)
			}
			for _, doc := range tc.invalid {
				ok, err := jsonschema.Validate([]byte(tc.schema), []byte(doc), jsonschema.Options{})
				require.NoError(t, err)
				require.False(t, ok, "the validator rejects %s", doc)
			}
			g, _, err := jsonschema.Compile([]byte(tc.schema), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
			require.NoError(t, err)
			require.NoError(t, g.Validate())
			assertLanguage(t, g, tc.valid, tc.invalid)
		})
	}
}

// TestJSONSchemaCombinatorsStillRefused checks that what stays beyond an
// exact grammar is still an error.
func TestJSONSchemaCombinatorsStillRefused(t *testing.T) {
	for _, schema := range []string{
		// Six such keys among the undeclared ones.
		`{"type":"object","not":{"anyOf":[{"propertyNames":{"not":{"const":"a"}}},{"propertyNames":{"not":{"const":"b"}}},{"propertyNames":{"not":{"const":"c"}}},{"propertyNames":{"not":{"const":"d"}}},{"propertyNames":{"not":{"const":"e"}}},{"propertyNames":{"not":{"const":"f"}}}]}}`,
		// Three that each may be one of 10 declared properties.
		`{"type":"object","properties":{"a0":{},"a1":{},"a2":{},"a3":{},"a4":{},"a5":{},"a6":{},"a7":{},"a8":{},"a9":{}},"not":{"anyOf":[{"patternProperties":{"a":{"maximum":0}}},{"patternProperties":{"a":{"maximum":1}}},{"patternProperties":{"a":{"maximum":2}}}]}}`,
	} {
		_, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
		assert.Error(t, err, "%s", schema)
	}
}
