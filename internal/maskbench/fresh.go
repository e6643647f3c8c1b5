package maskbench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"
	"weak"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/internal/latency"
	"github.com/reinlm/rein/mask"
)

// FreshReport is the fresh-process line of a run (RunFresh): the schemas'
// results and masks as Run records them, and the figures a server sees on
// its first pass over each schema.
type FreshReport struct {
	Report
	PerSchema bool // every schema as if in a process of its own

	// Compile runs from CompileAsync to the first poll that found the
	// handle Ready, for the schemas that compiled (Report's CompileTime).
	Compile latency.Sample
	// FirstMask runs from Ready to the end of the first mask of the
	// schema's first instance (Report's FirstMask).
	FirstMask latency.Sample

	PeakRSS int64 // the process's peak resident memory in bytes (VmHWM); -1 where unknown
	// SharedIndexBytes is mask.SharedIndexBytes at the end of the run; with
	// PerSchema, the sum of each schema's, taken before the next reset.
	SharedIndexBytes int
	// GrammarBytes sums Compiled.MemoryBytes over the distinct grammars,
	// each measured after its last schema was run (a grammar the
	// Compiler's cache served twice counts once).
	GrammarBytes int
}

// RunFresh runs the protocol as a server meets each schema for the first
// time, for a process that has compiled nothing yet (the caller sees to
// that: it warms nothing but the Encoder and a rein.Compiler, which a server
// builds at start). Each schema is compiled by a Compiler with one worker
// through CompileAsync, with o.Schema as the spec's options, and the handle
// is polled until Ready; its instances are then fed as Run feeds them, every
// mask timed. With o.PerSchemaFresh, each schema gets a Compiler of its own
// and the vocabulary's shared index is reset before it, so nothing is shared
// between schemas.
func RunFresh(o Options) (*FreshReport, error) {
	files, enc, err := listFiles(o)
	if err != nil {
		return nil, err
	}
	r := &FreshReport{PerSchema: o.PerSchemaFresh}
	if o.ThreadCPU {
		if !haveThreadCPU {
			return nil, errors.New("maskbench: a thread's CPU time is read on Linux only")
		}
		// The masks run on this goroutine; its thread's clock is theirs.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		r.threadCPU = true
	}
	var c *rein.Compiler
	newCompiler := func() error {
		c, err = rein.NewCompiler(o.Vocab, rein.CompilerOptions{Workers: 1, WarmWorkers: o.WarmWorkers, PrepareWork: o.PrepareWork})
		return err
	}
	if err := newCompiler(); err != nil {
		return nil, err
	}
	var last *mask.Compiled
	compile := func(schema []byte) (*mask.Compiled, error) {
		h := c.CompileAsync(context.Background(), rein.Spec{Kind: rein.KindJSONSchema, Source: string(schema), Schema: o.Schema})
		for !h.Ready() {
			runtime.Gosched()
		}
		last = h.Compiled()
		return last, h.Err()
	}
	grammars := map[weak.Pointer[mask.Compiled]]int{}
	start := time.Now()
	bm := mask.NewBitmask(1, o.Vocab.Size())
	for i, f := range files {
		if o.PerSchemaFresh && i > 0 {
			r.SharedIndexBytes += mask.SharedIndexBytes(o.Vocab)
			mask.ResetSharedIndex(o.Vocab)
			if err := newCompiler(); err != nil {
				return nil, err
			}
		}
		last = nil
		res := runFile(f, o, enc, bm, &r.Report, compile, false)
		r.Schemas = append(r.Schemas, res)
		if res.CompileErr == "" {
			r.Compile.Add(res.CompileTime)
			if res.FirstMask > 0 {
				r.FirstMask.Add(res.FirstMask)
			}
		}
		if last != nil {
			grammars[weak.Make(last)] = last.MemoryBytes()
		}
		r.logFile(o, i, len(files), start, res)
	}
	r.Wall = time.Since(start)
	r.SharedIndexBytes += mask.SharedIndexBytes(o.Vocab)
	for _, n := range grammars {
		r.GrammarBytes += n
	}
	r.PeakRSS = peakRSS()
	return r, nil
}

// logFile logs file i's failure and the run's progress, as o asks.
func (r *Report) logFile(o Options, i, n int, start time.Time, res SchemaResult) {
	if o.Log != nil && !res.Passed {
		msg := res.CompileErr
		if msg == "" {
			msg = res.Failure
		}
		fmt.Fprintf(o.Log, "FAIL %s: %s\n", filepath.Base(res.File), oneLine(msg, 300))
	}
	if o.Log != nil && (i+1)%500 == 0 {
		fmt.Fprintf(o.Log, "... %d/%d files, %v\n", i+1, n, time.Since(start).Round(time.Second))
	}
	if o.Progress != nil {
		o.Progress(i+1, n)
	}
}

// peakRSS returns the process's peak resident memory in bytes, from
// /proc/self/status, or -1 where there is none.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:"))
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte("kB")))), 10, 64)
		if err != nil {
			return -1
		}
		return kb << 10
	}
	return -1
}

// mib renders a byte count in MiB, or "n/a" for a negative one.
func mib(n int64) string {
	if n < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// us renders d in microseconds.
func us(d time.Duration) string { return fmt.Sprintf("%.1f us", float64(d.Nanoseconds())/1e3) }

// ms renders d in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Nanoseconds())/1e6) }

// Summary is one line: "fresh:" (or "fresh per schema:"), the pass count,
// compile-to-Ready and Ready-to-first-mask p50, p99 and max, the masks'
// count and percentiles, masks per second of mask time, peak RSS, the shared
// index and the grammars' own memory; with Options.ThreadCPU, then the
// percentiles of the masks' thread CPU time and the masks whose thread was
// off the CPU for over offCPUStall.
func (r *FreshReport) Summary() string {
	name := "fresh"
	if r.PerSchema {
		name = "fresh per schema"
	}
	rate := 0.0
	if t := r.Masks.Total(); t > 0 {
		rate = float64(r.Masks.Len()) / t.Seconds()
	}
	line := fmt.Sprintf("%s: passed %d/%d, compile-to-Ready p50 %s p99 %s max %s, first mask p50 %s p99 %s max %s, "+
		"masks %d %s, %.0f masks/s, peak RSS %s, shared index %s, grammars %s",
		name, r.Passed(), len(r.Schemas),
		ms(r.Compile.Quantile(0.5)), ms(r.Compile.Quantile(0.99)), ms(r.Compile.Max()),
		ms(r.FirstMask.Quantile(0.5)), ms(r.FirstMask.Quantile(0.99)), ms(r.FirstMask.Max()),
		r.Masks.Len(), r.Masks.String(), rate,
		mib(r.PeakRSS), mib(int64(r.SharedIndexBytes)), mib(int64(r.GrammarBytes)))
	line += fmt.Sprintf("; decode-path work: %d masks, steps p99 %d p99.9 %d max %d",
		len(r.MaskWork), workQuantile(r.MaskWork, 0.99), workQuantile(r.MaskWork, 0.999), workQuantile(r.MaskWork, 1))
	if r.threadCPU {
		// The low percentiles are left out: two reads of the clock add a
		// microsecond or two to each.
		line += fmt.Sprintf("; thread CPU per mask p99 %s p99.9 %s max %s, off the CPU over %v: %d masks (longest %s), thread clock ahead of the wall clock: %d masks (left out)",
			us(r.MaskCPU.Quantile(0.99)), us(r.MaskCPU.Quantile(0.999)), us(r.MaskCPU.Max()), offCPUStall, r.OffCPU, ms(r.MaxOffCPU), r.ClockAhead)
	}
	return line
}
