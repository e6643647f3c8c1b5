package jsonschema_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/latency"
)

// BenchmarkCompile compiles every 10th MaskBench schema and reports
// the per-schema compile time percentiles of the schemas that compile
// (front-end only, no automata); schemas that fail are counted and timed
// apart, so a fast refusal never passes for a fast compile.
func BenchmarkCompile(b *testing.B) {
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
	var ok, failed latency.Sample
	b.ResetTimer()
	for b.Loop() {
		for _, s := range schemas {
			start := time.Now()
			_, _, err := jsonschema.Compile(s, jsonschema.Options{})
			if err != nil {
				failed.Add(time.Since(start))
			} else {
				ok.Add(time.Since(start))
			}
		}
	}
	b.StopTimer()
	ok.Report(b, "")
	b.ReportMetric(float64(ok.Len())/float64(b.N), "compiled")
	b.ReportMetric(float64(failed.Len())/float64(b.N), "failed")
	if failed.Len() > 0 {
		b.ReportMetric(float64(failed.Quantile(0.5).Microseconds()), "failed-p50-us")
		b.ReportMetric(float64(failed.Max().Microseconds()), "failed-max-us")
	}
	b.ReportMetric(0, "ns/op")
}
