package maskbench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/internal/latency"
	"github.com/reinlm/rein/mask"
)

// BatchReport is the outcome of RunFreshBatch.
type BatchReport struct {
	Size, Workers  int  // sequences per batch, BatchFiller workers
	CompileWorkers int  // compiles run at once (Options.CompileWorkers)
	Continuous     bool // RunFreshContinuous's: a finished sequence's slot takes the next
	Sequences      int  // valid instances decoded
	Accepted       int  // sequences whose every token and end the masks allowed
	Refused        int  // sequences a mask refused (a token, the end), or whose row failed
	CompileFailed  int  // sequences whose schema did not compile
	Failures       []string

	Batches, Steps int
	Rows           int            // rows filled, over all steps
	Step           latency.Sample // one BatchFiller.Fill of a step's ready rows
	// Classifying is the steps of Step in which a row classified a node on
	// the decode path (mask.IndexStats.Work grew: no warming, compile or
	// other grammar had done it), Other the rest.
	Classifying, Other latency.Sample
	// Compile runs, for each sequence, from its CompileAsync to its
	// handle's Ready, as a goroutine waiting on it saw it (or the step,
	// where that saw it first).
	Compile latency.Sample
	// Seen runs from the CompileAsync to the first step that found the
	// handle Ready: what a scheduler that looks once a step waits. With a
	// forward pass, it is at least the pass.
	Seen latency.Sample
	// With Options.ThreadCPU: StepCPU is the CPU time of the step's caller
	// (of its thread, to which it is locked for the step), StepOff the rest
	// of the step's time: waits for the helpers' rows, for nodes other
	// goroutines classify, for a processor, for the machine.
	StepCPU, StepOff latency.Sample
	PeakRSS          int64 // the process's peak resident memory in bytes (VmHWM); -1 where unknown
	Wall             time.Duration
	Filler           mask.FillerStats // the BatchFiller's, at the end of the run

	finished int // sequences done, for Options.Progress
}

// maxFailures bounds the failures a BatchReport keeps.
const maxFailures = 20

// sequence is one valid instance of one schema, decoded in a batch.
type sequence struct {
	file   string
	schema []byte
	ids    []int

	h     *rein.Handle
	asked time.Time      // when the compile was asked for
	ready chan time.Time // when the handle was Ready, sent once
	m     *mask.Matcher
	pos   int // tokens accepted
}

// RunFreshBatch decodes the valid instances of the MaskBench files as an
// engine's scheduler would in a fresh process: sequences in file order, size
// at a time. When a batch is formed, each sequence's schema is compiled with
// CompileAsync on a Compiler with one worker (identical schemas join one
// compile, or hit its cache); a sequence sits out the steps until its handle
// is Ready. Each step fills the rows of the ready, unfinished sequences with
// a BatchFiller of workers goroutines, timed as one figure, then gives each
// sequence its next token, checking that its mask allowed it, or, after its
// last token, that its mask allowed the end; then it waits o.Forward, the
// model's forward pass. The next batch starts when every sequence of this
// one is done.
func RunFreshBatch(o Options, size, workers int) (*BatchReport, error) {
	return runFreshBatch(o, size, workers, false)
}

// RunFreshContinuous is RunFreshBatch with continuous batching, as vLLM's
// scheduler does: the batch has size slots, and the step after a sequence
// finishes (or its compile fails), the next sequence takes its slot and
// asks for its compile. Compiles arrive as sequences end, not a batch's
// at once, and every step fills the rows of up to size sequences.
func RunFreshContinuous(o Options, size, workers int) (*BatchReport, error) {
	return runFreshBatch(o, size, workers, true)
}

func runFreshBatch(o Options, size, workers int, continuous bool) (*BatchReport, error) {
	if size < 1 || workers < 1 {
		return nil, fmt.Errorf("maskbench: batch size %d and workers %d must be positive", size, workers)
	}
	if o.ThreadCPU && !haveThreadCPU {
		return nil, errors.New("maskbench: a thread's CPU time is read on Linux only")
	}
	files, enc, err := listFiles(o)
	if err != nil {
		return nil, err
	}
	var seqs []*sequence
	for _, f := range files {
		schema, tests, err := readFile(f, enc)
		if err != nil {
			return nil, err
		}
		for _, tc := range tests {
			if tc.valid && tc.err == nil {
				seqs = append(seqs, &sequence{file: f, schema: schema, ids: tc.ids})
			}
		}
	}
	compilers := max(o.CompileWorkers, 1)
	c, err := rein.NewCompiler(o.Vocab, rein.CompilerOptions{Workers: compilers, WarmWorkers: o.WarmWorkers, PrepareWork: o.PrepareWork})
	if err != nil {
		return nil, err
	}
	filler := mask.NewBatchFiller(workers)
	defer filler.Close() // on an error; again below is a no-op
	r := &BatchReport{Size: size, Workers: workers, CompileWorkers: compilers, Continuous: continuous, Sequences: len(seqs)}
	start := time.Now()
	bm := mask.NewBitmask(size, o.Vocab.Size())
	chunk := size
	if continuous {
		chunk = max(len(seqs), 1)
	}
	for i := 0; i < len(seqs); i += chunk {
		if err := r.runBatch(o, c, filler, bm, seqs[i:min(i+chunk, len(seqs))], size, continuous); err != nil {
			return nil, err
		}
	}
	r.Wall = time.Since(start)
	r.PeakRSS = peakRSS()
	filler.Close() // its goroutines' last counts are in once they exit
	r.Filler = filler.Stats()
	return r, nil
}

// runBatch decodes seqs to the end in size slots; the sequence in slot i
// owns row i of bm. Without refill, seqs is one batch (no more than size);
// with it, a slot freed by a finished sequence takes the next one. It
// fails only when a Fill call itself is refused, a bug in the runner.
func (r *BatchReport) runBatch(o Options, c *rein.Compiler, filler *mask.BatchFiller, bm *mask.Bitmask, seqs []*sequence, size int, refill bool) error {
	slots := make([]*sequence, min(size, len(seqs)))
	next := 0
	admit := func(i int) {
		s := seqs[next]
		next++
		s.asked = time.Now()
		s.h = c.CompileAsync(context.Background(), rein.Spec{Kind: rein.KindJSONSchema, Source: string(s.schema), Schema: o.Schema})
		s.ready = make(chan time.Time, 1)
		go func(h *rein.Handle, ready chan<- time.Time) {
			h.Wait(context.Background())
			ready <- time.Now()
		}(s.h, s.ready)
		slots[i] = s
	}
	for i := range slots {
		admit(i)
	}
	r.Batches++
	// finish frees slot i, and fills it again where the batch refills.
	left := len(slots)
	finish := func(i int) {
		slots[i] = nil
		r.progress(o)
		if refill && next < len(seqs) {
			admit(i)
		} else {
			left--
		}
	}
	var (
		matchers []*mask.Matcher
		rows     []int
		errs     []error
		live     []*sequence
	)
	for left > 0 {
		matchers, rows, live = matchers[:0], rows[:0], live[:0]
		for i, s := range slots {
			if s == nil {
				continue
			}
			if s.m == nil {
				if !s.h.Ready() {
					continue
				}
				seen := time.Since(s.asked)
				r.Seen.Add(seen)
				// The waiting goroutine may not have run yet (a cache hit is
				// Ready at once): its stamp would be no sooner than now, and
				// the step does not wait for it.
				select {
				case at := <-s.ready:
					r.Compile.Add(min(at.Sub(s.asked), seen))
				default:
					r.Compile.Add(seen)
				}
				if err := s.h.Err(); err != nil {
					r.CompileFailed++
					r.fail(s, "compile: "+err.Error())
					s.h = nil
					finish(i)
					continue
				}
				s.m = s.h.Compiled().NewMatcher()
			}
			matchers, rows, live = append(matchers, s.m), append(rows, i), append(live, s)
		}
		if len(live) == 0 {
			// Every unfinished sequence waits for its compile: sleep a
			// moment, as a scheduler with nothing to run would, rather
			// than spin beside the compile worker.
			time.Sleep(idlePoll)
			continue
		}
		errs = slices.Grow(errs[:0], len(live))[:len(live)]
		work := decodeWork(live)
		var cpu time.Duration
		if o.ThreadCPU {
			// Locked, the caller's thread runs nothing else while the
			// caller waits in the step (a wait then wakes this thread, a
			// few microseconds more): its CPU time is the caller's.
			runtime.LockOSThread()
			cpu = threadCPU()
		}
		t := time.Now()
		err := filler.Fill(matchers, bm, rows, errs)
		d := time.Since(t)
		if o.ThreadCPU {
			cpu = threadCPU() - cpu
			runtime.UnlockOSThread()
			r.StepCPU.Add(cpu)
			// The two clocks are read apart: a step the thread spent on
			// the CPU throughout may read a little more CPU than wall.
			r.StepOff.Add(max(d-cpu, 0))
		}
		// An error with no row's error is the call's: the runner's bug.
		if err != nil && !slices.ContainsFunc(errs, isErr) {
			return err
		}
		r.Step.Add(d)
		if decodeWork(live) != work {
			r.Classifying.Add(d)
		} else {
			r.Other.Add(d)
		}
		r.Steps++
		r.Rows += len(live)
		for k, s := range live {
			if r.step(o, s, bm, rows[k], errs[k]) {
				// An engine lets a finished request's grammar go.
				s.m, s.h = nil, nil
				finish(rows[k])
			}
		}
		if o.Forward > 0 {
			time.Sleep(o.Forward)
		}
	}
	return nil
}

// decodeWork sums the decode-path classification work of the sequences'
// grammars (a grammar counted once per sequence): it grows across a step
// only where one of them classified a node.
func decodeWork(live []*sequence) int64 {
	var w int64
	for _, s := range live {
		w += s.m.Compiled().IndexStats().Work
	}
	return w
}

// progress counts a finished sequence and reports the run's progress.
func (r *BatchReport) progress(o Options) {
	r.finished++
	if o.Progress != nil && (r.finished%r.Size == 0 || r.finished == r.Sequences) {
		o.Progress(r.finished, r.Sequences)
	}
}

// idlePoll is how long a step loop with no ready sequence sleeps before
// it looks at the compiles again.
const idlePoll = 20 * time.Microsecond

// isErr reports whether err is not nil.
func isErr(err error) bool { return err != nil }

// step checks s's freshly filled row and gives s its next token, and
// reports whether s is done: accepted, or failed.
func (r *BatchReport) step(o Options, s *sequence, bm *mask.Bitmask, row int, rowErr error) (done bool) {
	defer func() {
		// A panic is a bug in rein; it fails this sequence, not the run.
		if p := recover(); p != nil {
			r.Refused++
			r.fail(s, fmt.Sprintf("panic: %v", p))
			done = true
		}
	}()
	if rowErr != nil {
		r.Refused++
		r.fail(s, rowErr.Error())
		return true
	}
	if s.pos == len(s.ids) {
		for _, stop := range o.Vocab.StopTokens() {
			if bm.Allowed(row, stop) {
				r.Accepted++
				return true
			}
		}
		r.Refused++
		r.fail(s, "end refused")
		return true
	}
	id := s.ids[s.pos]
	if !bm.Allowed(row, id) {
		r.Refused++
		r.fail(s, fmt.Sprintf("token %d %q refused at token %d", id, o.Vocab.Bytes(id), s.pos))
		return true
	}
	if !s.m.AcceptToken(id) {
		r.Refused++
		r.fail(s, fmt.Sprintf("mask allowed token %d %q but AcceptToken refused it", id, o.Vocab.Bytes(id)))
		return true
	}
	s.pos++
	return false
}

// fail records s's failure, keeping the first maxFailures.
func (r *BatchReport) fail(s *sequence, why string) {
	if len(r.Failures) < maxFailures {
		r.Failures = append(r.Failures, filepath.Base(s.file)+": "+oneLine(why, 300))
	}
}

// Summary is one line: "fresh batch" (or "fresh continuous batch"), the
// batch shape, the sequences' outcomes, the steps' count and percentiles,
// the rows per step and the share of them the filler's own goroutines
// filled, the steps' percentiles split by whether a row classified a node, compile-to-Ready p50, p99 and max, its p50 to the step that saw
// it, and peak RSS.
func (r *BatchReport) Summary() string {
	kind := "batch"
	if r.Continuous {
		kind = "continuous batch"
	}
	return fmt.Sprintf("fresh %s %d x %d workers, %d compiling: %d sequences, accepted %d, refused %d, compile failed %d; "+
		"%d steps (%.1f rows/step, %.0f%% by helpers) %s; steps where a row classified a node: %d, %s, the others %s; compile-to-Ready p50 %s p99 %s max %s (seen by a step: p50 %s); peak RSS %s",
		kind, r.Size, r.Workers, r.CompileWorkers, r.Sequences, r.Accepted, r.Refused, r.CompileFailed,
		r.Steps, float64(r.Rows)/float64(max(r.Steps, 1)), 100*float64(r.Filler.HelperRows)/float64(max(r.Filler.Rows, 1)), r.Step.String(),
		r.Classifying.Len(), r.Classifying.String(), r.Other.String(),
		ms(r.Compile.Quantile(0.5)), ms(r.Compile.Quantile(0.99)), ms(r.Compile.Max()), ms(r.Seen.Quantile(0.5)), mib(r.PeakRSS)) +
		r.cpuSummary()
}

// cpuSummary is the Summary's part for Options.ThreadCPU: the steps'
// caller CPU and off-CPU time, or nothing where they were not read.
func (r *BatchReport) cpuSummary() string {
	if r.StepCPU.Len() == 0 {
		return ""
	}
	return fmt.Sprintf("; the caller's thread CPU per step %s, the rest of the step %s", r.StepCPU.String(), r.StepOff.String())
}
