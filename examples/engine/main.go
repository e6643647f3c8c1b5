// Command engine is a small inference-engine loop built the way a real
// engine's scheduler uses rein (after vLLM's design, where structured output
// lives in the scheduler):
//
//   - requests arrive over time as the bodies an OpenAI-compatible server
//     receives, some with a response_format (OpenAI's shape) or
//     structured_outputs (vLLM's: JSON Schema, regex, grammar, choice), some
//     without; rein.ParseRequest turns each body into the spec to compile,
//     and a bad request is refused at once, as a 400 naming the place;
//   - a constrained request waits in the waiting queue while its grammar
//     compiles (rein.Compiler.CompileAsync; identical grammars compile once
//     and are cached), and never holds up the running batch;
//   - each step, the running batch gets random logits (the stand-in for the
//     model), the constrained rows' masks are filled in parallel in one call
//     (mask.BatchFiller), applied, a token is sampled per row and accepted;
//     after it, jump-forward appends the tokens the grammar forces;
//   - a request with a malformed schema fails alone, with an error naming
//     the place in its schema; the others finish with valid output.
//
// It prints a line per step (queue sizes and the time of each phase) and a
// summary. It runs offline on GPT-2's embedded vocabulary; -tokenizer loads
// a HF tokenizer.json instead.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/jumpforward"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

func main() {
	tok := flag.String("tokenizer", "", "HF tokenizer.json of the model (default: GPT-2's, embedded)")
	seed := flag.Uint64("seed", 7, "random seed for the logits")
	batch := flag.Int("batch", 6, "most requests running at once")
	workers := flag.Int("workers", 0, "goroutines filling masks (0: GOMAXPROCS)")
	free := flag.Int("max-tokens", 24, "tokens sampled freely before a request is steered to its end")
	jump := flag.Bool("jumpforward", true, "append the tokens the grammar forces without sampling them")
	flag.Parse()
	vocab, err := loadVocab(*tok)
	if err == nil {
		err = run(vocab, config{seed: *seed, batch: *batch, workers: *workers, free: *free, jump: *jump})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "engine:", err)
		os.Exit(1)
	}
}

func loadVocab(path string) (*tokenizer.Vocab, error) {
	if path == "" {
		return gpt2.Vocab()
	}
	return tokenizer.LoadHF(path, tokenizer.LoadOptions{})
}

type config struct {
	seed          uint64
	batch         int
	workers, free int
	jump          bool
}

const weatherSchema = `{"type":"object","properties":{"city":{"type":"string","maxLength":16},"unit":{"enum":["celsius","fahrenheit"]}},"required":["city","unit"],"additionalProperties":false}`

// arrivals lists the requests by the step at which they arrive, as the
// bodies an OpenAI-compatible server receives: response_format (OpenAI's
// shape) or structured_outputs (vLLM's), or neither. Two ask for the same
// schema at once (one compile), a third later (a cache hit).
var arrivals = []struct {
	step int
	name string
	body string
}{
	{0, "weather", chat(`"response_format": {"type": "json_schema", "json_schema": {"name": "weather", "strict": true, "schema": ` + weatherSchema + `}}`)},
	{0, "weather-again", chat(`"response_format": {"type": "json_schema", "json_schema": {"name": "weather", "strict": true, "schema": ` + weatherSchema + `}}`)},
	{0, "chat-1", chat("")},
	{0, "malformed", chat(`"response_format": {"type": "json_schema", "json_schema": {"name": "age", "schema": {"type": "object", "properties": {"age": {"type": "integer", "minimum": "ten"}}}}}`)},
	{1, "person", chat(`"structured_outputs": {"json": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 12}, "age": {"type": "integer", "minimum": 0, "maximum": 120}, "tags": {"type": "array", "items": {"enum": ["admin", "dev", "ops"]}, "maxItems": 3}}, "required": ["name", "age"]}, "disable_additional_properties": true}`)},
	{1, "date", chat(`"structured_outputs": {"regex": "20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"}`)},
	{1, "chat-2", chat("")},
	{1, "bad-request", chat(`"structured_outputs": {"regex": "[a-z]+", "choice": ["a", "b"]}`)},
	{2, "sentiment", chat(`"structured_outputs": {"choice": ["positive", "negative", "neutral"]}`)},
	{2, "arithmetic", chat(`"structured_outputs": {"grammar": "root ::= expr\nexpr ::= term ((\"+\" | \"-\") term)*\nterm ::= num | \"(\" expr \")\"\nnum ::= [1-9] [0-9]?"}`)},
	{2, "any-object", chat(`"response_format": {"type": "json_object"}`)},
	{45, "weather-later", chat(`"response_format": {"type": "json_schema", "json_schema": {"name": "weather", "strict": true, "schema": ` + weatherSchema + `}}`)},
	{45, "tools", chat(`"structured_outputs": {"json": {"type": "array", "items": {"type": "object", "properties": {"tool": {"enum": ["search", "calc"]}, "args": {"type": "string", "maxLength": 10}}, "required": ["tool", "args"], "additionalProperties": false}, "minItems": 1, "maxItems": 2}, "disable_any_whitespace": true}`)},
}

// chat is the body of a chat completion request with the given extra
// fields.
func chat(fields string) string {
	body := `{"model": "stand-in", "messages": [{"role": "user", "content": "..."}]`
	if fields != "" {
		body += ", " + fields
	}
	return body + "}"
}

// request is one sequence and its place in the scheduler.
type request struct {
	name    string
	spec    *rein.Spec
	cancel  context.CancelFunc
	handle  *rein.Handle
	m       *mask.Matcher
	fw      *jumpforward.Forwarder
	tokens  []int
	sampled int // tokens the model sampled
	jumped  int // tokens jump-forward appended
	arrived int // step
	started int // step it joined the batch, or -1
	status  string
	err     error
}

func (r *request) kind() string {
	if r.spec == nil {
		return "none"
	}
	return r.spec.Kind.String()
}

const unconstrainedTokens = 24

func run(vocab *tokenizer.Vocab, cfg config) error {
	compiler, err := rein.NewCompiler(vocab, rein.CompilerOptions{})
	if err != nil {
		return err
	}
	filler := mask.NewBatchFiller(cfg.workers)
	defer filler.Close()
	fmt.Printf("vocabulary %s (%d tokens), batch of %d, %d fill workers\n", vocab.Name(), vocab.Size(), cfg.batch, filler.Workers())

	// Start-up, as an engine loads its tokenizer: the first compile builds
	// the vocabulary's sorted index (once per process) and caches the JSON
	// grammar; the first Forwarder loads the model's encoder.
	t0 := time.Now()
	jsonGrammar, err := compiler.Compile(context.Background(), rein.JSON())
	if err != nil {
		return err
	}
	if cfg.jump {
		if _, err := jumpforward.New(jsonGrammar, jumpforward.Options{}); err != nil {
			fmt.Println("no jump-forward:", err)
			cfg.jump = false
		}
	}
	fmt.Printf("start-up (vocabulary index, JSON grammar, encoder): %v\n\n", time.Since(t0).Round(time.Millisecond))

	width := vocab.LogitWidth()
	var (
		rng       = rand.New(rand.NewPCG(cfg.seed, cfg.seed))
		single    = singleByteTokens(vocab)
		bitmask   = mask.NewBitmask(cfg.batch, vocab.Size())
		logits    = make([]float32, cfg.batch*width)
		all       []*request
		waiting   []*request
		running   []*request
		matchers  = make([]*mask.Matcher, 0, cfg.batch)
		rows      = make([]int, 0, cfg.batch) // bitmask row of each matcher: 0, 1, 2, ...
		positions = make([]int, 0, cfg.batch) // logits row of each matcher (never nil: nil would mask every row)
		errs      = make([]error, cfg.batch)
		fillTimes []time.Duration
		next      = 0
	)
	for step := 0; next < len(arrivals) || len(waiting) > 0 || len(running) > 0; step++ {
		t0 := time.Now()
		// Arrivals: a constrained request starts compiling and waits.
		for ; next < len(arrivals) && arrivals[next].step <= step; next++ {
			a := arrivals[next]
			r := &request{name: a.name, arrived: step, started: -1, status: "waiting"}
			// What an HTTP handler does: one call from the body to a spec;
			// a bad request is a 400 before it reaches the scheduler.
			spec, ok, err := rein.ParseRequest([]byte(a.body), rein.RequestOptions{})
			if err != nil {
				r.finish("rejected", err)
				all = append(all, r)
				fmt.Printf("step %3d: x %s rejected (400): %v\n", step, r.name, err)
				continue
			}
			if ok {
				r.spec = &spec
				var ctx context.Context
				ctx, r.cancel = context.WithTimeout(context.Background(), 10*time.Second)
				r.handle = compiler.CompileAsync(ctx, *r.spec)
			}
			all, waiting = append(all, r), append(waiting, r)
		}
		// Scheduling: ready requests join the batch, failed ones leave; the
		// others stay in the queue without holding anyone up.
		var events []string
		tSched := time.Now()
		waiting = slices.DeleteFunc(waiting, func(r *request) bool {
			if r.handle != nil && !r.handle.Ready() {
				return false
			}
			if r.handle != nil && r.handle.Err() != nil {
				r.finish("failed", r.handle.Err())
				events = append(events, fmt.Sprintf("x %s failed alone: %v", r.name, r.err))
				return true
			}
			if len(running) == cfg.batch {
				return false
			}
			if r.handle != nil {
				r.m = r.handle.Compiled().NewMatcher()
				if cfg.jump {
					r.fw, _ = jumpforward.New(r.handle.Compiled(), jumpforward.Options{})
				}
			}
			r.started, r.status = step, "running"
			running = append(running, r)
			events = append(events, fmt.Sprintf("+ %s joins the batch after %d steps in the queue", r.name, step-r.arrived))
			return true
		})
		dSched := time.Since(tSched)
		if len(running) == 0 {
			if len(waiting) > 0 { // nothing to run: idle until a grammar is ready
				time.Sleep(200 * time.Microsecond)
			}
			printEvents(events)
			continue
		}

		// The model: random logits for every running row.
		tModel := time.Now()
		for i := range len(running) * width {
			logits[i] = rng.Float32()
		}
		dModel := time.Since(tModel)

		// Masks of the constrained rows, in parallel, in one call.
		matchers, rows, positions = matchers[:0], rows[:0], positions[:0]
		for i, r := range running {
			if r.m != nil {
				matchers, rows, positions = append(matchers, r.m), append(rows, len(rows)), append(positions, i)
			}
		}
		tFill := time.Now()
		_ = filler.Fill(matchers, bitmask, rows, errs[:len(matchers)])
		dFill := time.Since(tFill)
		fillTimes = append(fillTimes, dFill)
		for k := range matchers {
			r := running[positions[k]]
			if errs[k] != nil {
				r.finish("failed", errs[k])
			} else if r.sampled >= cfg.free {
				steer(r.m, logits[positions[k]*width:(positions[k]+1)*width], bitmask.Row(k), single)
			}
		}
		tApply := time.Now()
		if err := mask.Apply(logits[:len(running)*width], width, bitmask, positions); err != nil {
			return err
		}
		dApply := time.Since(tApply)

		// Sample, accept, jump forward.
		tAccept := time.Now()
		jumped := 0
		for i, r := range running {
			if r.status != "running" {
				continue
			}
			id := argmax(logits[i*width : (i+1)*width])
			r.sampled++
			if r.m == nil {
				r.tokens = append(r.tokens, id)
				if len(r.tokens) == unconstrainedTokens || slices.Contains(vocab.StopTokens(), id) {
					r.finish("done", nil)
				}
				continue
			}
			if err := r.m.Accept(id); err != nil {
				r.finish("failed", err)
				continue
			}
			if r.m.IsTerminated() {
				r.finish("done", nil)
				continue
			}
			r.tokens = append(r.tokens, id)
			if r.fw != nil {
				jf := r.fw.Next(r.m, r.tokens)
				r.tokens = append(r.tokens[:len(r.tokens)-jf.Rollback], jf.Tokens...)
				r.jumped += len(jf.Tokens)
				jumped += len(jf.Tokens)
			}
		}
		dAccept := time.Since(tAccept)
		batchSize := len(running)
		for _, r := range running {
			if r.status != "running" {
				events = append(events, r.line(vocab, step))
			}
		}
		running = slices.DeleteFunc(running, func(r *request) bool { return r.status != "running" })

		fmt.Printf("step %3d  queue %d  batch %d (%d constrained)  schedule %6s  model %6s  fill %6s  apply %6s  accept+jump %6s (%d jumped)  total %6s\n",
			step, len(waiting), batchSize, len(matchers), us(dSched), us(dModel), us(dFill), us(dApply), us(dAccept), jumped, us(time.Since(t0)))
		printEvents(events)
	}
	summary(all, vocab, compiler.Stats(), fillTimes)
	return nil
}

func (r *request) finish(status string, err error) {
	r.status, r.err = status, err
	if r.cancel != nil {
		r.cancel()
	}
}

func (r *request) output(vocab *tokenizer.Vocab) []byte {
	var out []byte
	for _, id := range r.tokens {
		out = append(out, vocab.Bytes(id)...)
	}
	return out
}

func (r *request) line(vocab *tokenizer.Vocab, step int) string {
	if r.err != nil {
		return fmt.Sprintf("x %s failed at step %d: %v", r.name, step, r.err)
	}
	return fmt.Sprintf("= %s done at step %d (%d tokens, %d jumped)", r.name, step, len(r.tokens), r.jumped)
}

func printEvents(events []string) {
	for _, e := range events {
		fmt.Println("          " + e)
	}
}

// steer raises the logits of allowed tokens that bring the output closest to
// an end, and of the stop tokens once it may end, as a model asked to wrap
// up would.
func steer(m *mask.Matcher, logits []float32, row []uint32, single [256]int) {
	allowed := func(id int) bool { return row[id>>5]&(1<<(uint(id)&31)) != 0 }
	if m.CanEnd() {
		for _, s := range m.Compiled().Vocab().StopTokens() {
			if allowed(s) {
				logits[s] += 20
			}
		}
		return
	}
	best, bestDist := -1, int(^uint(0)>>1)
	for _, id := range single {
		if id < 0 || !allowed(id) || !m.AcceptToken(id) {
			continue
		}
		if d := m.BytesToEnd(); d < bestDist {
			best, bestDist = id, d
		}
		_ = m.Rollback(1)
	}
	if best >= 0 {
		logits[best] += 10
	}
}

// singleByteTokens maps each byte to a non-special token that is exactly
// that byte, or -1.
func singleByteTokens(vocab *tokenizer.Vocab) [256]int {
	var t [256]int
	for i := range t {
		t[i] = -1
	}
	for id := range vocab.Size() {
		if b := vocab.Bytes(id); len(b) == 1 && !vocab.IsSpecial(id) && t[b[0]] < 0 {
			t[b[0]] = id
		}
	}
	return t
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

func summary(all []*request, vocab *tokenizer.Vocab, st rein.CompilerStats, fills []time.Duration) {
	fmt.Printf("\n%-14s %-12s %-7s %7s %7s %6s\n", "request", "grammar", "status", "tokens", "jumped", "queued")
	done, failed := 0, 0
	for _, r := range all {
		if r.err != nil {
			failed++
		} else {
			done++
		}
		queued := "-"
		if r.started >= 0 {
			queued = fmt.Sprint(r.started - r.arrived)
		}
		fmt.Printf("%-14s %-12s %-7s %7d %7d %6s\n", r.name, r.kind(), r.status, len(r.tokens), r.jumped, queued)
	}
	fmt.Println("\noutputs (JSON re-indented for reading; the model wrote the whitespace the grammar allows):")
	for _, r := range all {
		fmt.Printf("\n%s (%s):\n%s\n", r.name, r.kind(), document(r, vocab))
	}
	fmt.Printf("\n%d requests: %d done, %d failed\n", len(all), done, failed)
	fmt.Printf("compiler: %d requests, %d compiles (%d failed), %d joined a running compile, %d cache hits, %d grammars cached (%.1f MiB)\n",
		st.Requests, st.Compiles, st.Failures, st.Joins, st.Hits, st.Entries, float64(st.Bytes)/(1<<20))
	if len(fills) > 0 {
		s := slices.Clone(fills)
		slices.Sort(s)
		fmt.Printf("batch fill: %d steps, p50 %s, p99 %s, max %s\n", len(s), us(s[len(s)/2]), us(s[(len(s)-1)*99/100]), us(s[len(s)-1]))
	}
}

// document is a request's output as a person reads it: JSON re-indented
// (and checked), other text as written, an error as its message; each line
// indented.
func document(r *request, vocab *tokenizer.Vocab) string {
	out := r.output(vocab)
	var text string
	switch k := r.kind(); {
	case r.err != nil:
		text = "error: " + r.err.Error()
	case k == "json-schema" || k == "json":
		var buf bytes.Buffer
		if err := json.Indent(&buf, out, "", "  "); err != nil {
			text = fmt.Sprintf("%q (NOT valid JSON: %v)", out, err)
		} else {
			text = buf.String()
		}
	case utf8.Valid(out) && !bytes.ContainsFunc(out, func(c rune) bool { return c < ' ' }):
		text = string(out)
	default:
		text = fmt.Sprintf("%q", out)
	}
	return "    " + strings.ReplaceAll(text, "\n", "\n    ")
}

func us(d time.Duration) string { return fmt.Sprintf("%.0fµs", float64(d.Nanoseconds())/1e3) }
