package structtag_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/structtag"
	"github.com/reinlm/rein/internal/fuzzcheck"
)

// FuzzCompile feeds requests, seeded with every vector of the file, to
// Compile: it never panics, every error is a *grammar.Error of the package
// that names a place, and every grammar is valid and compiles into an
// automaton (grammars with token terminals need a vocabulary, so only
// grammars without them are compiled).
func FuzzCompile(f *testing.F) {
	data, err := os.ReadFile("../../testdata/structural_tag/xgrammar_examples.json")
	require.NoError(f, err)
	var file struct {
		Vectors []struct {
			Request json.RawMessage `json:"request"`
		} `json:"vectors"`
	}
	require.NoError(f, json.Unmarshal(data, &file))
	for _, v := range file.Vectors {
		f.Add(string(v.Request))
	}
	f.Add(nested(structtag.MaxDepth + 1))
	f.Add(`{"elements":[{"excludes":["!"]},{"value":"!"}]}`)
	f.Add(`{"type":"tag","begin":{"token":7},"content":{"type":"any_tokens","max_tokens":3},"end":{"token":"<|eos|>"}}`)
	vocab, err := testVocab()
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, request string) {
		if len(request) > 1<<12 {
			return
		}
		g, err := structtag.Compile([]byte(request), structtag.Options{Limits: fuzzcheck.Limits, TokenID: vocab.TokenID})
		if err != nil {
			require.Nil(t, g)
			var e *grammar.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "structtag", e.Source)
			assert.True(t, e.Pointer != "" || e.Pos.IsValid(), "%v names no place", err)
			return
		}
		require.NoError(t, g.Validate())
		if !hasTokens(g) {
			fuzzcheck.Compiles(t, request, g)
		}
	})
}
