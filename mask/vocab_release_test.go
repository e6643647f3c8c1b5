package mask

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
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
			c, err := Compile(g, v, Options{})
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
		g, _, err := jsonschema.Compile(schema, jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
		require.NoError(t, err)
		c, err := Compile(g, v, Options{})
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

// TestSharedCacheCountsWhatItHolds: the shared cache counts exactly the
// classifications it holds; past its budget, and for failures, a
// classification stays private and changes nothing.
func TestSharedCacheCountsWhatItHolds(t *testing.T) {
	var c indexCache
	x := &nodeIndex{accepted: make([]int32, 100)}
	size := len("a") + x.sizeBytes() + sharedEntryBytes
	c.budget.Store(int64(2*size + size/2))
	for _, k := range []string{"a", "b"} {
		got, shared := c.put([]byte(k), &nodeIndex{accepted: make([]int32, 100)})
		require.True(t, shared, k)
		require.NotNil(t, got)
	}
	first := c.get([]byte("a"), true)
	again, shared := c.put([]byte("a"), x)
	assert.True(t, shared)
	assert.Same(t, first, again, "the classification shared first is kept")
	got, shared := c.put([]byte("c"), x)
	assert.False(t, shared, "past the budget a classification stays private")
	assert.Same(t, x, got)
	_, shared = c.put([]byte("d"), &nodeIndex{err: errors.New("limit")})
	assert.False(t, shared, "a failed classification is never shared")
	assert.Len(t, c.m, 2)
	assert.Equal(t, 2*size, c.bytes)
}
