// Command quickstart is rein's main job in one screen: compile the built-in
// JSON grammar for a real vocabulary (GPT-2's, embedded, so it runs offline),
// then decode with random logits the way an engine would — fill the token
// bitmask, mask the logits, take the best token, accept it — and print the
// valid JSON document it produced with the time each mask took.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

func main() {
	seed := flag.Uint64("seed", 42, "random seed for the logits")
	maxTokens := flag.Int("max-tokens", 64, "tokens to sample freely before steering to the end")
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
	compiled, err := mask.Compile(grammar.JSON(), vocab)
	if err != nil {
		return err
	}
	fmt.Printf("compiled the JSON grammar for %s (%d tokens) in %v\n", vocab.Name(), vocab.Size(), time.Since(t0).Round(time.Microsecond))

	m := compiled.NewMatcher()
	bitmask := mask.NewBitmask(1, vocab.Size())
	logits := make([]float32, vocab.LogitWidth())
	rng := rand.New(rand.NewPCG(seed, seed))
	var out []byte
	var times []time.Duration
	for step := 0; !m.IsTerminated(); step++ {
		t := time.Now()
		if err := m.FillBitmask(bitmask, 0); err != nil {
			return err
		}
		times = append(times, time.Since(t))

		// A stand-in for the model: random logits, nudged towards closing
		// the document once maxTokens have been sampled.
		for i := range logits {
			logits[i] = rng.Float32()
		}
		if step >= maxTokens {
			steerToEnd(m, logits, vocab.Size())
		}
		if err := mask.Apply(logits, len(logits), bitmask, nil); err != nil {
			return err
		}
		id := argmax(logits)
		if !m.AcceptToken(id) {
			return fmt.Errorf("step %d: token %d was allowed but not accepted", step, id)
		}
		if !m.IsTerminated() {
			out = append(out, vocab.Bytes(id)...)
		}
	}
	fmt.Printf("\n%s\n\nmask time per step (µs):", out)
	for _, d := range times {
		fmt.Printf(" %.1f", float64(d.Nanoseconds())/1e3)
	}
	fmt.Println()
	fmt.Printf("valid JSON: %v; %d tokens; mask time p50 %v, max %v\n",
		json.Valid(out), len(times), pct(times, 0.5), pct(times, 1))
	return nil
}

// steerToEnd raises the logits of the tokens that bring the document closest
// to a possible end, as a model asked to stop would.
func steerToEnd(m *mask.Matcher, logits []float32, n int) {
	best := m.State().BytesToEnd()
	for id := 0; id < n; id++ {
		if !m.AcceptToken(id) {
			continue
		}
		if m.IsTerminated() || m.State().BytesToEnd() < best {
			logits[id] += 10
		}
		_ = m.Rollback(1)
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

func pct(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))].Round(time.Microsecond)
}
