package maskbench_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/maskbench"
	"github.com/reinlm/rein/internal/vocabtest"
)

// TestJumpForwardCanonical decodes the valid instances of every 10th
// MaskBench schema with jump-forward, as a model that wants each document:
// every token of every final sequence must be a token of the Encoder's own
// encoding, and on compact JSON jump-forward must deliver at least 12% of
// the tokens (a floor on behaviour, not a timing).
func TestJumpForwardCanonical(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	set := datadir.MaskBench(t)
	tests := []struct {
		name     string
		ws       jsonschema.Whitespace
		every    int
		minShare float64
	}{
		{"compact", jsonschema.WhitespaceCompact, 10, 0.12},
		{"flexible", jsonschema.WhitespaceFlexible, 100, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := maskbench.RunJumpForward(maskbench.Options{Dir: set.Dir, Vocab: voc, Every: set.Stride(tt.every), Schema: jsonschema.Options{Whitespace: tt.ws}})
			require.NoError(t, err)
			docs, tokens, jumped, nonCanonical := 0, 0, 0, 0
			for _, s := range rep.Schemas {
				assert.Empty(t, s.Failure, s.File)
				docs += s.Docs
				tokens += s.Tokens
				jumped += s.Jumped
				nonCanonical += s.NonCanonical
				assert.LessOrEqual(t, s.Tokens-s.ModelSteps, s.Jumped, s.File)
			}
			t.Log(rep.Summary())
			require.Greater(t, docs, 100)
			assert.Zero(t, nonCanonical, "non-canonical tokens")
			assert.GreaterOrEqual(t, float64(jumped)/float64(tokens), tt.minShare)
		})
	}
}
