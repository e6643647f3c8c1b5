package mask_test

import (
	"runtime"
	"testing"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// BenchmarkLogitWidthCopiesHeap reports the heap that ten WithLogitWidth
// copies of GPT-2 keep alive, each with a compiled grammar and one mask
// filled: heap-MiB is the live heap after GC with the copies held, less the
// live heap before they were made, with a freshly loaded GPT-2 each time so
// that whatever the copies build is counted. Copies share their token data,
// so they should share the vocabulary's token index too.
func BenchmarkLogitWidthCopiesHeap(b *testing.B) {
	encJSON, vocabBPE, err := gpt2.Files()
	if err != nil {
		b.Fatal(err)
	}
	g, err := grammar.Choice([]string{"yes", "no"}, grammar.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	var grew uint64
	for i := 0; i < b.N; i++ {
		base, err := tokenizer.LoadGPT2Bytes("gpt2", encJSON, vocabBPE, tokenizer.LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		bm := mask.NewBitmask(1, base.Size())
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var held []*mask.Compiled
		for k := range 10 {
			v, err := base.WithLogitWidth(base.Size() + 64*(i+1) + k)
			if err != nil {
				b.Fatal(err)
			}
			c, err := mask.Compile(g, v, mask.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if err := c.NewMatcher().FillBitmask(bm, 0); err != nil {
				b.Fatal(err)
			}
			held = append(held, c)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(held)
		runtime.KeepAlive(base)
		grew = max(grew, after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc))
	}
	b.ReportMetric(float64(grew)/(1<<20), "heap-MiB")
}
