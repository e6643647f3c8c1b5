package mask

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/latency"
	"github.com/reinlm/rein/internal/vocabtest"
)

// BenchmarkFirstKeyMask times the first mask at the first key of an open
// object of six declared properties, in any order (jsonschema.OrderAuto):
// the start of a key that may be any of the six names or an undeclared
// one. Each iteration compiles an object whose names no earlier one had,
// so the mask classifies that key's nodes as a new request's would; the
// nodes every key shares (the rest of an undeclared key) are classified
// before the timer, as a Compiler's start does.
func BenchmarkFirstKeyMask(b *testing.B) {
	vocab := vocabtest.Load(b, "llama3")
	compile := func(i int) *Compiled {
		schema := fmt.Sprintf(`{"type":"object","properties":{"item":{"type":"object","properties":{"name%[1]d":{"type":"string"},"id%[1]d":{"type":"integer"},"tags%[1]d":{"type":"array","items":{"type":"string"}},"kind%[1]d":{"enum":["a","b"]},"size%[1]d":{"type":"number"},"owner%[1]d":{"type":"string"}}}}}`, i)
		g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
		if err != nil {
			b.Fatal(err)
		}
		c, err := Compile(g, vocab, Options{})
		if err != nil {
			b.Fatal(err)
		}
		c.WarmWithin(context.Background(), 5000) // as rein.Compiler does before Ready
		return c
	}
	bm := NewBitmask(1, vocab.Size())
	m := compile(-1).NewMatcher()
	m.AcceptString(`{"item":{"`)
	if err := m.FillBitmask(bm, 0); err != nil {
		b.Fatal(err)
	}
	var times latency.Sample
	i := 0
	for b.Loop() {
		b.StopTimer()
		m := compile(i).NewMatcher()
		i++
		if !m.AcceptString(`{"item":{"`) {
			b.Fatal("refused")
		}
		b.StartTimer()
		t := time.Now()
		if err := m.FillBitmask(bm, 0); err != nil {
			b.Fatal(err)
		}
		times.Add(time.Since(t))
	}
	times.Report(b, "first-")
}
