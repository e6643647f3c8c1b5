// Command maskbench runs JSONSchemaBench's MaskBench protocol with rein:
//
//	go run ./cmd/maskbench [-data DIR] [-tokenizer tokenizer.json]
//
// The schemas default to the full set ($REIN_MASKBENCH_DIR, else
// ../shared/data/maskbench beside the checkout), else the sample committed
// in testdata/maskbench-sample; the tokenizer to Llama-3's as `make vocab`
// caches it. On a terminal it draws a progress line on stderr (schemas done,
// rate, time left).
//
// For every schema file it compiles the schema (timing compile plus first
// mask), feeds each test instance — serialized compactly in document order
// and tokenized with rein's Encoder — token by token, timing every mask, and
// checks that valid instances are accepted to the end and invalid ones
// refused. It prints a table by dataset and, last, the summary line.
//
// With -jumpforward it measures jump-forward decoding instead: each valid
// instance is decoded by a model that wants exactly that document, with the
// grammar's forced bytes appended as canonical tokens between model steps;
// it prints, by dataset, the share of tokens jump-forward delivered, the
// model steps saved and the tokens that differ from the Encoder's own
// encoding. Schemas are compiled with compact whitespace there (no
// whitespace between JSON tokens) unless -compact=false:
//
//	go run ./cmd/maskbench -jumpforward
//
// With -append-only too, the Forwarder never replaces a token the sequence
// has (jumpforward.Options.AppendOnly, for engines that cannot rewrite
// their KV cache); the table's "rolled back" column is then 0. With
// -lexemes the model writes each JSON lexeme in tokens of its own (`"` alone
// after a string), which is where the two modes differ.
//
// With -fresh it measures the first pass instead, as a server sees it, in a
// process that has compiled nothing yet: each schema is compiled through a
// rein.Compiler (one worker, CompileAsync, polled until Ready), then its
// instances are fed as above. After the table it prints one line starting
// "fresh:": the pass count, compile-to-Ready and Ready-to-first-mask
// percentiles, the masks' percentiles and rate, peak RSS, and the memory of
// the shared index and of the grammars. -fresh-per-schema does the same with
// a new Compiler and an empty shared index for every schema, as if each came
// to a new process ("fresh per schema:"). The Compiler runs with its default
// options: -prepare sets the classification it does before Ready
// (CompilerOptions.PrepareWork; -1 turns it off) and -warm its background
// warming goroutines (WarmWorkers; none by default). Decoding starts the
// moment a compile is Ready, unless -prefill D pauses D first, as an
// engine's prefill would, which warming can use:
//
//	go run ./cmd/maskbench -fresh -every 16
//	go run ./cmd/maskbench -fresh -warm 1 -prefill 20ms
//
// -thread-cpu (Linux) also reads the CPU time of the thread each mask runs
// on, and adds to the line its percentiles and the masks whose thread was
// off the CPU for over a millisecond: on a busy machine the slowest masks
// by the clock may be ones that waited for a core, not ones that worked.
// Masks whose thread clock ran ahead of the wall clock are counted and left
// out: some virtual machines' thread clocks jump.
//
// With -stalls D it only spins one goroutine for D reading the clock and
// prints the gaps between reads ("stalls:"): time the machine took from a
// thread that did nothing else. On a virtual machine they bound from below
// the slowest masks a run there can report by the clock:
//
//	go run ./cmd/maskbench -stalls 60s
//
// With -batch N it decodes the valid instances as an engine's scheduler
// would, N sequences at a time, compiling each batch's schemas with
// CompileAsync on -compile-workers compile goroutines (default 1);
// sequences join the steps once their grammar is Ready, and each step fills
// the ready rows with a mask.BatchFiller of -workers goroutines (default 2).
// It prints one line starting "fresh batch": the outcomes, the per-step fill
// percentiles, those again for the steps where a row classified a node and
// for the others, and compile-to-Ready, at Ready and as the steps saw it.
// -warm and -prepare set the Compiler's options here too:
//
//	go run ./cmd/maskbench -batch 64 -workers 2 -every 16
//	go run ./cmd/maskbench -batch 64 -workers 2 -warm 1 -every 16
//
// With -continuous as well, the batch is continuous, as vLLM's scheduler
// keeps it: a sequence that finishes gives its slot to the next one, whose
// compile is asked for then ("fresh continuous batch"). With -forward D
// each step is followed by a pause of D, as the model's forward pass: without
// one, sequences finish faster than their successors compile, and the slots
// wait for the compile worker.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/maskbench"
	"github.com/reinlm/rein/tokenizer"
)

func main() {
	data := flag.String("data", defaultData(), "folder of MaskBench schema files")
	tok := flag.String("tokenizer", filepath.Join(datadir.TokenizersDir(), "llama3", "tokenizer.json"), "tokenizer.json of the model")
	jsonOut := flag.String("json", "", "write per-schema results to this file as JSON")
	every := flag.Int("every", 1, "run every n-th file (in name order)")
	limit := flag.Int("limit", 0, "run at most this many files")
	lenient := flag.Bool("lenient", false, "ignore keywords that cannot be enforced (listed as warnings)")
	order := flag.String("order", "auto", "object property order: auto (jsonschema.OrderAuto, the default), declared (the default with -jumpforward) or any")
	verbose := flag.Bool("v", false, "log every failing schema")
	jump := flag.Bool("jumpforward", false, "measure jump-forward decoding on the valid instances instead of masks")
	appendOnly := flag.Bool("append-only", false, "with -jumpforward: never roll back a token (jumpforward.Options.AppendOnly)")
	lexemes := flag.Bool("lexemes", false, "with -jumpforward: the model writes each JSON lexeme in tokens of its own, not the document's canonical tokens")
	compact := flag.Bool("compact", false, "compile schemas with compact whitespace (default with -jumpforward)")
	fresh := flag.Bool("fresh", false, "measure the first pass through a rein.Compiler, as in a fresh server process")
	freshPerSchema := flag.Bool("fresh-per-schema", false, "like -fresh, with a new Compiler and an empty shared index for every schema")
	warm := flag.Int("warm", 0, "with -fresh, -fresh-per-schema or -batch: the Compiler's background warming goroutines (0: none, its default)")
	prefill := flag.Duration("prefill", 0, "with -fresh or -fresh-per-schema: the pause between each compile's Ready and its first mask, as an engine's prefill (0: none)")
	prepare := flag.Int64("prepare", 0, "with -fresh, -fresh-per-schema or -batch: the Compiler's classification work before Ready (0: its default, -1: none)")
	batch := flag.Int("batch", 0, "decode the valid instances in batches of this many sequences, in a fresh process (0: off)")
	forward := flag.Duration("forward", 0, "with -batch: the pause after each step, as the model's forward pass (0: none)")
	continuous := flag.Bool("continuous", false, "with -batch: continuous batching (a finished sequence's slot takes the next sequence at once)")
	workers := flag.Int("workers", 2, "BatchFiller goroutines for -batch")
	compileWorkers := flag.Int("compile-workers", 1, "with -batch: compiles run at once (CompilerOptions.Workers)")
	threadCPU := flag.Bool("thread-cpu", false, "with -fresh, -fresh-per-schema or -batch (Linux): also read each mask's (with -batch, each step caller's) thread CPU time, to tell a slow mask from one whose thread was off the CPU")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	stalls := flag.Duration("stalls", 0, "only spin one goroutine this long reading the clock, and print the gaps: the machine's own stalls")
	flag.Parse()
	if *stalls > 0 {
		fmt.Println(maskbench.Stalls(*stalls).Summary())
		return
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	compactSet := false
	flag.Visit(func(f *flag.Flag) { compactSet = compactSet || f.Name == "compact" })

	vocab, err := tokenizer.LoadHF(*tok, tokenizer.LoadOptions{})
	if err != nil {
		fail(err)
	}
	opts := maskbench.Options{Dir: *data, Vocab: vocab, Every: *every, Limit: *limit}
	opts.Schema.Lenient = *lenient
	orderSet := false
	flag.Visit(func(f *flag.Flag) { orderSet = orderSet || f.Name == "order" })
	if *jump && !orderSet {
		*order = "declared" // keys are forced only in declared order
	}
	switch *order {
	case "auto":
	case "declared":
		opts.Schema.Order = jsonschema.OrderDeclared
	case "any":
		opts.Schema.Order = jsonschema.OrderAny
	default:
		fail(fmt.Errorf("-order %q: want auto, declared or any", *order))
	}
	var log io.Writer = os.Stderr
	if isTerminal(os.Stderr) {
		p := &progress{w: os.Stderr, start: time.Now()}
		opts.Progress = p.update
		log = p
	}
	if *verbose {
		opts.Log = log
	}
	if *compact || (*jump && !compactSet) {
		opts.Schema.Whitespace = jsonschema.WhitespaceCompact
	}
	if *jump {
		opts.AppendOnly, opts.Lexemes = *appendOnly, *lexemes
		rep, err := maskbench.RunJumpForward(opts)
		if err != nil {
			fail(err)
		}
		rep.WriteTable(os.Stdout)
		writeJSON(*jsonOut, rep.Schemas)
		return
	}
	// -warm and -prepare set the Compiler's options in every fresh mode.
	opts.WarmWorkers = *warm
	opts.PrepareWork = *prepare
	if *batch > 0 {
		opts.Forward = *forward
		opts.CompileWorkers = *compileWorkers
		opts.ThreadCPU = *threadCPU
		run := maskbench.RunFreshBatch
		if *continuous {
			run = maskbench.RunFreshContinuous
		}
		rep, err := run(opts, *batch, *workers)
		if err != nil {
			fail(err)
		}
		if *verbose {
			for _, f := range rep.Failures {
				fmt.Fprintln(log, "FAIL", f)
			}
		}
		fmt.Println(rep.Summary())
		return
	}
	if *fresh || *freshPerSchema {
		opts.PerSchemaFresh = *freshPerSchema
		opts.Prefill = *prefill
		opts.ThreadCPU = *threadCPU
		rep, err := maskbench.RunFresh(opts)
		if err != nil {
			fail(err)
		}
		rep.WriteTable(os.Stdout)
		fmt.Println(rep.Summary())
		writeJSON(*jsonOut, rep.Schemas)
		return
	}
	rep, err := maskbench.Run(opts)
	if err != nil {
		fail(err)
	}
	rep.WriteTable(os.Stdout)
	writeJSON(*jsonOut, rep.Schemas)
}

// defaultData is the full MaskBench set when there is one, else the
// committed sample.
func defaultData() string {
	if d := datadir.MaskBenchFullDir(); d != "" {
		return d
	}
	return filepath.Join(datadir.Root(), "testdata", "maskbench-sample")
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progress draws one line on a terminal: schemas done, rate, time left.
// Log lines written through it clear the line first.
type progress struct {
	w           io.Writer
	start, last time.Time
	line        bool // a progress line is on the screen
}

func (p *progress) update(done, total int) {
	now := time.Now()
	if done < total && now.Sub(p.last) < 250*time.Millisecond {
		return
	}
	p.last = now
	if done == total {
		p.clear()
		return
	}
	elapsed := now.Sub(p.start)
	rate := float64(done) / elapsed.Seconds()
	left := time.Duration(float64(total-done) / rate * float64(time.Second))
	fmt.Fprintf(p.w, "\r\033[K%d/%d schemas (%.0f%%)  %.1f schemas/s  %v elapsed  about %v left",
		done, total, 100*float64(done)/float64(total), rate, elapsed.Round(time.Second), left.Round(time.Second))
	p.line = true
}

func (p *progress) clear() {
	if p.line {
		fmt.Fprint(p.w, "\r\033[K")
		p.line = false
	}
}

// Write writes a log line, clearing the progress line first; the next
// update draws it again.
func (p *progress) Write(b []byte) (int, error) {
	p.clear()
	return p.w.Write(b)
}

// writeJSON writes the per-schema results to path, if one was given.
func writeJSON(path string, v any) {
	if path == "" {
		return
	}
	b, err := json.MarshalIndent(v, "", " ")
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "maskbench:", err)
	os.Exit(1)
}
