package mask

import (
	"errors"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

func countTrieIndexes() int { return trieIndexes.Len() }

// freshGPT2 loads GPT-2 anew: a vocabulary, and so a trie, of its own,
// which nothing else in the process holds.
func freshGPT2(t *testing.T) *tokenizer.Vocab {
	enc, bpe, err := gpt2.Files()
	require.NoError(t, err)
	v, err := tokenizer.LoadGPT2Bytes("gpt2", enc, bpe, tokenizer.LoadOptions{})
	require.NoError(t, err)
	return v
}

// TestVocabIndexReleased: the copies WithLogitWidth makes of a vocabulary
// share one token index, and the index and its shared classifications are
// dropped once nothing holds the vocabulary or its copies. Ten
// WithLogitWidth copies of GPT-2, each with a grammar and a mask, used to
// keep ten indexes.
func TestVocabIndexReleased(t *testing.T) {
	// A wide first node (it allows most tokens): its classification is shared.
	g, err := grammar.FromRegex(`[^"]{0,8}`, grammar.Limits{})
	require.NoError(t, err)
	before := countTrieIndexes()
	func() {
		base := freshGPT2(t)
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
		for _, c := range held[1:] {
			require.Same(t, held[0].voc.Trie, c.voc.Trie, "copies share the trie")
			require.Same(t, held[0].voc.shared, c.voc.shared, "copies share the classifications")
		}
		assert.Positive(t, SharedIndexBytes(held[9].Vocab()))
		runtime.GC()
		assert.Equal(t, before+1, countTrieIndexes(), "one index for the vocabulary and its copies")
		runtime.KeepAlive(held)
	}()
	for i := 0; i < 100 && countTrieIndexes() > before; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
	}
	assert.Equal(t, before, countTrieIndexes(), "indexes of unreachable vocabularies are dropped")
}

// TestOrdinaryStopToken: a copy of a vocabulary whose stop token is an
// ordinary token shares the trie, but not the classifications, in which the
// stop token is left out: it is allowed exactly where the grammar can end.
func TestOrdinaryStopToken(t *testing.T) {
	base := freshGPT2(t)
	b, ok := base.TokenID("b")
	require.True(t, ok)
	a, ok := base.TokenID("a")
	require.True(t, ok)
	stop, err := base.WithStopTokens([]int{b})
	require.NoError(t, err)
	g, err := grammar.FromRegex(`a[ab]*`, grammar.Limits{})
	require.NoError(t, err)
	bm := NewBitmask(1, base.Size())
	for _, v := range []*tokenizer.Vocab{base, stop} {
		c, err := Compile(g, v, Options{})
		require.NoError(t, err)
		m := c.NewMatcher()
		require.NoError(t, m.FillBitmask(bm, 0))
		assert.True(t, bm.Allowed(0, a))
		assert.False(t, bm.Allowed(0, b), "b is refused before an a")
		require.True(t, m.AcceptToken(a))
		require.NoError(t, m.FillBitmask(bm, 0))
		assert.True(t, bm.Allowed(0, b), "b is allowed after an a, as a token or to stop")
		require.True(t, m.AcceptToken(b))
		require.NoError(t, m.FillBitmask(bm, 0))
		assert.Equal(t, v == stop, m.IsTerminated(), "b stops generation in %s", v)
	}
	cb, err := Compile(g, base, Options{})
	require.NoError(t, err)
	cs, err := Compile(g, stop, Options{})
	require.NoError(t, err)
	assert.Same(t, cb.voc.Trie, cs.voc.Trie, "same tokens, one trie")
	assert.NotSame(t, cb.voc.shared, cs.voc.shared, "other stop tokens, other classifications")
	// A grammar where the stop token's bytes continue inside the rule: the
	// copy must not allow it there, though the base's classification does.
	g2, err := grammar.FromRegex(`a(bb)+`, grammar.Limits{})
	require.NoError(t, err)
	for _, v := range []*tokenizer.Vocab{base, stop} {
		c, err := Compile(g2, v, Options{})
		require.NoError(t, err)
		m := c.NewMatcher()
		require.True(t, m.AcceptToken(a))
		require.NoError(t, m.FillBitmask(bm, 0))
		assert.Equal(t, v == base, bm.Allowed(0, b), "%s", v)
	}
}

// TestSharedClassificationsChargedOnce: a second grammar that meets the same
// nodes reuses the shared classifications; the vocabulary's shared bytes do
// not grow and the grammar is not charged for them.
func TestSharedClassificationsChargedOnce(t *testing.T) {
	v := freshGPT2(t) // a vocabulary of its own
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
	// With sharing off, the grammar holds every classification itself.
	ResetSharedIndex(v)
	assert.Zero(t, SharedIndexBytes(v))
	SetSharedIndexBudget(v, 0)
	private := run()
	// The difference is the shared classifications, which the vocabulary's
	// count also holds with their keys.
	assert.Less(t, second.MemoryBytes(), private.MemoryBytes(), "shared bytes are not charged to the grammar")
	assert.LessOrEqual(t, private.MemoryBytes()-second.MemoryBytes(), shared)
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

// TestStopTokenCopiesReleased: the classifications of a copy whose stop
// tokens are ordinary tokens belong to that copy, and go with it. A server
// that makes such a copy per request (a request's own stop strings) must
// not keep a cache per copy for the trie's life.
func TestStopTokenCopiesReleased(t *testing.T) {
	base := freshGPT2(t)
	g, _, err := jsonschema.Compile([]byte(`{"type":"object","properties":{"a":{"type":"string"}}}`), jsonschema.Options{})
	require.NoError(t, err)
	var caches []weak.Pointer[indexCache]
	func() {
		bm := NewBitmask(1, base.Size())
		for i := range 20 {
			v, err := base.WithStopTokens([]int{1000 + i})
			require.NoError(t, err)
			c, err := Compile(g, v, Options{})
			require.NoError(t, err)
			require.NoError(t, c.NewMatcher().FillBitmask(bm, 0))
			require.NotSame(t, c.voc.perTrie.shared, c.voc.shared, "a copy with an ordinary stop token has classifications of its own")
			caches = append(caches, weak.Make(c.voc.shared))
		}
	}()
	alive := func() int {
		n := 0
		for _, w := range caches {
			if w.Value() != nil {
				n++
			}
		}
		return n
	}
	for i := 0; i < 100 && alive() > 0; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
	}
	assert.Zero(t, alive(), "the classifications of unreachable copies are dropped")
	runtime.KeepAlive(base)
}
