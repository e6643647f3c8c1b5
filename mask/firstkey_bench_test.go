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

// BenchmarkFirstKeyMask times first masks in a nested object of six
// declared properties, in any order (jsonschema.OrderAuto), where the first
// pass pays most: "key" is the mask at the start of its first key, which
// may be any of the six names or, where the object is open, an undeclared
// one; "name" the mask after one of the names has been written, whose key
// may still go on into an undeclared one. Each iteration compiles an object
// whose names no earlier one had and prepares it as rein.Compiler does
// before Ready, so the mask classifies the key's nodes as a new request's
// would; the nodes every key shares are classified before the timer.
func BenchmarkFirstKeyMask(b *testing.B) {
	vocab := vocabtest.Load(b, "llama3")
	compile := func(i int, closed bool) *Compiled {
		extra := ""
		if closed {
			extra = `,"additionalProperties":false`
		}
		schema := fmt.Sprintf(`{"type":"object","properties":{"item":{"type":"object","properties":{"name%[1]d":{"type":"string"},"id%[1]d":{"type":"integer"},"tags%[1]d":{"type":"array","items":{"type":"string"}},"kind%[1]d":{"enum":["a","b"]},"size%[1]d":{"type":"number"},"owner%[1]d":{"type":"string"}}%[2]s}}}`, i, extra)
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
	fill := func(m *Matcher) {
		if err := m.FillBitmask(bm, 0); err != nil {
			b.Fatal(err)
		}
	}
	accept := func(m *Matcher, s string) {
		if !m.AcceptString(s) {
			b.Fatalf("%q refused", s)
		}
	}
	m := compile(-1, false).NewMatcher()
	accept(m, `{"item":{"`)
	fill(m)
	i := 0
	for _, object := range []string{"open", "closed"} {
		for _, at := range []string{"key", "name"} {
			b.Run(object+"/"+at, func(b *testing.B) {
				var times latency.Sample
				for b.Loop() {
					b.StopTimer()
					m := compile(i, object == "closed").NewMatcher()
					accept(m, `{"item":{"`)
					if at == "name" {
						fill(m)
						accept(m, fmt.Sprintf("kind%d", i))
					}
					i++
					b.StartTimer()
					t := time.Now()
					fill(m)
					times.Add(time.Since(t))
				}
				times.Report(b, "first-")
			})
		}
	}
}
