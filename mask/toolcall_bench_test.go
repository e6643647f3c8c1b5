package mask_test

import (
	"os"
	"testing"
	"time"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/latency"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

// toolCallGrammar is Qwen3's tool-calling output after the prompt opened
// <think>: the rest of the thinking, then free text in which any number of
// <tool_call>{"name": "get_weather", "arguments": {...}}</tool_call> blocks
// may stand, the arguments checked against their schema.
func toolCallGrammar(tb testing.TB) *grammar.Grammar {
	args, _, err := jsonschema.Compile([]byte(`{"type": "object", "properties": {
		"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 14},
		"unit": {"enum": ["celsius", "fahrenheit"]}}, "required": ["city"], "additionalProperties": false}`), jsonschema.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	g := &grammar.Grammar{Rules: []grammar.Rule{
		{Name: "root", Body: grammar.Cat(
			grammar.Text("</think>"), grammar.Lit("</think>\n\n"),
			grammar.Text("<tool_call>"), grammar.Rep(grammar.Cat(grammar.Call(1), grammar.Text("<tool_call>")), 0, -1))},
		{Name: "call"}, // its body calls the schema's root, embedded below
	}}
	g.Rules[1].Body = grammar.Cat(grammar.Lit("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "),
		grammar.Call(g.Embed(args, "args-")), grammar.Lit("}\n</tool_call>"))
	if err := g.Validate(); err != nil {
		tb.Fatal(err)
	}
	return g
}

// toolCallOutput is a model's output for toolCallGrammar: real prose (this
// repository's README) as the thinking and the text, then a call.
func toolCallOutput(tb testing.TB, voc *tokenizer.Vocab) (ids []int, trigger int) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		tb.Fatal(err)
	}
	prose := string(readme)
	if len(prose) > 6000 {
		prose = prose[:6000]
	}
	enc, err := voc.Encoder()
	if err != nil {
		tb.Fatal(err)
	}
	ids = append(ids, enc.Encode(prose[:3000])...)
	ids = append(ids, enc.Encode("</think>\n\n")...)
	ids = append(ids, enc.Encode(prose[3000:])...)
	ids = append(ids, enc.Encode("\n")...)
	trigger = len(ids)
	ids = append(ids, enc.Encode("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call>")...)
	return ids, trigger
}

// BenchmarkToolCallMask times FillBitmask along a Qwen3 tool-calling
// output: text-* over the free-text masks (thinking and answer text, a few
// thousand tokens of prose), after-trigger-* over the first mask after the
// <tool_call> trigger. Each pass compiles the grammar afresh with the
// shared classifications dropped, so every figure is a first visit: the
// grammar is Ready, its token index is not.
func BenchmarkToolCallMask(b *testing.B) {
	voc := vocabtest.Load(b, "qwen3")
	g := toolCallGrammar(b)
	ids, trigger := toolCallOutput(b, voc)
	bm := mask.NewBitmask(1, voc.Size())
	var text, after latency.Sample
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		mask.ResetSharedIndex(voc)
		c, err := mask.Compile(g, voc, mask.Options{})
		if err != nil {
			b.Fatal(err)
		}
		m := c.NewMatcher()
		b.StartTimer()
		for k, id := range ids {
			t0 := time.Now()
			if err := m.FillBitmask(bm, 0); err != nil {
				b.Fatal(err)
			}
			d := time.Since(t0)
			switch {
			case k < trigger:
				text.Add(d)
			case k == trigger+1:
				after.Add(d)
			}
			if !bm.Allowed(0, id) || !m.AcceptToken(id) {
				b.Fatalf("token %d (%d) %q refused", k, id, voc.Bytes(id))
			}
		}
		if !m.CanEnd() {
			b.Fatal("the output is not complete")
		}
	}
	b.StopTimer()
	text.Report(b, "text-")
	after.Report(b, "after-trigger-")
}
