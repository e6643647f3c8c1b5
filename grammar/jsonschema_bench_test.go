package grammar_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/datadir"
)

// BenchmarkFromJSONSchema compiles every 10th MaskBench schema and reports
// the per-schema compile time percentiles (front-end only, no automata).
func BenchmarkFromJSONSchema(b *testing.B) {
	set := datadir.MaskBench(b)
	files, err := filepath.Glob(filepath.Join(set.Dir, "*.json"))
	if err != nil {
		b.Fatal(err)
	}
	sort.Strings(files)
	var schemas [][]byte
	for i := 0; i < len(files); i += set.Stride(10) {
		data, err := os.ReadFile(files[i])
		if err != nil {
			b.Fatal(err)
		}
		var f struct{ Schema json.RawMessage }
		if err := json.Unmarshal(data, &f); err != nil {
			b.Fatal(err)
		}
		schemas = append(schemas, f.Schema)
	}
	var times []time.Duration
	b.ResetTimer()
	for b.Loop() {
		for _, s := range schemas {
			start := time.Now()
			_, _, _ = grammar.FromJSONSchema(s, grammar.SchemaOptions{})
			times = append(times, time.Since(start))
		}
	}
	slices.Sort(times)
	pct := func(p float64) float64 { return float64(times[int(p*float64(len(times)-1))].Microseconds()) }
	b.ReportMetric(pct(0.5), "p50-us")
	b.ReportMetric(pct(0.99), "p99-us")
	b.ReportMetric(0, "ns/op")
}
