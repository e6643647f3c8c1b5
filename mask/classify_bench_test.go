package mask

import (
	"strings"
	"testing"
	"time"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/latency"
	"github.com/reinlm/rein/internal/pda"
	"github.com/reinlm/rein/internal/vocabtest"
)

// BenchmarkClassify times the cold classification of single nodes (every
// iteration classifies from scratch, nothing shared) against
// Llama-3's 128k tokens: what the first mask at a node no grammar of the
// vocabulary has met before costs. "key" is the start of an undeclared
// property name (every string but the declared names: it allows most of
// the vocabulary and is unique to its object); "string" the inside of a
// JSON string; "email" the start of an email address (format: email).
// Each is classified as a grammar would and through the pushdown state
// ("/stack", the reference).
func BenchmarkClassify(b *testing.B) {
	voc := indexVocab(vocabtest.Load(b, "llama3"))
	stride := WordsPerRow(voc.size)
	g, _, err := jsonschema.Compile([]byte(`{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},"email":{"type":"string","format":"email"}}}`), jsonschema.Options{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := pda.Compile(g, grammar.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	start := func(rule string) int32 {
		for _, r := range p.Rules {
			if r.Name == rule {
				return r.Start
			}
		}
		b.Fatalf("no rule %q", rule)
		return 0
	}
	nodes := map[string]int32{
		"key":    p.Next(start("key"), '"'),
		"string": p.Next(start("string"), '"'),
		"email":  p.Next(start("properties-email"), '"'),
	}
	for _, name := range []string{"key", "string", "email", "key/stack", "string/stack"} {
		node, how, _ := strings.Cut(name, "/")
		n := nodes[node]
		st := pda.NewState(p)
		b.Run(name, func(b *testing.B) {
			var times latency.Sample
			for b.Loop() {
				t := time.Now()
				switch how {
				case "":
					classify(p, voc, n, st, stride)
				case "stack":
					classifyStack(p, voc, n, st, stride)
				}
				times.Add(time.Since(t))
			}
			times.Report(b, "cold-")
		})
	}
}
