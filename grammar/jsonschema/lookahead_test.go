package jsonschema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/pda"
)

// TestLookaheadPatterns compiles patterns with lookaheads and checks the
// grammar against regexp2's ECMAScript engine, which runs lookaheads by
// backtracking, on every string of up to 5 characters over an alphabet that
// exercises each pattern.
func TestLookaheadPatterns(t *testing.T) {
	for _, tc := range []struct{ pattern, alphabet string }{
		{`^(?=.*[A-Z])(?=.*\d)[A-Za-z\d]{3,}$`, "aB1_"},
		{`^(?!ab)`, "ab"},
		{`^(?!.*ab)`, "abc"},
		{`a(?=b)`, "abc"},
		{`a(?!b)`, "abc"},
		{`(?=ab)a`, "abc"},
		{`^(?=a)(?:ab|ac)$`, "abc"},
		{`^(?:(?=a)a|b)c$`, "abc"},
		{`x(?=y$)`, "xyz"},
		{`^(?!0)\d+$`, "012"},
		{`^(?=[^@]*@)[a-z@.]+$`, "a@."},
		{`(?=a|bc)[a-c]{2}`, "abc"},
		{`^(?=.{2,3}$)(?!.*aa).*$`, "ab"},
		{`^(?!(?:ab|ba)$)[ab]*$`, "ab"},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			schema, _ := json.Marshal(map[string]any{"type": "string", "pattern": tc.pattern})
			g, _, err := jsonschema.Compile(schema, jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
			require.NoError(t, err)
			p, err := pda.Compile(g, grammar.Limits{})
			require.NoError(t, err)
			ref := regexp2.MustCompile(tc.pattern, regexp2.ECMAScript)
			var walk func(s string)
			walk = func(s string) {
				want, err := ref.MatchString(s)
				require.NoError(t, err)
				doc, _ := json.Marshal(s)
				st := pda.NewState(p)
				got := st.AdvanceBytes(doc) && st.CanEnd()
				require.Equal(t, want, got, "%q", s)
				if utf8.RuneCountInString(s) < 5 {
					for _, r := range tc.alphabet {
						walk(s + string(r))
					}
				}
			}
			walk("")
		})
	}
}

// TestLookaheadRefused checks the lookarounds that stay refused, each with
// its reason.
func TestLookaheadRefused(t *testing.T) {
	for pattern, reason := range map[string]string{
		`^(?:(?!ab).)*$`: "a lookahead inside a repeated group",
		`(?=a)*b`:        "a repeated lookahead",
		`(?<=a)b`:        "lookbehind",
		`(?=a)(a)\1`:     "backreferences",
		`a(?=b)^c`:       "^ inside a pattern with a lookahead",
	} {
		schema := fmt.Sprintf(`{"type":"string","pattern":%q}`, pattern)
		_, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
		require.Error(t, err, pattern)
		require.ErrorContains(t, err, reason, pattern)
		require.True(t, errors.Is(err, grammar.ErrUnsupported), "%s: %v", pattern, err)
	}
}

// TestLookaheadPatternProperties matches property names against a pattern
// with a lookahead.
func TestLookaheadPatternProperties(t *testing.T) {
	schema := `{"type":"object","patternProperties":{"^(?!x-)[a-z-]+$":{"type":"integer"}},"additionalProperties":false}`
	g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
	require.NoError(t, err)
	p, err := pda.Compile(g, grammar.Limits{})
	require.NoError(t, err)
	for doc, want := range map[string]bool{
		`{"ab":1}`: true, `{"x-a":1}`: false, `{"a-x":1}`: true, `{"x":1}`: true, `{"ab":"s"}`: false,
	} {
		st := pda.NewState(p)
		require.Equal(t, want, st.AdvanceBytes([]byte(doc)) && st.CanEnd(), doc)
	}
}
