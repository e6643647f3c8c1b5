package jsonschema_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/fuzzcheck"
	"github.com/reinlm/rein/internal/oracle"
)

// schemaCase is a schema with instances it must accept and reject, written
// compactly (the test compiles with WhitespaceCompact unless opts says otherwise).
type schemaCase struct {
	name    string
	schema  string
	valid   []string
	invalid []string
	opts    *jsonschema.Options
}

var schemaCases = []schemaCase{
	// Types.
	{name: "true", schema: `true`, valid: []string{`1`, `"a"`, `{"a":[null]}`, `[]`, `null`, `-1.5e3`}, invalid: []string{``, `tru`, `{a:1}`, `"\x"`}},
	{name: "empty object", schema: `{}`, valid: []string{`{}`, `[1,"2"]`}},
	{name: "null", schema: `{"type":"null"}`, valid: []string{`null`}, invalid: []string{`0`, `"null"`}},
	{name: "boolean", schema: `{"type":"boolean"}`, valid: []string{`true`, `false`}, invalid: []string{`0`, `null`}},
	{name: "integer", schema: `{"type":"integer"}`, valid: []string{`0`, `-7`, `123`}, invalid: []string{`1.5`, `01`, `-0x`, `"1"`, `1e5`}},
	{name: "number", schema: `{"type":"number"}`, valid: []string{`0`, `-7.25`, `1e5`, `2.5E-3`}, invalid: []string{`.5`, `1.`, `+1`, `NaN`}},
	{name: "string", schema: `{"type":"string"}`, valid: []string{`""`, `"a b"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\uD83D\uDE00"`, `"é😀"`}, invalid: []string{`"a`, "\"\x01\"", `"\x"`, `"\uD83D"`, `"\u12"`}},
	{name: "type list", schema: `{"type":["string","null"]}`, valid: []string{`"x"`, `null`}, invalid: []string{`1`, `{}`}},
	{name: "array", schema: `{"type":"array"}`, valid: []string{`[]`, `[1,[2],{"a":3}]`}, invalid: []string{`{}`, `[1,]`}},
	{name: "object", schema: `{"type":"object"}`, valid: []string{`{}`, `{"a":1,"b":[]}`}, invalid: []string{`[]`, `{"a"}`, `{1:2}`}},
	{name: "false subschema", schema: `{"type":"object","properties":{"a":false}}`, valid: []string{`{}`, `{"b":1}`}, invalid: []string{`{"a":1}`}},

	// Strings.
	{name: "length", schema: `{"type":"string","minLength":2,"maxLength":3}`, valid: []string{`"ab"`, `"abc"`, `"é😀"`, `"\n\u0041"`}, invalid: []string{`"a"`, `"abcd"`, `""`}},
	{name: "long maxLength", schema: `{"type":"string","maxLength":1000}`, valid: []string{`"` + strings.Repeat("a", 1000) + `"`, `""`}, invalid: []string{`"` + strings.Repeat("a", 1001) + `"`}},
	{name: "long minLength", schema: `{"type":"string","minLength":300,"maxLength":301}`, valid: []string{`"` + strings.Repeat("b", 300) + `"`, `"` + strings.Repeat("b", 301) + `"`}, invalid: []string{`"` + strings.Repeat("b", 299) + `"`, `"` + strings.Repeat("b", 302) + `"`}},
	{name: "pattern anchored", schema: `{"type":"string","pattern":"^[a-z]+-\\d{2}$"}`, valid: []string{`"ab-12"`}, invalid: []string{`"ab-1"`, `"Ab-12"`, `"xab-123"`}},
	{name: "pattern unanchored", schema: `{"type":"string","pattern":"abc"}`, valid: []string{`"abc"`, `"xxabcxx"`}, invalid: []string{`"ab"`, `"acb"`}},
	{name: "pattern alternatives", schema: `{"pattern":"^a$|b"}`, valid: []string{`"a"`, `"xbx"`, `1`}, invalid: []string{`"ax"`, `"c"`}},
	{name: "pattern ECMA escapes", schema: `{"type":"string","pattern":"^\\/\\u0041[^]\\s$"}`, valid: []string{"\"/A\\n\u00a0\"", `"/Ax\t"`}, invalid: []string{`"/Axx"`, `"/A"`}},
	{name: "pattern quote and backslash", schema: `{"type":"string","pattern":"^[\"\\\\]+$"}`, valid: []string{`"\"\\"`}, invalid: []string{`"a"`}},
	{name: "pattern with length", schema: `{"type":"string","pattern":"^[a-z]+$","maxLength":3}`, valid: []string{`"abc"`, `"a"`}, invalid: []string{`"abcd"`, `""`}},
	{name: "pattern with length product", schema: `{"type":"string","pattern":"^(ab)+$","maxLength":5}`, valid: []string{`"ab"`, `"abab"`}, invalid: []string{`"ababab"`, `"aba"`}},
	{name: "format date", schema: `{"type":"string","format":"date"}`, valid: []string{`"2024-02-29"`, `"2000-02-29"`, `"2023-12-31"`}, invalid: []string{`"2023-02-29"`, `"1900-02-29"`, `"2023-04-31"`, `"2023-1-01"`}},
	{name: "format date-time", schema: `{"type":"string","format":"date-time"}`, valid: []string{`"2023-01-01T12:00:00Z"`, `"2023-01-01t12:00:00.5+01:00"`}, invalid: []string{`"2023-01-01T12:00:00"`, `"2023-01-01 12:00:00Z"`}},
	{name: "format time duration", schema: `{"anyOf":[{"format":"time"},{"format":"duration"}],"type":"string"}`, valid: []string{`"23:59:60Z"`, `"P1Y2M"`, `"PT1H"`, `"P2W"`}, invalid: []string{`"24:00:00Z"`, `"P"`, `"PT"`, `"P1H"`}},
	{name: "format email hostname", schema: `{"type":"array","prefixItems":[{"format":"email"},{"format":"hostname"}]}`, valid: []string{`["a.b@c.d","x-y.example.com"]`}, invalid: []string{`["a@","x"]`, `["a@b","-x.com"]`}},
	{name: "format ip", schema: `{"type":"array","prefixItems":[{"format":"ipv4"},{"format":"ipv6"}]}`, valid: []string{`["192.168.0.1","::1"]`, `["0.0.0.0","1:2:3:4:5:6:7:8"]`}, invalid: []string{`["256.1.1.1","::1"]`, `["01.1.1.1","::1"]`, `["1.1.1.1","1::2::3"]`}},
	// RFC 3986 and 3987 by their grammars: the and the suite's
	// invalid ones, and valid ones of every shape.
	{name: "format uri", schema: `{"format":"uri"}`, opts: &jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact},
		valid: []string{`"https://user:pw@example.org:8080/a/b;c?q=1&r=%20#frag"`, `"mailto:a@b.c"`, `"urn:isbn:0451450523"`, `"http://[::1]/"`, `"http://[::]"`,
			`"http://[::ffff:192.168.0.1]:80"`, `"http://[v7.a:b]"`, `"file:///etc/hosts"`, `"x:"`, `"http://example.com:/p"`, `"a+b-c.d:/x"`},
		invalid: []string{`"http://[zz"`, `"a:[[[]]]"`, `"abc://@@"`, `"http://example.com:abc/path"`, `"https://[@example.org/test.txt"`,
			`"http://[::ffff:01.2.3.4]"`, `"http:/[::1]"`, `"//a/b"`, `"1:b"`, `"http://a b"`, `"http://%zz"`}},
	{name: "format uri-reference", schema: `{"format":"uri-reference"}`, opts: &jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact},
		valid:   []string{`"//example.com/p?q#f"`, `"../a/b"`, `"a/b:c"`, `""`, `"#f"`, `"?q"`, `"/a:b"`, `"https://x.org"`},
		invalid: []string{`"#a#b"`, `"/[::1]"`, `"//example.com:abc/p"`, `"//a@b@example.com/"`, `"1:b"`, `"a b"`}},
	{name: "format iri", schema: `{"format":"iri"}`, opts: &jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact},
		valid:   []string{`"http://ƒøø.ßår/?∂éœ=πîx#πîüx"`, `"http://[2001:db8::1]/"`, "\"http://例え.テスト/パス?\ue000\""},
		invalid: []string{`"http://2001:0db8:85a3:0000:0000:8a2e:0370:7334"`, `"http://[::ffff:192.168.0.01]"`, "\"http://a/\ue000\"", `"/relative"`}},
	{name: "format uri-template", schema: `{"format":"uri-template"}`, opts: &jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact},
		valid:   []string{`"http://example.com/~{username}/"`, `"{/list*,path:4}"`, `"{?x,y}"`, `"{a.b}"`, `"{%41b}"`, `"a'b"`, `""`},
		invalid: []string{`"{n.}"`, `"{a..b}"`, `"{.a}x{"`, `"{x:0}"`, `"{x:10000}"`, `"a b"`, `"{}"`, `"a}"`}},
	{name: "format email", schema: `{"format":"email"}`,
		valid:   []string{`"joe.bloggs@example.com"`, `"\"joe bloggs\"@example.com"`, `"\"a\\\"b\"@x.org"`, `"joe@[127.0.0.1]"`, `"joe@[IPv6:::1]"`, `"a!#$%&'*+/=?^_{|}~-@x"`},
		invalid: []string{`"joe..bloggs@example.com"`, `".joe@example.com"`, `"joe@"`, `"\"joe\"bloggs@example.com"`, `"joe@[127.0.0.01]"`, `"joe@[::1]"`, `"jo e@x.org"`}},
	{name: "format idn-email", schema: `{"format":"idn-email"}`,
		valid:   []string{`"실례@실례.테스트"`, `"\"δοκιμή\"@example.com"`, `"a@[127.0.0.1]"`},
		invalid: []string{`"a@@b"`, `"a@b..c"`, `"@b"`, `"a b@c"`}},
	{name: "format uuid uri", schema: `{"type":"array","prefixItems":[{"format":"uuid"},{"format":"uri"},{"format":"uri-reference"}]}`, valid: []string{`["123e4567-e89b-12d3-a456-426614174000","https://x.org/a?b#c","../a"]`}, invalid: []string{`["123e4567e89b12d3a456426614174000","x","a"]`, `["123e4567-e89b-12d3-a456-426614174000","no scheme","a"]`}},
	{name: "format unknown", schema: `{"type":"string","format":"weird"}`, valid: []string{`"anything"`}},
	{name: "format on numbers", schema: `{"type":"integer","format":"int32"}`, valid: []string{`5`}, invalid: []string{`"5"`}},

	// Numbers.
	{name: "integer range", schema: `{"type":"integer","minimum":-5,"maximum":120}`, valid: []string{`-5`, `0`, `9`, `99`, `120`}, invalid: []string{`-6`, `121`, `1000`, `-10`}},
	{name: "exclusive draft 6", schema: `{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":10}`, valid: []string{`1`, `9`}, invalid: []string{`0`, `10`}},
	{name: "exclusive draft 4", schema: `{"$schema":"http://json-schema.org/draft-04/schema#","type":"integer","minimum":0,"exclusiveMinimum":true,"maximum":10,"exclusiveMaximum":true}`, valid: []string{`1`, `9`}, invalid: []string{`0`, `10`}},
	{name: "number range", schema: `{"type":"number","minimum":0.5,"maximum":2}`, valid: []string{`0.5`, `0.50`, `1`, `1.999`, `2`, `2.000`}, invalid: []string{`0.49`, `2.001`, `-1`, `0`}},
	{name: "number min only", schema: `{"type":"number","minimum":0}`, valid: []string{`0`, `0.0`, `123.5`}, invalid: []string{`-0.1`, `-1`}},
	{name: "multipleOf integer", schema: `{"type":"integer","multipleOf":7,"minimum":0,"maximum":50}`, valid: []string{`0`, `7`, `49`}, invalid: []string{`8`, `56`, `-7`}},
	{name: "multipleOf number", schema: `{"type":"number","multipleOf":0.25}`, valid: []string{`1`, `1.25`, `-0.5`, `3.750`}, invalid: []string{`1.1`, `0.125`}},
	{name: "multipleOf makes integers", schema: `{"type":"number","multipleOf":2}`, valid: []string{`4`, `-8`}, invalid: []string{`3`, `4.5`}},

	// Enum and const.
	{name: "enum", schema: `{"enum":["a",1,null,{"x":[true]},[1,2]]}`, valid: []string{`"a"`, `1`, `null`, `{"x":[true]}`, `[1,2]`}, invalid: []string{`"b"`, `2`, `{"x":[false]}`, `[2,1]`}},
	{name: "enum filtered by type", schema: `{"type":"string","enum":["a",1,"b"]}`, valid: []string{`"a"`, `"b"`}, invalid: []string{`1`}},
	{name: "const", schema: `{"const":"a\"b"}`, valid: []string{`"a\"b"`}, invalid: []string{`"ab"`}},
	{name: "enum number forms", schema: `{"enum":[1.0]}`, valid: []string{`1.0`, `1`}, invalid: []string{`2`}},

	// Objects.
	{name: "properties declared order", schema: `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["b"]}`,
		valid: []string{`{"b":"x"}`, `{"a":1,"b":"x"}`, `{"a":1,"b":"x","c":null}`}, invalid: []string{`{}`, `{"a":1}`, `{"a":"1","b":"x"}`, `{"a":1,"b":"x","a":2}`, `{"b":"x","a":"s"}`}},
	{name: "additionalProperties false", schema: `{"type":"object","properties":{"a":{}},"additionalProperties":false}`, valid: []string{`{}`, `{"a":1}`}, invalid: []string{`{"b":1}`, `{"a":1,"b":2}`}},
	{name: "additionalProperties schema", schema: `{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":{"type":"string"}}`, valid: []string{`{"a":1,"b":"x","ab":"y"}`, `{"aa":""}`}, invalid: []string{`{"b":1}`, `{"a":"x"}`}},
	{name: "additional keys never spell declared names", schema: `{"type":"object","properties":{"a":{"type":"integer"}}}`, valid: []string{`{"a":1,"b":"x"}`, `{"":1}`}, invalid: []string{`{"a":"x"}`, `{"b":1,"a":"x"}`}},
	{name: "patternProperties", schema: `{"type":"object","patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":{"type":"string"}}`, valid: []string{`{"x-a":1,"b":"s"}`, `{"y":"s"}`}, invalid: []string{`{"x-a":"s"}`, `{"y":1}`}},
	{name: "patternProperties catch-all", schema: `{"type":"object","patternProperties":{".*":{"type":"number"}}}`, valid: []string{`{"a":1}`}, invalid: []string{`{"a":"x"}`}},
	{name: "propertyNames", schema: `{"type":"object","propertyNames":{"maxLength":2}}`, valid: []string{`{"ab":1}`, `{}`}, invalid: []string{`{"abc":1}`}},
	{name: "propertyNames pattern", schema: `{"type":"object","propertyNames":{"pattern":"^[a-z]+$"},"properties":{"A":{}}}`, valid: []string{`{"ab":1}`}, invalid: []string{`{"A":1}`, `{"a1":1}`}},
	{name: "min and max properties", schema: `{"type":"object","properties":{"a":{},"b":{},"c":{}},"minProperties":1,"maxProperties":2}`, valid: []string{`{"a":1}`, `{"a":1,"c":3}`, `{"x":1,"y":2}`}, invalid: []string{`{}`, `{"a":1,"b":2,"c":3}`, `{"a":1,"x":1,"y":2}`}},
	{name: "required undeclared", schema: `{"type":"object","required":["id"],"additionalProperties":{"type":"integer"}}`, valid: []string{`{"id":1}`, `{"id":1,"x":2}`}, invalid: []string{`{}`, `{"id":"a"}`, `{"x":2}`}},
	{name: "many optional properties", schema: manyProps(30), valid: []string{`{}`, `{"p3":3,"p29":1}`, `{"p0":0,"p1":1,"p2":2}`}, invalid: []string{`{"p3":"x"}`, `{"p29":1,"p3":3}`}},
	{name: "dependentRequired", schema: `{"dependentRequired":{"a":["b"]},"properties":{"a":{},"b":{}}}`, valid: []string{`{}`, `{"b":1}`, `{"a":1,"b":2}`}, invalid: []string{`{"a":1}`}},
	{name: "dependentSchemas", schema: `{"dependentSchemas":{"a":{"properties":{"b":{"type":"integer"}}}},"properties":{"a":{},"b":{}}}`, valid: []string{`{"b":"x"}`, `{"a":1,"b":2}`}, invalid: []string{`{"a":1,"b":"x"}`}},

	// Arrays.
	{name: "items", schema: `{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":3}`, valid: []string{`[1]`, `[1,2,3]`}, invalid: []string{`[]`, `[1,2,3,4]`, `["a"]`}},
	{name: "prefixItems", schema: `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`, valid: []string{`[]`, `["a"]`, `["a",1]`}, invalid: []string{`[1]`, `["a",1,2]`}},
	{name: "draft 4 tuple", schema: `{"$schema":"http://json-schema.org/draft-04/schema#","type":"array","items":[{"type":"string"}],"additionalItems":{"type":"boolean"}}`, valid: []string{`["a"]`, `["a",true,false]`}, invalid: []string{`["a",1]`, `[1]`}},
	{name: "contains", schema: `{"type":"array","items":{"type":"integer"},"contains":{"minimum":10}}`, valid: []string{`[10]`, `[1,2,11,3]`}, invalid: []string{`[]`, `[1,2]`, `["a",10]`}},
	{name: "minContains", schema: `{"type":"array","contains":{"const":1},"minContains":2}`, valid: []string{`[1,1]`, `[1,2,1]`}, invalid: []string{`[1]`, `[1,2]`}},
	{name: "maxContains", schema: `{"type":"array","contains":{"type":"string"},"minContains":1,"maxContains":2}`, valid: []string{`["a"]`, `[1,"a",2,"b",3]`}, invalid: []string{`[]`, `[1]`, `["a","b","c"]`}},
	{name: "unevaluatedItems", schema: `{"prefixItems":[{"type":"integer"}],"allOf":[{"prefixItems":[true,{"type":"string"}]}],"unevaluatedItems":false}`, valid: []string{`[]`, `[1]`, `[1,"a"]`, `{}`}, invalid: []string{`[1,"a",2]`, `["a"]`}},
	{name: "unevaluatedItems schema", schema: `{"unevaluatedItems":{"type":"string"}}`, valid: []string{`[]`, `["a","b"]`, `1`}, invalid: []string{`[1]`, `["a",1]`}},
	{name: "oneOf of arrays", schema: `{"oneOf":[{"type":"array","items":{"enum":["a","b"]}},{"type":"array","items":{"enum":["b","c"]}}]}`,
		valid: []string{`["a"]`, `["c","b"]`, `["a","b","a"]`}, invalid: []string{`[]`, `["b"]`, `["a","c"]`, `["d"]`}},
	{name: "number not integer", schema: `{"not":{"type":"integer"}}`, valid: []string{`1.5`, `"a"`, `-0.01`}, invalid: []string{`1`, `0`, `-3`}},
	{name: "patternProperties on declared", schema: `{"properties":{"foo":{"maxItems":3}},"patternProperties":{"f.o":{"minItems":2}}}`, valid: []string{`{"foo":[1,2]}`}, invalid: []string{`{"foo":[]}`, `{"foo":[1,2,3,4]}`}},
	{name: "large maxItems", schema: `{"type":"array","items":{"const":0},"maxItems":600}`, valid: []string{`[` + strings.Repeat("0,", 599) + `0]`}, invalid: []string{`[` + strings.Repeat("0,", 600) + `0]`}},

	// Combinators.
	{name: "allOf intersection", schema: `{"allOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},{"properties":{"b":{"type":"string"}},"required":["b"]}]}`,
		valid: []string{`{"a":1,"b":"x"}`}, invalid: []string{`{"a":1}`, `{"b":"x"}`, `{"a":"1","b":"x"}`}},
	{name: "allOf bounds", schema: `{"allOf":[{"type":"integer","minimum":3},{"maximum":5},{"type":["integer","string"]}]}`, valid: []string{`3`, `5`}, invalid: []string{`2`, `6`, `"a"`}},
	{name: "allOf additionalProperties", schema: `{"allOf":[{"properties":{"a":{}},"additionalProperties":false},{"properties":{"b":{}}}]}`, valid: []string{`{"a":1}`}, invalid: []string{`{"b":1}`, `{"a":1,"b":1}`}},
	{name: "anyOf", schema: `{"anyOf":[{"type":"string","maxLength":2},{"type":"integer","minimum":10}]}`, valid: []string{`"ab"`, `10`}, invalid: []string{`"abc"`, `9`}},
	{name: "anyOf with siblings", schema: `{"type":"object","properties":{"a":{},"b":{}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`, valid: []string{`{"a":1}`, `{"b":1}`, `{"a":1,"b":2}`}, invalid: []string{`{}`}},
	{name: "oneOf disjoint", schema: `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, valid: []string{`"a"`, `1`}, invalid: []string{`null`}},
	// Required by one alternative, given a disjoint value by the other's
	// patternProperties though not required there (xAPI's identifiers).
	{name: "oneOf disjoint by a required value", schema: `{"oneOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","patternProperties":{"^a$":{"type":"null"}}}]}`, opts: &jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact},
		valid: []string{`{"a":"x"}`, `{}`, `{"a":null}`, `{"b":1}`, `{"a":"x","b":1}`}, invalid: []string{`{"a":1}`, `{"b":1,"a":2}`}},
	{name: "oneOf overlapping negated", schema: `{"oneOf":[{"type":"integer","minimum":5},{"type":"integer","maximum":10}]}`, valid: []string{`4`, `11`}, invalid: []string{`5`, `10`, `7`}},
	// Some uuids start with 0: exactly one means a uuid that does not, or
	// a string starting with 0 that is not a uuid.
	{name: "oneOf overlapping formats", schema: `{"oneOf":[{"type":"string","format":"uuid"},{"type":"string","pattern":"^0"}]}`,
		valid: []string{`"12345678-1234-1234-1234-123456789abc"`, `"0"`, `"0x"`}, invalid: []string{`"02345678-1234-1234-1234-123456789abc"`, `"x"`, `""`}},
	{name: "not format", schema: `{"type":"string","not":{"format":"ipv4"},"maxLength":9}`,
		valid: []string{`""`, `"1.2.3"`, `"a.b.c.d"`, `"1.2.3.456"`}, invalid: []string{`"1.2.3.4"`, `"1.2.33.44"`}},
	{name: "oneOf unknown format", schema: `{"oneOf":[{"type":"string","format":"host-name"},{"type":"string","format":"ipv4"}]}`,
		opts:  &jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact, Lenient: true},
		valid: []string{`"x"`, `"1.2.3"`}, invalid: []string{`"1.2.3.4"`}},
	// Both accept {}: exactly one means one key of the two.
	{name: "oneOf closed objects", schema: `{"oneOf":[{"type":"object","additionalProperties":false,"properties":{"next":{"type":"string"}}},{"type":"object","additionalProperties":false,"properties":{"previous":{"type":"string"}}}]}`,
		valid: []string{`{"next":"a"}`, `{"previous":"b"}`}, invalid: []string{`{}`, `{"next":"a","previous":"b"}`, `{"x":1}`, `{"next":1}`}},
	{name: "not closed inside closed", schema: `{"type":"object","additionalProperties":false,"properties":{"a":{},"b":{}},"not":{"additionalProperties":false,"properties":{"a":{}}}}`,
		valid: []string{`{"b":1}`, `{"a":1,"b":2}`}, invalid: []string{`{}`, `{"a":1}`, `{"c":1}`}},
	{name: "not not closed", schema: `{"not":{"not":{"type":"object","additionalProperties":false,"properties":{"a":{"type":"integer"}}}}}`,
		valid: []string{`{}`, `{"a":1}`}, invalid: []string{`{"b":1}`, `{"a":1,"b":2}`, `{"a":"x"}`, `1`}},
	{name: "oneOf discriminator", schema: `{"oneOf":[{"properties":{"k":{"const":"a"},"x":{"type":"integer"}},"required":["k"]},{"properties":{"k":{"const":"b"},"x":{"type":"string"}},"required":["k"]}]}`,
		valid: []string{`{"k":"a","x":1}`, `{"k":"b","x":"s"}`}, invalid: []string{`{"k":"a","x":"s"}`, `{"k":"c"}`}},
	{name: "not type", schema: `{"not":{"type":"string"}}`, valid: []string{`1`, `null`}, invalid: []string{`"a"`}},
	{name: "not enum", schema: `{"type":"string","not":{"enum":["a","b"]}}`, valid: []string{`"c"`, `"ab"`, `""`}, invalid: []string{`"a"`, `"b"`}},
	{name: "not pattern", schema: `{"type":"string","not":{"pattern":"x"}}`, valid: []string{`"abc"`}, invalid: []string{`"axc"`}},
	{name: "not required", schema: `{"type":"object","not":{"required":["a"]}}`, valid: []string{`{}`, `{"b":1}`}, invalid: []string{`{"a":1}`}},
	{name: "not multipleOf", schema: `{"type":"integer","not":{"multipleOf":3}}`, valid: []string{`1`, `2`, `-4`}, invalid: []string{`0`, `3`, `-6`}},
	{name: "oneOf untyped alternatives", schema: `{"oneOf":[{"properties":{"k":{"const":1}},"required":["k"]},{"properties":{"k":{"const":2}},"required":["k"]}]}`,
		valid: []string{`{"k":1}`, `{"k":2}`}, invalid: []string{`1`, `"x"`, `{"k":3}`}},
	{name: "not minimum", schema: `{"type":"integer","not":{"minimum":3}}`, valid: []string{`2`, `-5`}, invalid: []string{`3`, `4`}},
	{name: "if then else", schema: `{"type":"integer","if":{"minimum":10},"then":{"multipleOf":2},"else":{"maximum":3}}`, valid: []string{`10`, `12`, `3`}, invalid: []string{`11`, `5`}},
	{name: "if on property", schema: `{"type":"object","properties":{"k":{"enum":["a","b"]},"v":{}},"required":["k","v"],"if":{"properties":{"k":{"const":"a"}}},"then":{"properties":{"v":{"type":"integer"}}},"else":{"properties":{"v":{"type":"string"}}}}`,
		valid: []string{`{"k":"a","v":1}`, `{"k":"b","v":"s"}`}, invalid: []string{`{"k":"a","v":"s"}`, `{"k":"b","v":1}`}},

	// References.
	{name: "ref to defs", schema: `{"$defs":{"pos":{"type":"integer","minimum":1}},"type":"array","items":{"$ref":"#/$defs/pos"}}`, valid: []string{`[1,2]`}, invalid: []string{`[0]`}},
	{name: "ref draft 7 ignores siblings", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s","maxLength":1}}}`, valid: []string{`{"a":"long"}`}, invalid: []string{`{"a":1}`}},
	{name: "ref 2020 keeps siblings", schema: `{"$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s","maxLength":1}}}`, valid: []string{`{"a":"l"}`}, invalid: []string{`{"a":"long"}`}},
	{name: "ref pointer escapes", schema: `{"$defs":{"a/b":{"const":1},"c~d":{"const":2},"e%f":{"const":3}},"prefixItems":[{"$ref":"#/$defs/a~1b"},{"$ref":"#/$defs/c~0d"},{"$ref":"#/$defs/e%25f"}]}`, valid: []string{`[1,2,3]`}, invalid: []string{`[1,2,4]`}},
	{name: "anchor and id", schema: `{"$id":"https://example.com/root.json","$defs":{"x":{"$id":"item.json","type":"integer"},"y":{"$anchor":"why","type":"string"}},"prefixItems":[{"$ref":"item.json"},{"$ref":"#why"},{"$ref":"https://example.com/item.json"}]}`,
		valid: []string{`[1,"a",2]`}, invalid: []string{`["a","a",2]`, `[1,2,2]`}},
	{name: "recursive", schema: `{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"additionalProperties":false}},"$ref":"#/$defs/node"}`,
		valid: []string{`{"v":1,"kids":[{"v":2,"kids":[{}]}]}`}, invalid: []string{`{"kids":[{"v":"x"}]}`, `{"kids":[{"w":1}]}`}},
	{name: "recursive root", schema: `{"type":["array","integer"],"items":{"$ref":"#"}}`, valid: []string{`[1,[2,[3]]]`, `5`}, invalid: []string{`[1,["a"]]`}},

	// Whitespace.
	{name: "flexible whitespace", schema: `{"type":"object","properties":{"a":{"type":"array"}}}`, opts: &jsonschema.Options{},
		valid: []string{`{"a":[1,2]}`, "{\n  \"a\": [\n    1,\n    2\n  ]\n}", `{ "a" : [ ] }`}, invalid: []string{"{\n\n\"a\":[]}", `{"a":[1,2]}` + " ", "{" + strings.Repeat(" ", 41) + "}"}},
	{name: "whitespace pattern", schema: `{"type":"array"}`, opts: &jsonschema.Options{Whitespace: jsonschema.WhitespacePattern, WhitespacePattern: ` ?`},
		valid: []string{`[1, 2]`, `[ 1 ]`}, invalid: []string{`[1,  2]`, "[1,\n2]"}},

	// Options.
	{name: "any order", schema: `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a","b"]}`, opts: &jsonschema.Options{Order: jsonschema.OrderAny, Whitespace: jsonschema.WhitespaceCompact},
		valid: []string{`{"a":1,"b":"x"}`, `{"b":"x","a":1}`, `{"b":"x","c":0,"a":1}`}, invalid: []string{`{"a":1}`, `{"b":"x","a":"1"}`, `{"a":1,"a":2,"b":"x"}`}},
	// OrderAuto, the default: declared properties in any order, each once.
	{name: "auto order", schema: `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"},"c":{"type":"boolean"}},"required":["a"],"additionalProperties":false}`,
		valid:   []string{`{"a":1}`, `{"b":"x","a":1}`, `{"c":true,"a":1,"b":"y"}`, `{"a":1,"c":false}`},
		invalid: []string{`{}`, `{"b":"x"}`, `{"a":1,"a":2}`, `{"b":"x","a":1,"b":"y"}`, `{"c":true,"a":1,"c":true}`, `{"a":1,"d":0}`, `{"b":1,"a":1}`, `{"a":1,}`, `{,"a":1}`}},
	{name: "auto order, undeclared keys anywhere", schema: `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a","b"],"additionalProperties":{"type":"integer"}}`,
		valid:   []string{`{"x":1,"b":"s","y":2,"a":1}`, `{"a":1,"b":"s"}`, `{"b":"s","a":1,"z":3}`},
		invalid: []string{`{"x":"s","a":1,"b":"s"}`, `{"a":1,"x":1}`, `{"a":1,"b":"s","a":2}`, `{"b":"s","a":"1"}`}},
	{name: "auto order, property counts", schema: `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"},"c":{"type":"boolean"}},"minProperties":2,"maxProperties":2,"additionalProperties":false}`,
		valid:   []string{`{"c":true,"a":1}`, `{"b":"x","c":true}`, `{"a":1,"b":"x"}`},
		invalid: []string{`{}`, `{"a":1}`, `{"a":1,"b":"x","c":true}`, `{"c":true,"c":true}`}},
	{name: "auto order, counts with undeclared keys stay declared", schema: `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"minProperties":2}`,
		valid:   []string{`{"a":1,"b":"x"}`, `{"a":1,"z":0}`},
		invalid: []string{`{"b":"x","a":1}`, `{"a":1}`}},
	{name: "auto order above the limit stays declared", schema: manyProps(7),
		valid:   []string{`{"p0":0,"p1":1}`, `{"p5":5,"p6":6}`},
		invalid: []string{`{"p1":1,"p0":0}`}},
	{name: "auto order, a larger limit", schema: manyProps(7), opts: &jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact, Limits: grammar.Limits{AnyOrderProperties: 7}},
		valid:   []string{`{"p1":1,"p0":0}`, `{"p6":6,"p0":0,"p3":3}`},
		invalid: []string{`{"p1":1,"p1":1}`, `{"p7":7}`}},
	{name: "declared order", schema: `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}}}`, opts: &jsonschema.Options{Order: jsonschema.OrderDeclared, Whitespace: jsonschema.WhitespaceCompact},
		valid: []string{`{"a":1,"b":"x"}`, `{"b":"x"}`}, invalid: []string{`{"b":"x","a":1}`}},
	{name: "lenient nullable", schema: `{"type":"string","nullable":true}`, opts: &jsonschema.Options{Lenient: true, Whitespace: jsonschema.WhitespaceCompact}, valid: []string{`"a"`, `null`}},
	{name: "lenient uniqueItems", schema: `{"type":"array","items":{"type":["integer","array"]},"uniqueItems":true}`, opts: &jsonschema.Options{Lenient: true, Whitespace: jsonschema.WhitespaceCompact}, valid: []string{`[1,2]`, `[1,1]`, `[[],[]]`}, invalid: []string{`["a"]`}},
	// Distinct items the matcher enforces (package mask's tests check it):
	// the grammar itself is the array's, and more distinct items than
	// listed values cannot be required.
	{name: "uniqueItems enforced", schema: `{"type":"array","items":{"type":"integer"},"uniqueItems":true}`, valid: []string{`[1,2]`, `[]`}, invalid: []string{`["a"]`}},
	{name: "uniqueItems too few values", schema: `{"type":"object","properties":{"a":{"items":{"enum":["x","y"]},"uniqueItems":true,"minItems":3}}}`, valid: []string{`{}`}, invalid: []string{`{"a":["x","y","x"]}`, `{"a":[]}`}},
}

func manyProps(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","additionalProperties":false,"properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"integer"}`, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

func TestJSONSchemaAccepts(t *testing.T) {
	for _, tc := range schemaCases {
		t.Run(tc.name, func(t *testing.T) {
			opts := jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact}
			if tc.opts != nil {
				opts = *tc.opts
			}
			g, _, err := jsonschema.Compile([]byte(tc.schema), opts)
			require.NoError(t, err)
			require.NoError(t, g.Validate())
			assertLanguage(t, g, tc.valid, tc.invalid)
		})
	}
}

// TestJSONSchemaErrors checks that what cannot be enforced (or is wrong) is
// reported with the JSON pointer of the keyword and the keyword's name.
func TestJSONSchemaErrors(t *testing.T) {
	for _, tc := range []struct {
		schema  string
		pointer string
		keyword string
		cause   error
	}{
		{`{"type":"array","items":{"type":"object","properties":{"a":{}}},"uniqueItems":true}`, "/uniqueItems", "uniqueItems", grammar.ErrUnsupported},
		// A keyword of the wrong kind, per the metaschema, is not passed over.
		{`{"type":"object","required":{"key":"x"}}`, "/required", "required", nil},
		{`{"properties":{"a":{"type":"string","required":true}}}`, "/properties/a/required", "required", nil},
		{`{"type":"string","format":5}`, "/format", "format", nil},
		{`{"type":"array","uniqueItems":"yes"}`, "/uniqueItems", "uniqueItems", nil},
		{`{"$defs":[],"type":"null"}`, "/$defs", "$defs", nil},
		{`{"definitions":3}`, "/definitions", "definitions", nil},
		{`{"if":3}`, "/if", "if", nil},
		{`{"items":{"type":"string","title":["x"]}}`, "/items/title", "title", nil},
		{`{"deprecated":"no"}`, "/deprecated", "deprecated", nil},
		{`{"items":{"type":"object"},"uniqueItems":true}`, "/uniqueItems", "uniqueItems", grammar.ErrUnsupported},
		{`{"items":{"enum":["a",[1]]},"uniqueItems":true}`, "/uniqueItems", "uniqueItems", grammar.ErrUnsupported},
		{`{"items":{"type":"integer","maximum":3},"uniqueItems":true}`, "/uniqueItems", "uniqueItems", grammar.ErrUnsupported},
		{`{"prefixItems":[{"type":"string"},{"type":"boolean"}],"uniqueItems":true,"minItems":2}`, "/uniqueItems", "uniqueItems", grammar.ErrUnsupported},
		{`{"items":{"type":"string"},"contains":{"const":"a"},"uniqueItems":true}`, "/uniqueItems", "uniqueItems", grammar.ErrUnsupported},
		{`{"properties":{"a":{"type":"string","pattern":"(?<=x)"}}}`, "/properties/a/pattern", "pattern", grammar.ErrUnsupported},
		{`{"type":"object","properties":{"a0":{},"a1":{},"a2":{},"a3":{},"a4":{},"a5":{},"a6":{},"a7":{},"a8":{},"a9":{}},"not":{"anyOf":[{"patternProperties":{"a":{"maximum":0}}},{"patternProperties":{"a":{"maximum":1}}},{"patternProperties":{"a":{"maximum":2}}}]}}`, "/not", "not", grammar.ErrLimit},
		{`{"type":"object","not":{"anyOf":[{"additionalProperties":false,"properties":{"a":{}}},{"additionalProperties":false,"properties":{"b":{}}},{"additionalProperties":false,"properties":{"c":{}}},{"additionalProperties":false,"properties":{"d":{}}},{"additionalProperties":false,"properties":{"e":{}}},{"additionalProperties":false,"properties":{"f":{}}}]}}`, "/not/additionalProperties", "additionalProperties", grammar.ErrUnsupported},
		{`{"properties":{"a":{"pattern":"(a)\\1"}}}`, "/properties/a/pattern", "pattern", grammar.ErrUnsupported},
		{`{"items":{"pattern":"a\\bb"}}`, "/items/pattern", "pattern", grammar.ErrUnsupported},
		{`{"$defs":{"x":{"type":"strin"}},"$ref":"#/$defs/x"}`, "/$defs/x/type", "type", nil},
		{`{"$ref":"#/$defs/missing"}`, "/$ref", "$ref", nil},
		{`{"$ref":"http://example.com/other.json"}`, "/$ref", "$ref", grammar.ErrUnsupported},
		{`{"minLength":-1}`, "/minLength", "minLength", nil},
		{`{"properties":{"a":{"type":"object","not":{"anyOf":[{"additionalProperties":false,"properties":{"a":{}}},{"additionalProperties":false,"properties":{"b":{}}},{"additionalProperties":false,"properties":{"c":{}}},{"additionalProperties":false,"properties":{"d":{}}},{"additionalProperties":false,"properties":{"e":{}}},{"additionalProperties":false,"properties":{"f":{}}}]}}}}`, "/properties/a/not/additionalProperties", "additionalProperties", grammar.ErrUnsupported},
		{`{"type":"object","not":{"anyOf":[{"patternProperties":{"a":{"type":"integer"}}},{"patternProperties":{"b":{"type":"integer"}}},{"patternProperties":{"c":{"type":"integer"}}},{"patternProperties":{"d":{"type":"integer"}}},{"patternProperties":{"e":{"type":"integer"}}},{"patternProperties":{"f":{"type":"integer"}}}]}}`, "/not", "not", grammar.ErrUnsupported},
		{`{"type":"object","not":{"properties":{"a":{"uniqueItems":true}}}}`, "/not", "not", grammar.ErrUnsupported},
		{`{"type":"array","prefixItems":[{}],"contains":{"const":1},"allOf":[{"contains":{"const":2}},{"contains":{"const":3}},{"contains":{"const":4}}]}`, "/contains", "contains", grammar.ErrUnsupported},
		{`{"oneOf":[{"type":"array","items":{"type":"object","properties":{"a":{}}},"uniqueItems":true},{"type":"string"}]}`, "/oneOf/0/uniqueItems", "uniqueItems", grammar.ErrUnsupported},
		{`{"oneOf":[{"type":"array","uniqueItems":true},{"type":"array"}]}`, "/oneOf", "oneOf", grammar.ErrUnsupported},
		{`{"enum":[` + strings.Repeat(`1,`, 20000) + `1]}`, "/enum", "enum", grammar.ErrLimit},
		{`{"type":"string","maxLength":100000000}`, "", "", grammar.ErrLimit},
		{`{"anyOf":[{"$ref":"#"}]}`, "", "", grammar.ErrUnsupported},
		{`{"type":"string","minLength":2,"maxLength":1}`, "", "", nil},
		{`[1]`, "", "", nil},
		{`{"a":`, "", "", nil},
	} {
		t.Run(tc.schema[:min(len(tc.schema), 50)], func(t *testing.T) {
			_, _, err := jsonschema.Compile([]byte(tc.schema), jsonschema.Options{})
			require.Error(t, err)
			var e *grammar.Error
			require.True(t, errors.As(err, &e), "%v is a *grammar.Error", err)
			assert.Equal(t, "jsonschema", e.Source)
			if tc.pointer != "" {
				assert.Equal(t, tc.pointer, e.Pointer, "%v", err)
				assert.Contains(t, e.Error(), tc.keyword+": ")
			}
			if tc.cause != nil {
				assert.ErrorIs(t, err, tc.cause)
			}
		})
	}
}

// TestJSONSchemaLenient checks that Lenient mode reports what it ignores.
func TestJSONSchemaLenient(t *testing.T) {
	schema := `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"object","properties":{"a":{}}},"uniqueItems":true},"code":{"format":"mystery","type":"string"}}}`
	_, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
	require.ErrorIs(t, err, grammar.ErrUnsupported)
	g, warns, err := jsonschema.Compile([]byte(schema), jsonschema.Options{Lenient: true})
	require.NoError(t, err)
	require.NotNil(t, g)
	var ptrs []string
	for _, w := range warns {
		ptrs = append(ptrs, w.Pointer)
		assert.NotEmpty(t, w.Keyword)
		assert.Contains(t, w.String(), w.Keyword)
	}
	assert.ElementsMatch(t, []string{"/properties/tags/uniqueItems", "/properties/code/format"}, ptrs)

	// A keyword of the wrong kind is a warning, and passed over.
	g, warns, err = jsonschema.Compile([]byte(`{"type":"object","properties":{"a":{"type":"string","required":true,"title":7}},"required":["a"]}`),
		jsonschema.Options{Lenient: true, Whitespace: jsonschema.WhitespaceCompact})
	require.NoError(t, err)
	ptrs = nil
	for _, w := range warns {
		ptrs = append(ptrs, w.Pointer+" "+w.Keyword)
	}
	assert.ElementsMatch(t, []string{"/properties/a/required required", "/properties/a/title title"}, ptrs)
	assertLanguage(t, g, []string{`{"a":"x"}`}, []string{`{}`, `{"a":1}`})
}

// TestJSONSchemaPatternAnchorsInside: a pattern with ^ or $ inside (not
// only at the ends of its top-level alternatives) is enforced exactly.
func TestJSONSchemaPatternAnchorsInside(t *testing.T) {
	tests := []struct {
		pattern        string
		valid, invalid []string
	}{
		{`(^a|b)c`, []string{`"ac"`, `"xbc"`, `"bcz"`, `"acz"`}, []string{`"xac"`, `"a"`, `""`}},
		{`x(y|$)`, []string{`"x"`, `"axy"`, `"xyz"`, `"ax"`}, []string{`"xa"`, `"y"`}},
		{`(^|,)id(,|$)`, []string{`"id"`, `"a,id"`, `"id,b"`, `"a,id,b"`}, []string{`"aid"`, `"idb"`, `"a,idb"`}},
		{`a^b`, nil, []string{`""`, `"ab"`, `"a^b"`}},
	}
	for _, tt := range tests {
		schema := `{"type":"string","pattern":` + strconv.Quote(tt.pattern) + `}`
		g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
		if len(tt.valid) == 0 {
			assert.ErrorIs(t, err, jsonschema.ErrNoValue, tt.pattern)
			continue
		}
		require.NoError(t, err, tt.pattern)
		assertLanguage(t, g, tt.valid, tt.invalid)
	}
}

// TestJSONSchemaFormatAnnotation: with FormatAnnotation a format, known or
// not, constrains nothing and warns of nothing; by default it is asserted.
func TestJSONSchemaFormatAnnotation(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"day":{"type":"string","format":"date"},"code":{"type":"string","format":"mystery"}}}`)
	opts := jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact, Lenient: true}
	g, warns, err := jsonschema.Compile(schema, opts)
	require.NoError(t, err)
	assert.Len(t, warns, 1, "the unknown format")
	assertLanguage(t, g, []string{`{"day":"2024-02-29"}`}, []string{`{"day":"yesterday"}`, `{"day":"2023-02-29"}`})

	opts.FormatAnnotation = true
	g, warns, err = jsonschema.Compile(schema, opts)
	require.NoError(t, err)
	assert.Empty(t, warns)
	assertLanguage(t, g, []string{`{"day":"yesterday","code":""}`, `{"day":"2023-02-29"}`}, []string{`{"day":1}`})
	ok, err := jsonschema.Validate(schema, []byte(`{"day":"yesterday"}`), opts)
	require.NoError(t, err)
	assert.True(t, ok)
}

// TestJSONSchemaSharing checks that equal subschemas share one rule and that
// annotations do not split them.
func TestJSONSchemaSharing(t *testing.T) {
	schema := `{"type":"object","properties":{
		"a":{"type":"object","properties":{"x":{"type":"string","description":"one"}}},
		"b":{"type":"object","properties":{"x":{"type":"string","description":"two"}}},
		"c":{"$ref":"#/properties/a"}}}`
	g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
	require.NoError(t, err)
	objects := 0
	for _, r := range g.Rules {
		if strings.Contains(r.Body.String(), `\"x\":`) {
			objects++
		}
	}
	assert.Equal(t, 1, objects, "one rule shared by a, b and c:\n%s", g)
}

// TestJSONSchemaLimits checks that schemas that would blow up end in limit
// errors, quickly.
func TestJSONSchemaLimits(t *testing.T) {
	deep := strings.Repeat(`{"items":`, 2000) + `{}` + strings.Repeat(`}`, 2000)
	_, _, err := jsonschema.Compile([]byte(deep), jsonschema.Options{})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	var b strings.Builder
	b.WriteString(`{"allOf":[`)
	for i := range 12 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"anyOf":[{"required":["a%d"]},{"required":["b%d"]}]}`, i, i)
	}
	b.WriteString(`]}`)
	_, _, err = jsonschema.Compile([]byte(b.String()), jsonschema.Options{})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	_, _, err = jsonschema.Compile([]byte(manyProps(50)), jsonschema.Options{Limits: grammar.Limits{Rules: 3}})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	_, _, err = jsonschema.Compile([]byte(`{"enum":[1,2,3]}`), jsonschema.Options{Limits: grammar.Limits{Enum: 2}})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	_, _, err = jsonschema.Compile([]byte(`{"type":"string","pattern":"^a{2000}$"}`), jsonschema.Options{})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	_, _, err = jsonschema.Compile([]byte(`{"maximum":1e100000}`), jsonschema.Options{})
	assert.ErrorIs(t, err, grammar.ErrLimit)

	// Properties in any order cost 2^n rules for n required ones: raising
	// AnyOrderRequired does not let 34 (or 64) of them allocate 2^34 rules.
	for _, n := range []int{7, 34, 64} {
		var req []string
		for i := range n {
			req = append(req, fmt.Sprintf(`"p%d"`, i))
		}
		schema := fmt.Sprintf(`{"type":"object","required":[%s]}`, strings.Join(req, ","))
		_, _, err = jsonschema.Compile([]byte(schema), jsonschema.Options{Order: jsonschema.OrderAny})
		require.ErrorIs(t, err, grammar.ErrLimit)
		assert.Contains(t, err.Error(), "Limits.AnyOrderRequired (6)")
		_, _, err = jsonschema.Compile([]byte(schema), jsonschema.Options{Order: jsonschema.OrderAny, Limits: grammar.Limits{AnyOrderRequired: 64}})
		if n == 7 {
			require.NoError(t, err, "2^7 rules are within Limits.Rules")
			continue
		}
		require.ErrorIs(t, err, grammar.ErrLimit)
		assert.Contains(t, err.Error(), "Limits.Rules")
	}

	_, _, err = jsonschema.Compile([]byte(`{}`), jsonschema.Options{MaxIndent: 1 << 30})
	require.ErrorIs(t, err, grammar.ErrLimit)
	assert.Contains(t, err.Error(), "Limits.Repeat")
}

func FuzzCompile(f *testing.F) {
	for _, tc := range schemaCases {
		f.Add([]byte(tc.schema))
	}
	f.Add([]byte(`{"type":"object","patternProperties":{"^a":{"type":"integer"},"b$":{"type":"string"}},"propertyNames":{"maxLength":3}}`))
	f.Add([]byte(`{"not":{"not":{"items":{"const":1}}}}`))
	// Lookahead patterns take their own parser (lookahead.go).
	f.Add([]byte(`{"type":"string","pattern":"^(?=.*[A-Z])(?!.*(?:ab|c$))(x(?=y)|[^a])+$"}`))
	f.Add([]byte(`{"patternProperties":{"(?!x-)^a":{},"((?=a))":{}}}`))
	f.Fuzz(func(t *testing.T, schema []byte) {
		opts := jsonschema.Options{Limits: grammar.Limits{Rules: 2000, ExprNodes: 1 << 18, Repeat: 1 << 12, Alternatives: 64, Enum: 500}}
		for _, lenient := range []bool{false, true} {
			opts.Lenient = lenient
			g, warnings, err := jsonschema.Compile(schema, opts)
			if err != nil {
				require.Nil(t, g)
				checkSchemaError(t, schema, err)
				continue
			}
			if err := g.Validate(); err != nil {
				t.Fatalf("invalid grammar: %v", err)
			}
			require.LessOrEqual(t, len(g.Rules), opts.Limits.Rules, "%q: more rules than the limit", schema)
			for _, w := range warnings {
				require.True(t, w.Pointer == "" || strings.HasPrefix(w.Pointer, "/"), "%q: warning pointer %q", schema, w.Pointer)
			}
			fuzzcheck.Compiles(t, string(schema), g)
		}
	})
}

// update asks TestJSONSchemaGolden to rewrite the golden files under testdata.
var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestJSONSchemaGolden pins the printed grammar of a few schemas
// (testdata/*.json; go test -update rewrites the goldens), so
// that changes to the shape of the output are seen in review.
func TestJSONSchemaGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			schema, err := os.ReadFile(f)
			require.NoError(t, err)
			g, _, err := jsonschema.Compile(schema, jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
			require.NoError(t, err)
			golden := strings.TrimSuffix(f, ".json") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(g.String()), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), g.String())
		})
	}
}

// assertLanguage checks with the Earley oracle that g accepts every string
// of valid and none of invalid.
func assertLanguage(t *testing.T, g *grammar.Grammar, valid, invalid []string) {
	t.Helper()
	for _, s := range valid {
		ok, err := oracle.Accepts(g, []byte(s))
		require.NoError(t, err)
		assert.True(t, ok, "should accept %s", s)
	}
	for _, s := range invalid {
		ok, err := oracle.Accepts(g, []byte(s))
		require.NoError(t, err)
		assert.False(t, ok, "should reject %s", s)
	}
}
