package structtag

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
)

// TestStrictSchemaRepeatedKeys: strict mode reads a key written twice as
// the JSON Schema front-end compiles it, by its last value, in objects of
// few keys and of many (indexed).
func TestStrictSchemaRepeatedKeys(t *testing.T) {
	many := `"a":{},"b":{},"c":{},"d":{},"e":{},"f":{},"g":{},"h":{},"i":{},`
	tests := []struct{ name, in, want string }{
		{"tuple last", `{"items":{"type":"integer"},"items":[{"type":"string"}]}`,
			`{"items":{"type":"integer"},"items":[{"type":"string"}],"additionalItems":false}`},
		{"tuple first", `{"items":[{"type":"string"}],"items":{"type":"integer"}}`,
			`{"items":[{"type":"string"}],"items":{"type":"integer"}}`},
		{"tuple last, many keys", `{` + many + `"items":{"type":"integer"},"items":[{"type":"string"}]}`,
			`{` + many + `"items":{"type":"integer"},"items":[{"type":"string"}],"additionalItems":false}`},
		{"the last subschemas only", `{"anyOf":[{"properties":{"a":{}}}],"anyOf":[{"properties":{"b":{}}}]}`,
			`{"anyOf":[{"properties":{"a":{}}}],"anyOf":[{"properties":{"b":{}}}],"unevaluatedProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := parseJSON([]byte(tt.in), grammar.Limits{}.WithDefaults())
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(strictSchema([]byte(tt.in), v, true)))
		})
	}
}

// TestPrefixSet: the strings a text starts with, shortest first, told
// apart from others of their length, with the empty string and texts
// shorter than every string.
func TestPrefixSet(t *testing.T) {
	s := newPrefixSet([]string{"<a", "<ab", "", "<b", "<abc", "x"})
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"<abc>", []string{"", "<a", "<ab", "<abc"}},
		{"<ac", []string{"", "<a"}},
		{"<b>", []string{"", "<b"}},
		{"<", []string{""}},
		{"", []string{""}},
		{"y", []string{""}},
	} {
		assert.Equal(t, tc.want, s.prefixesOf(tc.text, nil), tc.text)
	}
	assert.Empty(t, newPrefixSet([]string{"ab"}).prefixesOf("a", nil))
}
