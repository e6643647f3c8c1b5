package mask_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

// realDocuments returns up to n valid object instances (json.gbnf's root is
// an object) from the MaskBench data,
// serialized compactly in document order and tokenized with voc's encoder.
func realDocuments(tb testing.TB, voc *tokenizer.Vocab, n int) [][]int {
	set := datadir.MaskBench(tb)
	files, err := filepath.Glob(filepath.Join(set.Dir, "*.json"))
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(files)
	enc, err := voc.Encoder()
	if err != nil {
		tb.Fatal(err)
	}
	var docs [][]int
	for i := 0; i < len(files) && len(docs) < n; i += set.Stride(7) {
		raw, err := os.ReadFile(files[i])
		if err != nil {
			tb.Fatal(err)
		}
		for _, tc := range gjson.GetBytes(raw, "tests").Array() {
			if !tc.Get("valid").Bool() {
				continue
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, []byte(tc.Get("data").Raw)); err != nil || buf.Len() > 4000 || buf.Bytes()[0] != '{' {
				continue
			}
			docs = append(docs, enc.Encode(buf.String()))
			break
		}
	}
	return docs
}

func percentile(d []time.Duration, p float64) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[int(p*float64(len(s)-1))].Nanoseconds()) / 1e3
}

// BenchmarkJSONGBNFMask times FillBitmask along real JSON documents fed token
// by token through json.gbnf on the Llama-3 vocabulary, one thread. The first
// pass builds the lazy token index (its percentiles are reported as cold-*);
// the timed passes run on the warm index.
func BenchmarkJSONGBNFMask(b *testing.B) {
	voc := vocabtest.Load(b, "llama3")
	c, err := mask.Compile(loadGBNF(b, "json.gbnf"), voc)
	if err != nil {
		b.Fatal(err)
	}
	docs := realDocuments(b, voc, 200)
	bm := mask.NewBitmask(1, voc.Size())
	m := c.NewMatcher()
	pass := func(times []time.Duration) []time.Duration {
		for _, doc := range docs {
			m.Reset()
			for _, id := range doc {
				t0 := time.Now()
				if err := m.FillBitmask(bm, 0); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t0))
				if !bm.Allowed(0, id) || !m.AcceptToken(id) {
					b.Fatalf("token %d %q refused", id, voc.Bytes(id))
				}
			}
		}
		return times
	}
	cold := pass(nil)
	times := make([]time.Duration, 0, len(cold)*b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		times = pass(times)
	}
	b.StopTimer()
	b.ReportMetric(float64(len(cold)), "masks/pass")
	b.ReportMetric(percentile(times, 0.5), "p50-us")
	b.ReportMetric(percentile(times, 0.99), "p99-us")
	b.ReportMetric(percentile(cold, 0.5), "cold-p50-us")
	b.ReportMetric(percentile(cold, 0.99), "cold-p99-us")
	b.ReportMetric(float64(c.MemoryBytes())/(1<<20), "grammar-MiB")
}

// BenchmarkJSONGBNFCompile times compiling json.gbnf for the Llama-3
// vocabulary plus its first mask (the vocabulary's sorted index is built
// once per process, like loading the tokenizer, and not counted).
func BenchmarkJSONGBNFCompile(b *testing.B) {
	voc := vocabtest.Load(b, "llama3")
	g := loadGBNF(b, "json.gbnf")
	if _, err := mask.Compile(g, voc); err != nil { // builds the vocabulary index
		b.Fatal(err)
	}
	bm := mask.NewBitmask(1, voc.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := mask.Compile(g, voc)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.NewMatcher().FillBitmask(bm, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1e3, "ms/compile+mask")
}

// BenchmarkAcceptToken times AcceptToken along the same documents.
func BenchmarkAcceptToken(b *testing.B) {
	voc := vocabtest.Load(b, "llama3")
	c, err := mask.Compile(loadGBNF(b, "json.gbnf"), voc)
	if err != nil {
		b.Fatal(err)
	}
	docs := realDocuments(b, voc, 200)
	m := c.NewMatcher()
	n := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, doc := range docs {
			m.Reset()
			for _, id := range doc {
				if !m.AcceptToken(id) {
					b.Fatal("refused")
				}
				n++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/token")
}
