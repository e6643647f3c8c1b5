package grammar_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/oracle"
)

func TestJSONGrammarShape(t *testing.T) {
	g := grammar.JSON()
	require.NoError(t, g.Validate())
	assert.Equal(t, "root", g.Rules[g.Root].Name)

	byName := map[string]*grammar.Expr{}
	for _, r := range g.Rules {
		byName[r.Name] = r.Body
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	assert.Equal(t, []string{"array", "member", "number", "object", "root", "string", "value", "ws"}, names)

	// Strings, numbers and whitespace are each one rule with no calls, so that
	// the compiler can make each a single automaton.
	for _, n := range []string{"string", "number", "ws"} {
		assert.False(t, hasRef(byName[n]), "rule %s calls another rule", n)
	}
	ws := byName["ws"]
	require.Equal(t, grammar.OpRepeat, ws.Op)
	assert.Equal(t, 0, ws.Min)
	assert.Equal(t, grammar.JSONMaxWhitespace, ws.Max)
	assert.Equal(t, []grammar.RuneRange{{'\t', '\n'}, {'\r', '\r'}, {' ', ' '}}, ws.Subs[0].Ranges)

	// Every call returns a grammar of its own.
	g2 := grammar.JSON()
	assert.Equal(t, g.String(), g2.String())
	g2.Rules[0].Name = "changed"
	assert.Equal(t, "root", grammar.JSON().Rules[grammar.JSON().Root].Name)
}

func hasRef(e *grammar.Expr) bool {
	if e.Op == grammar.OpRef {
		return true
	}
	for _, s := range e.Subs {
		if hasRef(s) {
			return true
		}
	}
	return false
}

func TestJSONGrammarAccepts(t *testing.T) {
	ws20 := strings.Repeat(" ", grammar.JSONMaxWhitespace)
	ws21 := ws20 + " "
	valid := []string{
		`0`, `-0`, `1`, `-1`, `12`, `1.5`, `-1.5e10`, `1E+2`, `1e-2`, `0.0`, `1.0e0`, `123456789012345678901234567890`,
		`""`, `"a"`, `"\""`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\u0041"`, `"\uD83D\uDE00"`, `"é"`, `"日本"`, "\"\U0001F600\"", `"a/b"`, "\"\x7F\"",
		`true`, `false`, `null`,
		`[]`, `[1]`, `[1,2,3]`, `[[]]`, `[[],[[]]]`, `["a",1,true,null,{}]`,
		`{}`, `{"a":1}`, `{"a":1,"b":[true,false]}`, `{"":""}`, `{"a":{"b":{"c":null}}}`,
		` 1`, `1 `, " \t\n\r1\r\n\t ", `[ 1 , 2 ]`, `{ "a" : 1 , "b" : 2 }`, "{\n  \"a\": [\n    1,\n    2\n  ]\n}",
		ws20 + `1` + ws20, `[` + ws20 + `]`, `{` + ws20 + `"a"` + ws20 + `:` + ws20 + `1` + ws20 + `}`,
	}
	invalid := []string{
		``, ` `, `01`, `-`, `+1`, `1.`, `.5`, `1e`, `1e+`, `0x10`, `NaN`, `Infinity`, `-01`, `1.5.5`,
		`"`, `"abc`, `'a'`, `"\a"`, `"\x41"`, `"\u004"`, `"\u004G"`, "\"\x00\"", "\"\n\"", "\"\t\"", "\"\x1F\"",
		`tru`, `True`, `nul`, `nulll`,
		`[`, `]`, `[1,]`, `[,1]`, `[1 2]`, `{`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a":1,}`, `{,}`, `{"a" 1}`, `{1:1}`,
		`1 2`, `[] []`, `{}{}`,
		ws21 + `1`, `1` + ws21, `[` + ws21 + `]`, `{"a":` + ws21 + `1}`, `[1` + ws21 + `]`,
	}
	g := grammar.JSON()
	for _, s := range valid {
		ok, err := oracle.Accepts(g, []byte(s))
		require.NoError(t, err)
		assert.True(t, ok, "should accept %q", s)
		assert.True(t, json.Valid([]byte(s)), "test case %q is not JSON", s)
	}
	for _, s := range invalid {
		ok, err := oracle.Accepts(g, []byte(s))
		require.NoError(t, err)
		assert.False(t, ok, "should reject %q", s)
	}
}

// TestJSONGrammarMaskBench checks the grammar against real JSON documents:
// the instances of the MaskBench schemas, compact and indented. A document is
// accepted exactly when it is valid JSON whose whitespace runs are at most
// JSONMaxWhitespace long.
func TestJSONGrammarMaskBench(t *testing.T) {
	dir := datadir.MaskBench(t).Dir
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	sort.Strings(files)
	const maxDocs, maxLen = 300, 1000
	g := grammar.JSON()
	docs := 0
	for i := 0; i < len(files) && docs < maxDocs; i += len(files)/maxDocs + 1 {
		data, err := os.ReadFile(files[i])
		require.NoError(t, err)
		var file struct {
			Tests []struct {
				Data json.RawMessage `json:"data"`
			} `json:"tests"`
		}
		require.NoError(t, json.Unmarshal(data, &file), files[i])
		for _, tc := range file.Tests {
			var v any
			require.NoError(t, json.Unmarshal(tc.Data, &v))
			compact, err := json.Marshal(v)
			require.NoError(t, err)
			indented, err := json.MarshalIndent(v, "", "  ")
			require.NoError(t, err)
			for _, doc := range [][]byte{compact, indented} {
				if len(doc) > maxLen {
					continue
				}
				ok, err := oracle.Accepts(g, doc)
				require.NoError(t, err)
				assert.Equal(t, longestWhitespace(doc) <= grammar.JSONMaxWhitespace, ok, "%s: %s", filepath.Base(files[i]), doc)
				docs++
			}
		}
	}
	t.Logf("%d documents", docs)
}

// longestWhitespace returns the longest run of JSON whitespace outside strings.
func longestWhitespace(doc []byte) int {
	longest, run, inString, escaped := 0, 0, false, false
	for _, c := range doc {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			run++
			longest = max(longest, run)
			continue
		case c == '"':
			inString = true
		}
		run = 0
	}
	return longest
}
