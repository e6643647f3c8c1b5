package maskbench_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/maskbench"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
)

// TestJumpForwardCanonical decodes the valid instances of every 10th
// MaskBench schema with jump-forward, as a model that wants each document:
// every token of every final sequence must be a token of the Encoder's own
// encoding, and on compact JSON jump-forward must deliver at least 12% of
// the tokens (a floor on behaviour, not a timing). A model that writes the
// Encoder's tokens never ends one where forced bytes would merge into it,
// so nothing is rolled back, and append-only steps deliver as much.
func TestJumpForwardCanonical(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	set := datadir.MaskBench(t)
	tests := []struct {
		name       string
		ws         jsonschema.Whitespace
		appendOnly bool
		every      int
		minShare   float64
	}{
		{"compact", jsonschema.WhitespaceCompact, false, 10, 0.12},
		{"compact append-only", jsonschema.WhitespaceCompact, true, 10, 0.12},
		{"flexible", jsonschema.WhitespaceFlexible, false, 100, 0},
		{"flexible append-only", jsonschema.WhitespaceFlexible, true, 100, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := maskbench.RunJumpForward(maskbench.Options{Dir: set.Dir, Vocab: voc, Every: set.Stride(tt.every), Schema: jsonschema.Options{Whitespace: tt.ws, Order: jsonschema.OrderDeclared}, AppendOnly: tt.appendOnly})
			require.NoError(t, err)
			all := sum(t, rep)
			t.Log(rep.Summary())
			require.Greater(t, all.Docs, 100)
			assert.Zero(t, all.NonCanonical, "non-canonical tokens")
			assert.Zero(t, all.RolledBack, "tokens rolled back")
			assert.GreaterOrEqual(t, float64(all.Jumped)/float64(all.Tokens), tt.minShare)
		})
	}
}

// TestJumpForwardLexemes decodes the same documents with a model that
// writes each JSON lexeme apart (`"` alone after a string), so canonical
// steps replace its tokens: the default Forwarder rolls back, the
// append-only one never does, and both deliver a share of the tokens.
func TestJumpForwardLexemes(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	set := datadir.MaskBench(t)
	every := 10
	if race.Enabled {
		every = 40 // the detector slows the encoder tenfold
	}
	shares := map[bool]float64{}
	for _, appendOnly := range []bool{false, true} {
		rep, err := maskbench.RunJumpForward(maskbench.Options{Dir: set.Dir, Vocab: voc, Every: set.Stride(every),
			Schema: jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact, Order: jsonschema.OrderDeclared}, AppendOnly: appendOnly, Lexemes: true})
		require.NoError(t, err)
		all := sum(t, rep)
		t.Log(rep.Summary())
		require.Greater(t, all.Docs, 200)
		if appendOnly {
			assert.Zero(t, all.RolledBack, "tokens rolled back in append-only mode")
		} else {
			assert.Positive(t, all.RolledBack, "canonical steps replace the model's lone quotes")
		}
		shares[appendOnly] = float64(all.Jumped) / float64(all.Tokens)
	}
	assert.Greater(t, shares[true], 0.05)
	assert.Greater(t, shares[false], shares[true], "rolling back delivers more")
}

// sum adds up a report's schemas, checking that none failed.
func sum(t *testing.T, rep *maskbench.JumpReport) maskbench.JumpSchema {
	var all maskbench.JumpSchema
	for _, s := range rep.Schemas {
		assert.Empty(t, s.Failure, s.File)
		assert.LessOrEqual(t, s.Tokens-s.ModelSteps, s.Jumped, s.File)
		all.Docs += s.Docs
		all.Tokens += s.Tokens
		all.Jumped += s.Jumped
		all.ModelSteps += s.ModelSteps
		all.RolledBack += s.RolledBack
		all.NonCanonical += s.NonCanonical
	}
	return all
}
