// Command quickstart is rein's main job in one screen: compile a tool call's
// JSON Schema (a weather lookup) for a real vocabulary (GPT-2's, embedded, so
// it runs offline), then decode the way an engine would — fill the token
// bitmask, mask the logits, take the best token, accept it — and print the
// document it produced with the time each mask took.
//
// There is no model here. Its stand-in gives random logits biased the way a
// real model's are peaked: towards JSON punctuation that closes a string
// holding something, and towards a city's name in an empty one. The mask
// does the rest: every token it allows keeps the output valid under the
// schema, so the result is a tool call, not gibberish inside one string.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// weatherTool is the schema of a tool call, as an engine gets it with a
// request's tools.
const weatherTool = `{
  "type": "object",
  "properties": {
    "name": {"const": "get_weather"},
    "arguments": {
      "type": "object",
      "properties": {
        "city": {"type": "string", "minLength": 1, "maxLength": 24},
        "unit": {"enum": ["celsius", "fahrenheit"]}
      },
      "required": ["city", "unit"],
      "additionalProperties": false
    }
  },
  "required": ["name", "arguments"],
  "additionalProperties": false
}`

func main() {
	seed := flag.Uint64("seed", 42, "random seed for the logits")
	maxTokens := flag.Int("max-tokens", 64, "give up after this many tokens")
	flag.Parse()
	if err := run(*seed, *maxTokens); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(seed uint64, maxTokens int) error {
	vocab, err := gpt2.Vocab()
	if err != nil {
		return err
	}
	t0 := time.Now()
	g, _, err := jsonschema.Compile([]byte(weatherTool), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
	if err != nil {
		return err
	}
	compiled, err := mask.Compile(g, vocab, mask.Options{})
	if err != nil {
		return err
	}
	fmt.Printf("compiled the get_weather tool schema for %s (%d tokens) in %v\n", vocab.Name(), vocab.Size(), time.Since(t0).Round(time.Microsecond))
	fmt.Println("stand-in model: random logits, biased towards JSON punctuation and, inside an empty string, a city's name")
	fmt.Println("(a real model's logits are that peaked); the mask allows only what keeps the tool call valid")
	fmt.Println()

	m := compiled.NewMatcher()
	bitmask := mask.NewBitmask(1, vocab.Size())
	logits := make([]float32, vocab.LogitWidth())
	md := newModel(vocab)
	rng := rand.New(rand.NewPCG(seed, seed))
	var out []byte
	var times []time.Duration
	fmt.Printf("%4s  %8s  %9s  %s\n", "step", "mask µs", "allowed", "token")
	for step := 0; !m.IsTerminated(); step++ {
		if step == maxTokens {
			return fmt.Errorf("no end after %d tokens", maxTokens)
		}
		t := time.Now()
		if err := m.FillBitmask(bitmask, 0); err != nil {
			return err
		}
		d := time.Since(t)
		times = append(times, d)

		md.logits(logits, out, rng)
		if err := mask.Apply(logits, len(logits), bitmask, nil); err != nil {
			return err
		}
		id := argmax(logits)
		if !m.AcceptToken(id) {
			return fmt.Errorf("step %d: token %d was allowed but not accepted", step, id)
		}
		token := fmt.Sprintf("%q", vocab.Bytes(id))
		if m.IsTerminated() {
			token = "<|endoftext|> (stop)"
		} else {
			out = append(out, vocab.Bytes(id)...)
		}
		fmt.Printf("%4d  %8.1f  %9d  %s\n", step, float64(d.Nanoseconds())/1e3, bitmask.Count(0), token)
	}
	fmt.Printf("\n%s\n\n", out)
	var call struct {
		Name      string `json:"name"`
		Arguments struct {
			City string `json:"city"`
			Unit string `json:"unit"`
		} `json:"arguments"`
	}
	if err := json.Unmarshal(out, &call); err != nil {
		return fmt.Errorf("the output does not parse: %w", err)
	}
	fmt.Printf("parsed: %s(city=%q, unit=%q); %d tokens; mask time p50 %v, max %v\n",
		call.Name, call.Arguments.City, call.Arguments.Unit, len(times), pct(times, 0.5), pct(times, 1))
	return nil
}

// cities are the names the stand-in model likes to write: those that are
// one token of the vocabulary.
var cities = []string{"Paris", "London", "Berlin", "Tokyo", "Madrid", "Rome", "Boston", "Chicago", "Seattle", "Dublin", "Sydney", "Lisbon", "Vienna", "Oslo"}

// model is the stand-in for a language model: random logits in [0, 1),
// peaked the way a real model's are. It follows the JSON it has written
// (inside a string or not) and prefers, by a margin the noise cannot
// overturn, JSON punctuation that puts nothing inside a string (so it closes
// a string that holds something, and opens one empty), and in an empty
// string a city's name. Where the mask allows none of these the noise
// decides, as for the unit.
type model struct {
	vocab       *tokenizer.Vocab
	punctuation []int // tokens made of JSON punctuation only
	cities      []int
}

func newModel(vocab *tokenizer.Vocab) *model {
	md := &model{vocab: vocab}
	for id := range vocab.Size() {
		b := vocab.Bytes(id)
		if !vocab.IsSpecial(id) && len(b) > 0 && strings.Trim(string(b), `{}[]:,"`) == "" {
			md.punctuation = append(md.punctuation, id)
		}
	}
	for _, c := range cities {
		if id, ok := vocab.TokenID(c); ok {
			md.cities = append(md.cities, id)
		}
	}
	return md
}

// logits writes the next step's logits, given the text so far.
func (md *model) logits(logits []float32, text []byte, rng *rand.Rand) {
	for i := range logits {
		logits[i] = rng.Float32()
	}
	inString := false
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == '\\' && inString:
			i++
		case text[i] == '"':
			inString = !inString
		}
	}
	for _, id := range md.punctuation {
		if !fillsString(md.vocab.Bytes(id), inString) {
			logits[id] += 3
		}
	}
	if inString && text[len(text)-1] == '"' {
		for _, id := range md.cities {
			logits[id] += 2
		}
	}
}

// fillsString reports whether punctuation b, written inside a string or
// not, puts any byte inside a string.
func fillsString(b []byte, inString bool) bool {
	for _, c := range b {
		if c == '"' {
			inString = !inString
		} else if inString {
			return true
		}
	}
	return false
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

func pct(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))].Round(time.Microsecond)
}
