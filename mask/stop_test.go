package mask_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
)

// TestStopReasonsAndRejections: MustEnd and StopReason through a sequence,
// and the byte at which a token or text is refused.
func TestStopReasonsAndRejections(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	id := func(s string) int { return tokenIDOf(t, voc, s) }
	g, err := grammar.FromRegex(`(yes|no), [0-9]{1,2}`, grammar.Limits{})
	require.NoError(t, err)
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	m := c.NewMatcher()

	assert.Equal(t, mask.NotStopped, m.StopReason())
	require.NoError(t, m.Accept(id("yes")))

	// A token refused at its second byte: ',' fits, '"' does not.
	err = m.Accept(id(",\""))
	var rej *mask.RejectError
	require.True(t, errors.As(err, &rej), "%v", err)
	assert.ErrorIs(t, err, mask.ErrRejected)
	assert.Equal(t, 1, rej.Offset)
	assert.Equal(t, id(",\""), rej.Token)
	assert.Equal(t, 1, m.NumTokens(), "a refused token leaves the matcher as it was")

	// Text refused at its fourth byte: ", 4" fits, "x" does not.
	err = m.AcceptText(", 4x")
	require.True(t, errors.As(err, &rej), "%v", err)
	assert.Equal(t, -1, rej.Token)
	assert.Equal(t, 3, rej.Offset)
	assert.Contains(t, err.Error(), "refused at byte 3")
	assert.Equal(t, 1, m.NumTokens())

	require.NoError(t, m.AcceptText(", 4"))
	assert.Equal(t, 2, m.NumTokens(), "accepted text is one step")
	assert.True(t, m.CanEnd())
	assert.False(t, m.MustEnd(), "a second digit may come")
	assert.Equal(t, mask.NotStopped, m.StopReason())

	require.NoError(t, m.AcceptText("2"))
	assert.True(t, m.MustEnd())
	assert.Equal(t, mask.MustStop, m.StopReason())
	err = m.Accept(id("3"))
	require.True(t, errors.As(err, &rej))
	assert.Equal(t, 0, rej.Offset)

	require.NoError(t, m.Accept(voc.StopTokens()[0]))
	assert.Equal(t, mask.StoppedByToken, m.StopReason())
	assert.False(t, m.MustEnd())
	assert.ErrorIs(t, m.AcceptText("x"), mask.ErrTerminated)

	// Rolling back the stop token goes back to "must stop".
	require.NoError(t, m.Rollback(1))
	assert.Equal(t, mask.MustStop, m.StopReason())

	var zero *mask.Matcher
	assert.ErrorIs(t, zero.AcceptText("x"), mask.ErrMatcher)
}
