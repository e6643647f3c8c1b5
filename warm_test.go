package rein

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
)

// TestCompilerWarms checks that a Compiler classifies a grammar's nodes in
// the background once it is Ready, that WarmWorkers < 0 turns that off, and
// that the warming goroutine goes away once there is nothing left to warm.
func TestCompilerWarms(t *testing.T) {
	voc := vocabtest.Core(t)
	const schema = `{"type":"object","properties":{"id":{"type":"integer"},"label":{"type":"string","maxLength":12},"kind":{"enum":["a","b","c"]}}}`
	for _, workers := range []int{0, -1} {
		mask.ResetSharedIndex(voc)
		c, err := NewCompiler(voc, CompilerOptions{WarmWorkers: workers})
		require.NoError(t, err)
		g, err := c.Compile(context.Background(), JSONSchema(schema))
		require.NoError(t, err)
		if workers < 0 {
			assert.Zero(t, g.IndexStats().Warmed)
			c.mu.Lock()
			assert.Zero(t, c.warmer.running)
			c.mu.Unlock()
			continue
		}
		// Warming runs on its own; wait for it to finish every node.
		deadline := time.Now().Add(time.Minute)
		for {
			c.mu.Lock()
			running := c.warmer.running
			c.mu.Unlock()
			if running == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		assert.Positive(t, g.IndexStats().Warmed)
		assert.False(t, g.WarmNext(), "the warming goroutine left with nodes to do")
		c.mu.Lock()
		assert.Zero(t, c.warmer.running)
		assert.Empty(t, c.warmer.queue)
		c.mu.Unlock()
	}
}
