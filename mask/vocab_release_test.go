package mask

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

func countVocabIndexes() int { return vocabIndexes.Len() }

// TestVocabIndexReleased: a vocabulary's index and shared classifications
// are dropped once nothing holds the vocabulary. Ten WithLogitWidth copies
// of GPT-2, each with a grammar and a mask, used to stay in memory for good.
func TestVocabIndexReleased(t *testing.T) {
	base, err := gpt2.Vocab()
	require.NoError(t, err)
	g, err := grammar.Choice([]string{"yes", "no"})
	require.NoError(t, err)
	before := countVocabIndexes()
	func() {
		bm := NewBitmask(1, base.Size())
		var held []*Compiled
		for i := 0; i < 10; i++ {
			v, err := base.WithLogitWidth(base.Size() + 64 + i)
			require.NoError(t, err)
			c, err := Compile(g, v)
			require.NoError(t, err)
			require.NoError(t, c.NewMatcher().FillBitmask(bm, 0))
			held = append(held, c)
		}
		runtime.GC()
		assert.Equal(t, before+10, countVocabIndexes(), "held grammars keep their vocabularies' indexes")
		runtime.KeepAlive(held)
	}()
	for i := 0; i < 100 && countVocabIndexes() > before; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
	}
	assert.Equal(t, before, countVocabIndexes(), "indexes of unreachable vocabularies are dropped")
}

// TestSharedClassificationsChargedOnce: a second grammar that meets the same
// nodes reuses the shared classifications; the vocabulary's shared bytes do
// not grow and the grammar is not charged for them.
func TestSharedClassificationsChargedOnce(t *testing.T) {
	base, err := gpt2.Vocab()
	require.NoError(t, err)
	v, err := base.WithLogitWidth(base.Size() + 1) // a vocabulary of its own
	require.NoError(t, err)
	schema := []byte(`{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer"}},"required":["name","n"]}`)
	run := func() *Compiled {
		g, _, err := grammar.FromJSONSchema(schema, grammar.SchemaOptions{Whitespace: grammar.WhitespaceCompact})
		require.NoError(t, err)
		c, err := Compile(g, v)
		require.NoError(t, err)
		m := c.NewMatcher()
		bm := NewBitmask(1, v.Size())
		for _, s := range []string{`{"name":"`, `abc`, `","n":`, `12`, `}`} {
			require.NoError(t, m.FillBitmask(bm, 0))
			require.True(t, m.AcceptString(s), s)
		}
		return c
	}
	first := run()
	shared := SharedIndexBytes(v)
	require.Positive(t, shared)
	second := run()
	assert.Equal(t, shared, SharedIndexBytes(v), "the second grammar adds nothing shared")
	assert.Equal(t, first.MemoryBytes(), second.MemoryBytes())
	assert.Less(t, second.MemoryBytes()-second.prog.MemoryBytes(), shared, "shared bytes are not charged to the grammar")
	ResetSharedIndex(v)
	assert.Zero(t, SharedIndexBytes(v))
}

// TestSharedCacheCountsWhatItHolds: classifications that are collected and
// then shared again under the same shape (put may run before the old one's
// cleanup) leave the count exact: once all are collected it is zero.
func TestSharedCacheCountsWhatItHolds(t *testing.T) {
	var c indexCache
	c.budget.Store(1 << 20)
	for i := 0; i < 50; i++ {
		x := &nodeIndex{accepted: make([]int32, 10+i)}
		got, shared := c.put([]byte("shape"), x)
		require.True(t, shared)
		require.Same(t, x, got)
		runtime.GC() // x is collected; its cleanup may run before or after the next put
	}
	failed := &nodeIndex{err: errors.New("limit")}
	_, shared := c.put([]byte("failed"), failed)
	assert.False(t, shared, "a failed classification is never shared")
	for i := 0; i < 100; i++ {
		runtime.GC()
		c.mu.Lock()
		n := len(c.m)
		c.mu.Unlock()
		if n == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	assert.Empty(t, c.m)
	assert.Zero(t, c.bytes)
}
