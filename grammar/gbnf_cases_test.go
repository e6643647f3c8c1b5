package grammar_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/oracle"
)

// llamaCases is llama.cpp's grammar integration cases, exported to JSON.
// Kind "test_grammar" cases hold GBNF; "test_schema" ones hold a JSON Schema.
// Passing strings must be sentences of the grammar; failing ones must not
// (they may be viable prefixes).
type llamaCases struct {
	Cases []struct {
		Kind    string   `json:"kind"`
		Desc    string   `json:"desc"`
		Grammar string   `json:"grammar"`
		Passing []string `json:"passing"`
		Failing []string `json:"failing"`
	} `json:"cases"`
}

// TestGBNFLlamaCases parses every GBNF case of llama.cpp's integration tests
// and checks, with the independent Earley oracle, that the parsed grammar
// accepts the passing strings and rejects the failing ones. None of the cases
// expects a parse error, so every one must parse.
func TestGBNFLlamaCases(t *testing.T) {
	path := datadir.Shared(t, "gbnf", "llama.cpp", "test-grammar-integration.cases.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var file llamaCases
	require.NoError(t, json.Unmarshal(data, &file))

	grammars, checked := 0, 0
	for _, c := range file.Cases {
		if c.Kind != "test_grammar" {
			continue
		}
		grammars++
		t.Run(c.Desc, func(t *testing.T) {
			g, err := grammar.ParseGBNF(c.Grammar, "root", grammar.Limits{})
			require.NoError(t, err, "grammar:\n%s", c.Grammar)
			r, err := oracle.New(g)
			require.NoError(t, err)
			for _, s := range c.Passing {
				checked++
				o := r.Clone()
				o.Feed([]byte(s))
				assert.True(t, o.Complete(), "passing %q should be accepted by\n%s", s, c.Grammar)
			}
			for _, s := range c.Failing {
				checked++
				o := r.Clone()
				o.Feed([]byte(s))
				assert.False(t, o.Complete(), "failing %q should be rejected by\n%s", s, c.Grammar)
			}
		})
	}
	t.Logf("%d GBNF cases, %d strings", grammars, checked)
	require.NotZero(t, grammars)
}
