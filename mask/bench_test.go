package mask_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/latency"
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

// BenchmarkJSONGBNFMask times FillBitmask along real JSON documents fed token
// by token through json.gbnf on the Llama-3 vocabulary, one thread. The
// cold-* figures are the first pass of a fresh grammar with the shared
// classifications dropped, so every node's first mask pays for classifying
// it (cold-total-ms is the whole pass); the warm-* figures are later passes.
func BenchmarkJSONGBNFMask(b *testing.B) {
	voc := vocabtest.Load(b, "llama3")
	g := loadGBNF(b, "json.gbnf")
	docs := realDocuments(b, voc, 200)
	bm := mask.NewBitmask(1, voc.Size())
	pass := func(m *mask.Matcher, times *latency.Sample) {
		for _, doc := range docs {
			m.Reset()
			for _, id := range doc {
				t0 := time.Now()
				if err := m.FillBitmask(bm, 0); err != nil {
					b.Fatal(err)
				}
				times.Add(time.Since(t0))
				if !bm.Allowed(0, id) || !m.AcceptToken(id) {
					b.Fatalf("token %d %q refused", id, voc.Bytes(id))
				}
			}
		}
	}
	mask.ResetSharedIndex(voc)
	c, err := mask.Compile(g, voc, mask.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var cold, warm latency.Sample
	pass(c.NewMatcher(), &cold)
	m := c.NewMatcher()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pass(m, &warm)
	}
	b.StopTimer()
	b.ReportMetric(float64(cold.Len()), "masks/pass")
	cold.Report(b, "cold-")
	warm.Report(b, "warm-")
	b.ReportMetric(float64(c.MemoryBytes())/(1<<20), "grammar-MiB")
}

// BenchmarkJSONGBNFCompile times compiling json.gbnf for the Llama-3
// vocabulary plus its first mask (the vocabulary's sorted index is built
// once per process, like loading the tokenizer, and not counted).
func BenchmarkJSONGBNFCompile(b *testing.B) {
	voc := vocabtest.Load(b, "llama3")
	g := loadGBNF(b, "json.gbnf")
	if _, err := mask.Compile(g, voc, mask.Options{}); err != nil { // builds the vocabulary index
		b.Fatal(err)
	}
	bm := mask.NewBitmask(1, voc.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := mask.Compile(g, voc, mask.Options{})
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
	c, err := mask.Compile(loadGBNF(b, "json.gbnf"), voc, mask.Options{})
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
