// Command toolcall decodes one Qwen3 tool-calling turn under rein's mask: the
// model thinks, writes a line of text, calls two different tools and ends its
// turn with <|im_end|>. The constraint comes from the request the way an
// engine gets it, OpenAI-style tools and tool_choice, through
// rein.ToolCalls; the Compiler compiles it for Qwen3's real vocabulary.
//
// There is no model here. The stand-in gives seeded random logits with a
// bias towards a reply it "wants" to write, as a real model's logits are
// peaked; at every step the mask removes what would break the format or a
// call's arguments, and the best allowed token is taken. The program then
// prints the turn, split into thinking, text and calls, and checks each
// call's arguments against its tool's schema.
//
// It needs Qwen3's tokenizer.json: `make vocab` puts it in .cache/ (run
// from the repository root), or pass -tokenizer.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/toolcall"
)

// tools is the request's "tools", as an engine receives them.
const tools = `[
  {"type": "function", "function": {"name": "get_weather",
    "description": "Current weather in a city",
    "parameters": {"type": "object",
      "properties": {"city": {"type": "string", "minLength": 1},
                     "unit": {"enum": ["celsius", "fahrenheit"]}},
      "required": ["city", "unit"], "additionalProperties": false}}},
  {"type": "function", "function": {"name": "get_time",
    "description": "Local time in a time zone",
    "parameters": {"type": "object",
      "properties": {"tz": {"type": "string", "pattern": "^[A-Z][a-z]+/[A-Z][a-z_]+$"}},
      "required": ["tz"], "additionalProperties": false}}}
]`

// wanted is what the stand-in model leans towards writing after the
// prompt's "<think>\n", piece by piece; an empty piece is left to chance up
// to the next quote. That is get_weather's unit: the noise picks the value,
// and the mask lets through only what the schema allows, "celsius" or
// "fahrenheit".
var wanted = []string{
	"The user asks for the weather and the time in Paris. I will call both tools.\n</think>\n\n",
	"Let me look that up.\n",
	"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"", "", "}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"tz\": \"Europe/Paris\"}}\n</tool_call>",
	"<|im_end|>",
}

func main() {
	tok := flag.String("tokenizer", ".cache/tokenizers/qwen3/tokenizer.json", "Qwen3's tokenizer.json")
	seed := flag.Uint64("seed", 3, "random seed for the logits")
	flag.Parse()
	if err := run(os.Stdout, *tok, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "toolcall:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, tokenizerPath string, seed uint64) error {
	vocab, err := tokenizer.LoadHF(tokenizerPath, tokenizer.LoadOptions{})
	if err != nil {
		return fmt.Errorf("%w (run `make vocab` from the repository root, or pass -tokenizer)", err)
	}
	compiler, err := rein.NewCompiler(vocab, rein.CompilerOptions{})
	if err != nil {
		return err
	}
	ts, err := toolcall.ParseTools([]byte(tools))
	if err != nil {
		return err
	}
	req := toolcall.Request{Model: toolcall.Qwen3, Tools: ts, Reasoning: true} // tool_choice auto, parallel calls
	t0 := time.Now()
	compiled, err := compiler.Compile(context.Background(), rein.ToolCalls(req))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "compiled Qwen3's tool-call format for 2 tools in %v\n\n", time.Since(t0).Round(time.Microsecond))

	out, steps, slowest, err := decode(compiled, vocab, seed)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d tokens; slowest mask %v\n\n", steps, slowest.Round(time.Microsecond))
	return report(w, out, ts)
}

// decode runs the stand-in model under the mask until a stop token, and
// returns the text of the turn, the tokens it took and the slowest mask.
func decode(compiled *mask.Compiled, vocab *tokenizer.Vocab, seed uint64) (string, int, time.Duration, error) {
	model := newStandIn(vocab, seed)
	m := compiled.NewMatcher()
	bitmask := mask.NewBitmask(1, vocab.Size())
	logits := make([]float32, vocab.Size())
	var out strings.Builder
	var slowest time.Duration
	for steps := 1; steps <= 400; steps++ {
		t0 := time.Now()
		if err := m.FillBitmask(bitmask, 0); err != nil {
			return "", 0, 0, err
		}
		slowest = max(slowest, time.Since(t0))
		model.logits(logits)
		if err := mask.Apply(logits, vocab.Size(), bitmask, nil); err != nil {
			return "", 0, 0, err
		}
		id := argmax(logits)
		if err := m.Accept(id); err != nil {
			return "", 0, 0, err
		}
		out.Write(vocab.Bytes(id))
		model.took(vocab.Bytes(id))
		if m.IsTerminated() {
			return out.String(), steps, slowest, nil
		}
	}
	return "", 0, 0, fmt.Errorf("no stop token after 400 tokens: %q", out.String())
}

// standIn is the stand-in model: noise, plus a bias towards the tokens that
// continue the piece of its reply it is at.
type standIn struct {
	vocab  *tokenizer.Vocab
	rng    *rand.Rand
	piece  int // wanted[piece] is being written
	off    int // its first off bytes are written
	stopID int
}

func newStandIn(vocab *tokenizer.Vocab, seed uint64) *standIn {
	stop, _ := vocab.TokenID("<|im_end|>")
	return &standIn{vocab: vocab, rng: rand.New(rand.NewPCG(seed, 1)), stopID: stop}
}

// took moves through the reply past the bytes of the token just taken.
func (s *standIn) took(tok []byte) {
	for _, b := range tok {
		if s.piece >= len(wanted) {
			return
		}
		p := wanted[s.piece]
		switch {
		case p == "":
			if b == '"' { // the chance piece ends at its closing quote
				s.piece++
			}
		case s.off < len(p) && p[s.off] == b:
			if s.off++; s.off == len(p) {
				s.piece, s.off = s.piece+1, 0
			}
		}
	}
}

func (s *standIn) logits(logits []float32) {
	for i := range logits {
		logits[i] = float32(s.rng.NormFloat64())
	}
	if s.piece >= len(wanted) {
		return
	}
	rest := wanted[s.piece][s.off:]
	switch rest {
	case "":
		return // chance
	case "<|im_end|>":
		logits[s.stopID] += 20
		return
	}
	for id := 0; id < s.vocab.Size(); id++ {
		b := s.vocab.Bytes(id)
		if len(b) > 0 && !s.vocab.IsSpecial(id) && strings.HasPrefix(rest, string(b)) {
			logits[id] += 8 + 2*float32(math.Log2(float64(len(b)))) // the best of 150,000 noises is near 4.5
		}
	}
}

func argmax(xs []float32) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}

// report prints the turn readably and checks each call's arguments
// against its tool's schema.
func report(w io.Writer, out string, tools []toolcall.Tool) error {
	thinking, answer, ok := strings.Cut(out, "</think>")
	if !ok {
		return errors.New("the turn has no end of thinking")
	}
	answer = strings.TrimSuffix(answer, "<|im_end|>")
	fmt.Fprintf(w, "thinking: %s\n", strings.TrimSpace(thinking))
	schemas := map[string][]byte{}
	for _, t := range tools {
		schemas[t.Name] = t.Parameters
	}
	called := map[string]bool{}
	for {
		text, rest, found := strings.Cut(answer, "<tool_call>")
		if t := strings.TrimSpace(text); t != "" {
			fmt.Fprintf(w, "text:     %s\n", t)
		}
		if !found {
			break
		}
		body, after, ok := strings.Cut(rest, "</tool_call>")
		if !ok {
			return errors.New("a call is not closed")
		}
		var call struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal([]byte(body), &call); err != nil {
			return fmt.Errorf("call %q: %w", body, err)
		}
		valid, err := jsonschema.Validate(schemas[call.Name], call.Arguments, jsonschema.Options{})
		if err != nil {
			return err
		}
		var args bytes.Buffer
		if err := json.Compact(&args, call.Arguments); err != nil {
			return err
		}
		fmt.Fprintf(w, "call:     %s(%s) arguments valid: %v\n", call.Name, args.String(), valid)
		if !valid {
			return fmt.Errorf("the arguments of %s break its schema", call.Name)
		}
		called[call.Name] = true
		answer = after
	}
	fmt.Fprintln(w, "end:      <|im_end|>")
	if len(called) < 2 {
		return fmt.Errorf("%d different tools called, want 2", len(called))
	}
	return nil
}
