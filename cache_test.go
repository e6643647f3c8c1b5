package rein

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
)

// TestCachedTimeoutExpires: a cached failure with an expiry is served until
// then and leaves at the first look after it; one without stays.
func TestCachedTimeoutExpires(t *testing.T) {
	c := lru{budget: 1 << 20}
	c.put("timeout", result{err: errors.New("took too long"), keep: true, expires: time.Now().Add(time.Hour)})
	c.put("expired", result{err: errors.New("took too long"), keep: true, expires: time.Now().Add(-time.Second)})
	c.put("bad", result{err: errors.New("bad schema"), keep: true})
	require.Equal(t, 3, c.len())
	assert.NotNil(t, c.get("timeout"))
	assert.Nil(t, c.get("expired"))
	assert.NotNil(t, c.get("bad"))
	assert.Equal(t, 2, c.len())
	assert.Equal(t, 2, c.failed)
}

// TestCacheCountsGrowth: adding an entry measures that entry alone, and an
// eviction measures none until the grammars, reporting their growth
// (mask.Options.Growth), have grown by a 64th of the budget; the next one
// measures every entry and starts the growth over. The count never falls
// below the entries' true sizes, and equals them after every entry is
// measured.
func TestCacheCountsGrowth(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	mask.ResetSharedIndex(voc) // nothing classified yet, so every mask grows its grammar
	c := lru{budget: 64 << 20}
	truth := func() (n int64) {
		for e := c.head.next; e != &c.head; e = e.next {
			n += int64(e.res.compiled.MemoryBytes() + len(e.key))
		}
		return n
	}
	bm := mask.NewBitmask(1, voc.Size())
	for i := range 8 {
		g, _, err := jsonschema.Compile([]byte(fmt.Sprintf(`{"type":"object","properties":{"k%d":{"type":"string","enum":["v%da","w%db"]}},"required":["k%d"]}`, i, i, i, i)), jsonschema.Options{})
		require.NoError(t, err)
		compiled, err := mask.Compile(g, voc, mask.Options{Growth: &c.grown})
		require.NoError(t, err)
		before := c.measures
		c.put(fmt.Sprint(i), result{compiled: compiled})
		assert.Zero(t, c.evict())
		assert.Equal(t, before+1, c.measures, "entry %d: only the new entry measured", i)
		// A matcher classifies the grammar's first nodes: it grows.
		grown := c.grown.Load()
		m := compiled.NewMatcher()
		require.NoError(t, m.FillBitmask(bm, 0))
		require.True(t, m.AcceptString(`{"k`))
		require.NoError(t, m.FillBitmask(bm, 0))
		assert.Greater(t, c.grown.Load(), grown, "entry %d: growth reported", i)
		assert.GreaterOrEqual(t, c.bytes(), truth(), "entry %d: never under-counted", i)
	}
	// Growth past a 64th of the budget: the next eviction measures every
	// entry, the one just added among them.
	compiled, err := mask.Compile(grammar.JSON(), voc, mask.Options{Growth: &c.grown})
	require.NoError(t, err)
	c.put("json", result{compiled: compiled})
	c.budget = 32 * c.grown.Load()
	before := c.measures
	c.evict()
	assert.Equal(t, before+9, c.measures, "every entry measured")
	assert.Zero(t, c.grown.Load())
	assert.Equal(t, truth(), c.bytes(), "exact once measured")
}

// TestEvictEmpty: an eviction before anything was added (Compiler.Stats on a
// new Compiler, with shared classifications past the budget) drops nothing.
func TestEvictEmpty(t *testing.T) {
	c := lru{budget: 1 << 10, shared: func() (int64, int64) { return 0, 1 << 20 }}
	assert.Zero(t, c.evict())
	assert.Zero(t, c.len())
	assert.Zero(t, c.bytes())
}
