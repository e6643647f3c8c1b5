//go:build cuda

// Command cuda is rein's decoding loop with the logits on the GPU: a batch of
// sequences, each with its own matcher of the built-in JSON grammar over
// GPT-2's vocabulary, masked in place by rein's kernel on the engine's stream.
// The logits stand in for a model's: random values uploaded at every step (an
// engine's are already on the device). Only the rows of unfinished sequences
// are masked, through row indices. It prints each document and the time the
// host took to fill a bitmask and the GPU to mask the batch.
//
// Build and run on a GPU host (gorgonia.org/cu ends the process at start-up
// where there is none):
//
//	go run -tags cuda ./examples/cuda -batch 8
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"time"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/reinlm/rein/cuda"
	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

func main() {
	batch := flag.Int("batch", 4, "sequences decoded together")
	seed := flag.Uint64("seed", 42, "random seed for the logits")
	maxTokens := flag.Int("max-tokens", 64, "tokens to sample freely before steering to the end")
	flag.Parse()
	// The CUDA context is current on this thread only: keep main on it.
	runtime.LockOSThread()
	if err := run(*batch, *seed, *maxTokens); err != nil {
		fmt.Fprintln(os.Stderr, "cuda:", err)
		os.Exit(1)
	}
}

func run(batch int, seed uint64, maxTokens int) error {
	vocab, err := gpt2.Vocab()
	if err != nil {
		return err
	}
	compiled, err := mask.Compile(grammar.JSON(), vocab, mask.Options{})
	if err != nil {
		return err
	}

	// The engine's side: a context, a stream and device memory for the
	// logits, batch rows of the model's (padded) logit width.
	dev, err := cu.GetDevice(0)
	if err != nil {
		return err
	}
	ctx, err := dev.MakeContext(cu.SchedAuto)
	if err != nil {
		return err
	}
	defer func() { _ = ctx.Destroy() }()
	stream, err := cu.MakeStream(cu.NonBlocking)
	if err != nil {
		return err
	}
	defer func() { _ = stream.Destroy() }()
	width := vocab.LogitWidth()
	dlogits, err := cu.MemAlloc(int64(batch * width * 4))
	if err != nil {
		return err
	}
	defer func() { _ = cu.MemFree(dlogits) }()

	// rein's side: one masker for the context, one matcher per sequence, one
	// bitmask row per sequence still running.
	masker, err := cuda.NewMasker(cuda.ContextOf(ctx))
	if err != nil {
		return err
	}
	defer func() { _ = masker.Close() }()
	matchers := make([]*mask.Matcher, batch)
	for i := range matchers {
		matchers[i] = compiled.NewMatcher()
	}
	bitmask := mask.NewBitmask(batch, vocab.Size())
	logits := make([]float32, batch*width)
	docs := make([][]byte, batch)
	rng := rand.New(rand.NewPCG(seed, seed))
	var fill, apply []time.Duration

	for step := 0; ; step++ {
		var active []int // logit rows still decoding; bitmask row k is active[k]'s
		for i, m := range matchers {
			if !m.IsTerminated() {
				active = append(active, i)
			}
		}
		if len(active) == 0 {
			break
		}
		t := time.Now()
		for k, i := range active {
			if err := matchers[i].FillBitmask(bitmask, k); err != nil {
				return err
			}
		}
		fill = append(fill, time.Since(t)/time.Duration(len(active)))

		// The model's forward pass, stood in for by random logits.
		for i := range logits {
			logits[i] = rng.Float32()
		}
		if step >= maxTokens {
			for _, i := range active {
				steerToEnd(matchers[i], logits[i*width:(i+1)*width], vocab.Size())
			}
		}
		if err := cu.MemcpyHtoDAsync(dlogits, unsafe.Pointer(&logits[0]), int64(len(logits)*4), stream); err != nil {
			return err
		}

		t = time.Now()
		rows := cuda.Logits{Ptr: cuda.DevicePtr(dlogits), DType: cuda.Float32, Rows: batch, Width: width}
		if err := masker.ApplyBitmask(cuda.StreamOf(stream), rows, bitmask, active); err != nil {
			return err
		}
		if err := stream.Synchronize(); err != nil {
			return err
		}
		apply = append(apply, time.Since(t))

		// Sampling: greedy, on the host.
		if err := cu.MemcpyDtoH(unsafe.Pointer(&logits[0]), dlogits, int64(len(logits)*4)); err != nil {
			return err
		}
		for _, i := range active {
			id := argmax(logits[i*width : (i+1)*width])
			m := matchers[i]
			if !m.AcceptToken(id) {
				return fmt.Errorf("sequence %d, step %d: token %d was allowed but not accepted", i, step, id)
			}
			if !m.IsTerminated() {
				docs[i] = append(docs[i], vocab.Bytes(id)...)
			}
		}
	}
	for i, doc := range docs {
		fmt.Printf("%d (valid JSON: %v): %s\n", i, json.Valid(doc), doc)
	}
	fmt.Printf("\n%d steps; per sequence, fill bitmask p50 %v; per batch, GPU mask p50 %v (upload and launch included)\n",
		len(apply), pct(fill, 0.5), pct(apply, 0.5))
	return nil
}

// steerToEnd raises the logits of the tokens that bring the document closest
// to a possible end, as a model asked to stop would.
func steerToEnd(m *mask.Matcher, logits []float32, n int) {
	best := m.BytesToEnd()
	for id := 0; id < n; id++ {
		if !m.AcceptToken(id) {
			continue
		}
		if m.IsTerminated() || m.BytesToEnd() < best {
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
