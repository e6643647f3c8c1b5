package jumpforward_test

import (
	"testing"
	"time"

	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/latency"
	"github.com/reinlm/rein/internal/maskbench"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/jumpforward"
	"github.com/reinlm/rein/mask"
)

// benchDoc is one MaskBench document with its grammar, ready to decode.
type benchDoc struct {
	fw  *jumpforward.Forwarder
	m   *mask.Matcher
	doc string
}

// loadBenchDocs compiles every every-th MaskBench schema with compact
// whitespace and returns its valid instances that the grammar accepts.
func loadBenchDocs(tb testing.TB, every int) []benchDoc {
	tb.Helper()
	voc := vocabtest.Load(tb, "llama3")
	set := datadir.MaskBench(tb)
	files, err := maskbench.Files(set.Dir, set.Stride(every))
	if err != nil {
		tb.Fatal(err)
	}
	var out []benchDoc
	for _, f := range files {
		s, err := maskbench.LoadInstances(f, voc, jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact, Order: jsonschema.OrderDeclared})
		if err != nil {
			continue
		}
		fw, err := jumpforward.New(s.Compiled, jumpforward.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		m := s.Compiled.NewMatcher()
		for _, doc := range s.Valid {
			out = append(out, benchDoc{fw, m, doc})
		}
	}
	return out
}

// BenchmarkNext measures Forwarder.Next per decoding step along MaskBench
// documents (every 40th schema, compact JSON, Llama-3), decoded by a model
// that wants each document: p50 and p99 over all steps, the steps where
// nothing is forced included, as they are in an engine.
func BenchmarkNext(b *testing.B) {
	docs := loadBenchDocs(b, 40)
	enc, err := vocabtest.Load(b, "llama3").Encoder()
	if err != nil {
		b.Fatal(err)
	}
	var cold []time.Duration
	for _, d := range docs { // the first pass also warms the Encoder's cache
		if _, err := maskbench.WantDocument(d.fw, d.m, enc, d.doc, &cold); err != nil {
			b.Fatal(err)
		}
	}
	var times []time.Duration
	b.ResetTimer()
	for b.Loop() {
		times = times[:0]
		for _, d := range docs {
			if _, err := maskbench.WantDocument(d.fw, d.m, enc, d.doc, &times); err != nil {
				b.Fatal(err)
			}
		}
	}
	var coldS, warmS latency.Sample
	for _, t := range cold {
		coldS.Add(t)
	}
	for _, t := range times {
		warmS.Add(t)
	}
	coldS.Report(b, "first-pass-")
	warmS.Report(b, "warm-")
	b.ReportMetric(float64(len(times)), "steps")
}
