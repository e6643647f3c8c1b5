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
// the background once it is Ready, that WarmWorkers 0 (the default) and
// below turns that off, and
// that the warming goroutine goes away once there is nothing left to warm.
func TestCompilerWarms(t *testing.T) {
	voc := vocabtest.Core(t)
	const schema = `{"type":"object","properties":{"id":{"type":"integer"},"label":{"type":"string","maxLength":12},"kind":{"enum":["a","b","c"]}}}`
	for _, workers := range []int{1, 0} {
		mask.ResetSharedIndex(voc)
		c, err := NewCompiler(voc, CompilerOptions{WarmWorkers: workers, PrepareWork: -1})
		require.NoError(t, err)
		g, err := c.Compile(context.Background(), JSONSchema(schema))
		require.NoError(t, err)
		if workers <= 0 {
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

// TestCompilerPrepares checks that a compile classifies nodes before it is
// Ready, nearest to the start first, until PrepareWork steps of work are
// spent, then the first position of every object's key: the node that
// crosses the bound is the last but those, so a bound of one step
// classifies exactly two nodes (the first, and the object's key), and a
// large bound every node.
func TestCompilerPrepares(t *testing.T) {
	voc := vocabtest.Core(t)
	const schema = `{"type":"object","properties":{"id":{"type":"integer"},"label":{"type":"string","maxLength":12}}}`
	for _, tc := range []struct {
		work     int64
		nodes    int64 // -1: all of them
		finished bool
	}{
		{work: -1, nodes: 0},
		{work: 1, nodes: 2},
		{work: 1 << 40, nodes: -1, finished: true},
	} {
		mask.ResetSharedIndex(voc) // so that each node is classified, not found shared
		c, err := NewCompiler(voc, CompilerOptions{WarmWorkers: -1, PrepareWork: tc.work})
		require.NoError(t, err)
		g, err := c.Compile(context.Background(), JSONSchema(schema))
		require.NoError(t, err)
		st := g.IndexStats()
		if tc.nodes >= 0 {
			assert.Equal(t, tc.nodes, st.Warmed, "PrepareWork %d", tc.work)
		}
		assert.Equal(t, tc.finished, !g.WarmNext(), "PrepareWork %d: every node classified", tc.work)
		assert.Zero(t, st.Classified, "no mask has run")
	}
}
