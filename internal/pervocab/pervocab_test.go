package pervocab

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// TestDroppedWithTheVocabulary: a value is built once per vocabulary, and
// leaves the cache once its vocabulary is unreachable.
func TestDroppedWithTheVocabulary(t *testing.T) {
	base, err := gpt2.Vocab()
	require.NoError(t, err)
	var c Cache[int]
	builds := 0
	build := func(v interface{ Size() int }) *int { builds++; n := v.Size(); return &n }
	func() {
		v, err := base.WithLogitWidth(base.Size() + 1)
		require.NoError(t, err)
		assert.Nil(t, c.Lookup(v))
		a := c.Get(v, func(v *tokenizer.Vocab) *int { return build(v) })
		b := c.Get(v, func(v *tokenizer.Vocab) *int { return build(v) })
		assert.Same(t, a, b)
		assert.Equal(t, 1, builds)
		assert.Equal(t, 1, c.Len())
		runtime.KeepAlive(v)
	}()
	for i := 0; i < 100 && c.Len() > 0; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
	}
	assert.Zero(t, c.Len())
}
