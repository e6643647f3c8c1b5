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
// JSON string; "email" the start of an email address (format: email);
// "words" the third letter of a word of a text of at most 50 words and
// 500 characters (a pattern of MaskBench's Github_medium---o21115, whose
// positions are each a walk of most of the vocabulary); "dot" the
// unescaped dot of "^uk.gov.ons.edc.eq$" (MaskBench's o12210), any
// character and then a "g".
// Each is classified as a grammar would and through the pushdown state
// ("/stack", the reference).
func BenchmarkClassify(b *testing.B) {
	voc := indexVocab(vocabtest.Load(b, "llama3"))
	stride := WordsPerRow(voc.size)
	g, _, err := jsonschema.Compile([]byte(`{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},"email":{"type":"string","format":"email"},"words":{"type":"string","maxLength":500,"minLength":1,"pattern":"^(?:\\S+\\s+){0,49}\\S+$"},"origin":{"type":"string","pattern":"^uk.gov.ons.edc.eq$"}}}`), jsonschema.Options{})
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
		"words":  p.Next(p.Next(p.Next(start("properties-words"), '"'), 'a'), 'b'),
		"dot":    p.Next(p.Next(p.Next(start("properties-origin"), '"'), 'u'), 'k'),
	}
	for _, name := range []string{"key", "string", "email", "words", "dot", "key/stack", "string/stack"} {
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
