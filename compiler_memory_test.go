package rein_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// TestCompilerMemoryBounded compiles 5,000 distinct schemas (500 under the
// race detector or -short) through one Compiler with a 64 MiB budget, filling
// masks along a document of each so that their token indexes grow, and
// checks at every 500th schema that:
//   - what the Compiler counts (its entries, plus the classifications its
//     grammars share, counted once) stays within the budget;
//   - the live heap after a collection (HeapAlloc) stays within what the
//     process held before the first schema, plus the budget, plus 16 MiB for
//     what is not counted (scratch, the last schemas' matchers);
//   - the heap's spans in use (HeapInuse, what the process keeps resident
//     for the heap) stay within the live bound plus the budget again: the
//     churn of 5,000 grammars of mixed sizes fragments spans, which Go does
//     not compact.
func TestCompilerMemoryBounded(t *testing.T) {
	const budget = 64 << 20
	n := 5000
	if race.Enabled || testing.Short() {
		n = 500
	}
	// A vocabulary of its own, loaded anew: nothing shared yet. (Copies
	// WithLogitWidth makes share their original's classifications.)
	encJSON, vocabBPE, err := gpt2.Files()
	require.NoError(t, err)
	voc, err := tokenizer.LoadGPT2Bytes("gpt2", encJSON, vocabBPE, tokenizer.LoadOptions{})
	require.NoError(t, err)
	c, err := rein.NewCompiler(voc, rein.CompilerOptions{CacheBytes: budget, Workers: 1})
	require.NoError(t, err)
	bm := mask.NewBitmask(1, voc.Size())

	heap := func() (live, inuse uint64) {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc, ms.HeapInuse
	}
	before, _ := heap()
	var peakLive, peakInuse uint64
	for i := 0; i < n; i++ {
		schema := fmt.Sprintf(`{"type":"object","properties":{"k%d":{"type":"string","enum":["v%da","w%db"]},"n%d":{"type":"integer","maximum":%d},"s":{"type":"string","maxLength":%d}},"required":["k%d","n%d","s"],"additionalProperties":false}`,
			i, i, i, i, 100+i, 4+i%16, i, i)
		g, err := c.Compile(context.Background(), rein.JSONSchema(schema))
		require.NoError(t, err, schema)
		m := g.NewMatcher()
		for _, piece := range []string{`{"k`, fmt.Sprint(i), `":"v`, fmt.Sprint(i), `a","n`, fmt.Sprint(i), `":`, "7", `,"s":"`, "ab", `"}`} {
			require.NoError(t, m.FillBitmask(bm, 0))
			require.True(t, m.AcceptString(piece), "%s: %q", schema, piece)
		}
		require.True(t, m.CanEnd())
		if (i+1)%500 == 0 {
			st := c.Stats()
			assert.LessOrEqual(t, st.Bytes+st.SharedBytes, int64(budget), "after %d schemas: counted bytes", i+1)
			live, inuse := heap()
			peakLive, peakInuse = max(peakLive, live), max(peakInuse, inuse)
			t.Logf("after %5d schemas: %d cached, %.1f MiB counted (%.1f MiB shared), live heap %.1f MiB (%.1f before), heap in use %.1f MiB, evictions %d",
				i+1, st.Entries, mib(st.Bytes+st.SharedBytes), mib(st.SharedBytes), mib(live), mib(before), mib(inuse), st.Evictions)
		}
	}
	st := c.Stats()
	assert.Equal(t, int64(n), st.Compiles, "every schema is distinct")
	liveBound := before + budget + 16<<20
	assert.Less(t, peakLive, liveBound, "live heap peak %.1f MiB", mib(peakLive))
	assert.Less(t, peakInuse, liveBound+budget, "heap in use peak %.1f MiB", mib(peakInuse))
}

func mib[T int64 | uint64](n T) float64 { return float64(n) / (1 << 20) }
