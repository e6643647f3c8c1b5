// Package maskbench runs JSONSchemaBench's MaskBench protocol over a folder
// of schema files: compile each schema (timing compile plus first mask), feed
// each test instance token by token through a Matcher (timing every mask),
// and count the schemas whose valid instances are all accepted and invalid
// ones all refused. cmd/maskbench is its command line; rein's CI runs it
// over a fixed sample and fails below a floor.
//
// Run warms the vocabulary's index first and compiles with package mask
// directly. RunFresh is the fresh-process line: it warms nothing, compiles
// through a rein.Compiler as a server does, and reports what a server sees
// on its first pass (compile-to-Ready, Ready to first mask, every mask, peak
// memory); RunFreshBatch decodes the valid instances in batches through a
// mask.BatchFiller, as an engine's scheduler would.
package maskbench

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tidwall/gjson"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/latency"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

// Options say what to run.
type Options struct {
	Dir    string           // folder of MaskBench files
	Vocab  *tokenizer.Vocab // the tokenizer the masks are for
	Schema jsonschema.Options
	Every  int       // run every Every-th file in name order (0 or 1: all)
	Limit  int       // stop after this many files (0: no limit)
	Log    io.Writer // progress and per-schema failures (nil: quiet)
	// Progress, when set, is called after each file with the files done
	// and the files to run (cmd/maskbench draws a progress line).
	Progress func(done, total int)
	// PerSchemaFresh makes RunFresh run every schema as if in a process of
	// its own: a new Compiler and an empty shared index for each.
	PerSchemaFresh bool
	// WarmWorkers is the fresh runners' rein.CompilerOptions.WarmWorkers:
	// goroutines classifying compiled grammars in the background (0: none,
	// the Compiler's default).
	WarmWorkers int
	// PrepareWork is the fresh runners' rein.CompilerOptions.PrepareWork:
	// the classification done before a compile is Ready (0: the
	// Compiler's default, negative: none).
	PrepareWork int64
	// Prefill is the fresh runners' pause between a compile's Ready and its
	// first mask, the time an engine spends in the request's prefill
	// (0: none, decoding starts at Ready). Background warming
	// (WarmWorkers) has it to classify the grammar's first nodes in.
	Prefill time.Duration
	// CompileWorkers is the batch runners' rein.CompilerOptions.Workers:
	// compiles that run at once, beside the BatchFiller's goroutines
	// (0: one).
	CompileWorkers int
	// Forward is the batch runners' pause after each step, the time an
	// engine's model takes to give the batch its next tokens (0: none,
	// the next step starts at once). Compiles have it to run in.
	Forward time.Duration
	// AppendOnly runs RunJumpForward with jumpforward.Options.AppendOnly:
	// no step replaces a token the sequence has.
	AppendOnly bool
	// ThreadCPU makes the fresh runners also read, around each mask, the
	// CPU time of the thread that runs it (Linux only; the runner's
	// goroutine is locked to its thread), so that a slow mask can be told
	// from one whose thread was off the CPU: FreshReport.MaskCPU and
	// OffCPU. The batch runners read it around each step, on the step's
	// caller, locked to its thread for the step (which makes each of its
	// waits for the helpers a thread's wake-up longer): BatchReport.StepCPU.
	ThreadCPU bool
	// Lexemes makes RunJumpForward's model write each JSON lexeme (a
	// string, a number, a literal, a punctuation byte, a run of whitespace)
	// in tokens of its own, the Encoder's encoding of the lexeme, instead
	// of the Encoder's encoding of the whole document: a model that ends a
	// token where the canonical one would go on (`"` alone after a
	// string), which is what canonical jump-forward steps roll back.
	Lexemes bool
}

// SchemaResult is the outcome for one schema file.
type SchemaResult struct {
	File, Dataset   string
	CompileErr      string        // "" when it compiled
	CompileTime     time.Duration // front-end and automaton
	FirstMask       time.Duration // the first mask after the compile
	Valid, Invalid  int           // instances
	ValidPassed     int
	InvalidPassed   int
	InvalidAccepted int
	Failure         string // the first failing instance, for the log
	Passed          bool
	MaxMask         time.Duration // the slowest of the schema's timed masks
	MaxMaskWork     int64         // the most decode-path work of one of them, in steps
}

// Report collects a run.
type Report struct {
	Schemas    []SchemaResult
	Masks      latency.Sample // every mask fed a token or asked for the end
	Classified latency.Sample // the masks among them that classified a node
	Tokens     int            // tokens fed, each after its mask
	Ends       int            // instances fed to their end, each end's mask taken
	Wall       time.Duration

	// With Options.ThreadCPU: each mask's thread CPU time, and the masks
	// whose thread was off the CPU for more than offCPUStall of their
	// time, with the longest such wait. ClockAhead counts the masks whose
	// thread clock ran ahead of the wall clock by more than clockSlack
	// (seen on this project's virtual machines: 13.5 ms of CPU in a mask of
	// 131 µs): their CPU time is not in MaskCPU.
	MaskCPU    latency.Sample
	OffCPU     int
	MaxOffCPU  time.Duration
	ClockAhead int

	// MaskWork holds, for each mask that did classification work on the
	// decode path, that work in steps (mask.IndexStats.Work): a count,
	// the same on any machine, where the clock's slowest masks are not.
	MaskWork []int64

	threadCPU bool          // read the thread's CPU time around each mask
	wantFirst bool          // the next timed mask is a schema's first
	firstEnd  time.Time     // when that mask ended
	maxMask   time.Duration // the slowest mask of the schema being run
	maxWork   int64         // and the most work one of its masks did
}

var datasetSuffix = regexp.MustCompile(`(---.*|_\d+)?\.json$`)

// Dataset is the MaskBench dataset a file belongs to: its name up to "---"
// (Github_easy---o10008.json) or without the trailing number (BFCL_java_12.json).
func Dataset(file string) string {
	return datasetSuffix.ReplaceAllString(filepath.Base(file), "")
}

// Files lists the MaskBench files of dir in name order, every every-th one.
func Files(dir string, every int) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("maskbench: no .json files in %s", dir)
	}
	sort.Strings(files)
	if every > 1 {
		var out []string
		for i := 0; i < len(files); i += every {
			out = append(out, files[i])
		}
		files = out
	}
	return files, nil
}

// prepare lists the files to run, builds the Encoder, and builds the
// vocabulary's shared index before anything is timed.
func prepare(o Options) ([]string, *tokenizer.Encoder, error) {
	files, enc, err := listFiles(o)
	if err != nil {
		return nil, nil, err
	}
	if _, err := mask.Compile(grammar.JSON(), o.Vocab, mask.Options{}); err != nil {
		return nil, nil, err
	}
	return files, enc, nil
}

// listFiles lists the files to run and builds the Encoder, warming nothing
// else.
func listFiles(o Options) ([]string, *tokenizer.Encoder, error) {
	files, err := Files(o.Dir, o.Every)
	if err != nil {
		return nil, nil, err
	}
	if o.Limit > 0 && len(files) > o.Limit {
		files = files[:o.Limit]
	}
	enc, err := o.Vocab.Encoder()
	if err != nil {
		return nil, nil, err
	}
	return files, enc, nil
}

// Run runs the protocol.
func Run(o Options) (*Report, error) {
	files, enc, err := prepare(o)
	if err != nil {
		return nil, err
	}
	r := &Report{}
	start := time.Now()
	bm := mask.NewBitmask(1, o.Vocab.Size())
	compile := func(schema []byte) (*mask.Compiled, error) {
		g, _, err := jsonschema.Compile(schema, o.Schema)
		if err != nil {
			return nil, err
		}
		return mask.Compile(g, o.Vocab, mask.Options{})
	}
	for i, f := range files {
		res := runFile(f, o, enc, bm, r, compile, true)
		r.Schemas = append(r.Schemas, res)
		r.logFile(o, i, len(files), start, res)
	}
	r.Wall = time.Since(start)
	return r, nil
}

func oneLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}

// compileFunc turns a schema into a compiled grammar, returning once the
// grammar is ready to mask.
type compileFunc func(schema []byte) (*mask.Compiled, error)

// instance is one test instance of a MaskBench file, serialized compactly
// in document order and tokenized with the Encoder.
type instance struct {
	valid bool
	text  string
	ids   []int
	err   error // the data is not JSON
}

// readFile reads a MaskBench file: its schema and its test instances.
func readFile(file string, enc *tokenizer.Encoder) ([]byte, []instance, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	doc := gjson.ParseBytes(raw)
	var tests []instance
	for _, tc := range doc.Get("tests").Array() {
		x := instance{valid: tc.Get("valid").Bool()}
		var buf bytes.Buffer
		if x.err = json.Compact(&buf, []byte(tc.Get("data").Raw)); x.err == nil {
			x.text = buf.String()
			x.ids = enc.Encode(x.text)
		}
		tests = append(tests, x)
	}
	return []byte(doc.Get("schema").Raw), tests, nil
}

// runFile compiles file's schema with compile and feeds it every test
// instance, tokenized before the compile starts. With probe, FirstMask is a
// first mask timed on a matcher of its own after the compile (Run's);
// without, it runs from the moment compile returned to the end of the first
// instance's first mask, which is also one of the masks fed.
func runFile(file string, o Options, enc *tokenizer.Encoder, bm *mask.Bitmask, r *Report, compile compileFunc, probe bool) (res SchemaResult) {
	res = SchemaResult{File: file, Dataset: Dataset(file)}
	defer func() {
		// A panic is a bug in rein; it fails this schema, not the run.
		if p := recover(); p != nil {
			res.Passed = false
			if res.CompileErr == "" && res.Failure == "" {
				res.CompileErr = fmt.Sprintf("panic: %v", p)
			} else {
				res.Failure = fmt.Sprintf("panic: %v", p)
			}
		}
	}()
	schema, tests, err := readFile(file, enc)
	if err != nil {
		res.CompileErr = err.Error()
		return res
	}
	t0 := time.Now()
	c, err := compile(schema)
	ready := time.Now()
	res.CompileTime = ready.Sub(t0)
	if err == nil && probe {
		t1 := time.Now()
		err = c.NewMatcher().FillBitmask(bm, 0)
		res.FirstMask = time.Since(t1)
	}
	if err != nil {
		res.CompileErr = err.Error()
		return res
	}
	if o.Prefill > 0 {
		time.Sleep(o.Prefill)
		ready = time.Now() // the first mask is timed from the end of the prefill
	}
	r.firstEnd, r.wantFirst, r.maxMask, r.maxWork = time.Time{}, !probe, 0, 0
	defer func() { r.wantFirst, res.MaxMask, res.MaxMaskWork = false, r.maxMask, r.maxWork }()
	m := c.NewMatcher()
	for k, tc := range tests {
		if tc.err != nil {
			res.Failure = fmt.Sprintf("test %d: %v", k, tc.err)
			continue
		}
		m.Reset()
		accepted, why := feed(m, tc.ids, bm, o.Vocab, r)
		if tc.valid {
			res.Valid++
			if accepted {
				res.ValidPassed++
			} else if res.Failure == "" {
				res.Failure = fmt.Sprintf("valid test %d refused: %s in %s", k, why, oneLine(tc.text, 200))
			}
		} else {
			res.Invalid++
			if !accepted {
				res.InvalidPassed++
			} else {
				res.InvalidAccepted++
				if res.Failure == "" {
					res.Failure = fmt.Sprintf("invalid test %d accepted: %s", k, oneLine(tc.text, 200))
				}
			}
		}
	}
	if !probe && !r.firstEnd.IsZero() {
		res.FirstMask = r.firstEnd.Sub(ready)
	}
	res.Passed = res.ValidPassed == res.Valid && res.InvalidPassed == res.Invalid
	return res
}

// feed runs one tokenized document, timing every mask. It reports whether
// every token and then the end were allowed, and if not, where it stopped.
func feed(m *mask.Matcher, ids []int, bm *mask.Bitmask, voc *tokenizer.Vocab, r *Report) (bool, string) {
	done := 0
	for _, id := range ids {
		if err := r.timeMask(m, bm); err != nil {
			return false, err.Error()
		}
		r.Tokens++
		allowed := bm.Allowed(0, id)
		if allowed != m.AcceptToken(id) {
			panic(fmt.Sprintf("mask and AcceptToken disagree on token %d %q", id, voc.Bytes(id)))
		}
		if !allowed {
			return false, fmt.Sprintf("token %d %q refused after %d bytes", id, voc.Bytes(id), done)
		}
		done += len(voc.Bytes(id))
	}
	if err := r.timeMask(m, bm); err != nil {
		return false, err.Error()
	}
	r.Ends++
	for _, s := range voc.StopTokens() {
		if bm.Allowed(0, s) {
			return true, ""
		}
	}
	return false, "end refused"
}

// Passed counts the schemas that passed.
func (r *Report) Passed() int {
	n := 0
	for _, s := range r.Schemas {
		if s.Passed {
			n++
		}
	}
	return n
}

// InvalidAccepted counts invalid instances that were accepted.
func (r *Report) InvalidAccepted() int {
	n := 0
	for _, s := range r.Schemas {
		n += s.InvalidAccepted
	}
	return n
}

// offCPUStall is how long a mask's thread must have been off the CPU for
// Report.OffCPU to count it, and clockSlack how far its thread clock may
// run ahead of the wall clock before Report.ClockAhead counts it.
const (
	offCPUStall = time.Millisecond
	clockSlack  = 100 * time.Microsecond
)

// cpuReading says what a mask's thread CPU time cpu tells of its wall time
// wall.
type cpuReading int

const (
	cpuOnCPU      cpuReading = iota // the thread ran for most of the mask
	cpuOffCPU                       // it waited more than offCPUStall
	cpuClockAhead                   // its clock ran ahead: the reading is wrong
)

func readCPU(wall, cpu time.Duration) cpuReading {
	switch {
	case cpu > wall+clockSlack:
		return cpuClockAhead
	case wall-cpu > offCPUStall:
		return cpuOffCPU
	}
	return cpuOnCPU
}

// timeMask fills m's mask into row 0 of bm, timing it.
func (r *Report) timeMask(m *mask.Matcher, bm *mask.Bitmask) error {
	before := m.Compiled().IndexStats()
	var cpu time.Duration
	if r.threadCPU {
		cpu = threadCPU()
	}
	t := time.Now()
	err := m.FillBitmask(bm, 0)
	end := time.Now()
	d := end.Sub(t)
	if r.threadCPU {
		cpu = threadCPU() - cpu
		switch readCPU(d, cpu) {
		case cpuClockAhead:
			r.ClockAhead++
		case cpuOffCPU:
			r.OffCPU++
			r.MaxOffCPU = max(r.MaxOffCPU, d-cpu)
			r.MaskCPU.Add(cpu)
		default:
			r.MaskCPU.Add(cpu)
		}
	}
	r.Masks.Add(d)
	r.maxMask = max(r.maxMask, d)
	if r.wantFirst {
		r.firstEnd, r.wantFirst = end, false
	}
	after := m.Compiled().IndexStats()
	if w := after.Work - before.Work; w > 0 {
		r.MaskWork = append(r.MaskWork, w)
		r.maxWork = max(r.maxWork, w)
	}
	if after.Classified != before.Classified {
		// The mask classified a node itself: no other grammar had a node
		// of that shape, and no warming had got to it.
		r.Classified.Add(d)
	}
	return err
}

// Summary is the last lines of the report: the pass count, then the
// percentiles of compile times (front-end and automaton), of the first mask
// after each compile, and of every mask, and what the masks that classified
// a node (a first visit no grammar of the run had paid for) cost in all.
func (r *Report) Summary() string {
	var compile, first latency.Sample
	for _, s := range r.Schemas {
		if s.CompileErr == "" {
			compile.Add(s.CompileTime)
			first.Add(s.FirstMask)
		}
	}
	n := len(r.Schemas)
	return fmt.Sprintf("passed %d/%d schemas (%.1f%%), invalid accepted %d\n"+
		"compile: %s\n"+
		"first mask after compile: %s\n"+
		"masks: %s\n"+
		"masks that classified a node: %d of %d (%.2f%%), %s in all\n"+
		"slowest masks: %s",
		r.Passed(), n, 100*float64(r.Passed())/float64(max(n, 1)), r.InvalidAccepted(),
		compile.String(), first.String(), r.Masks.String(),
		r.Classified.Len(), r.Masks.Len(), 100*float64(r.Classified.Len())/float64(max(r.Masks.Len(), 1)),
		r.Classified.Total().Round(time.Millisecond), r.slowest(5))
}

// slowest names the n schemas with the slowest masks, slowest first.
func (r *Report) slowest(n int) string {
	s := slices.Clone(r.Schemas)
	slices.SortFunc(s, func(a, b SchemaResult) int { return cmp.Compare(b.MaxMask, a.MaxMask) })
	var parts []string
	for _, x := range s[:min(n, len(s))] {
		parts = append(parts, fmt.Sprintf("%s %.1f ms", filepath.Base(x.File), float64(x.MaxMask.Microseconds())/1e3))
	}
	return strings.Join(parts, ", ")
}

// WriteTable prints the per-dataset table and the summary line.
func (r *Report) WriteTable(w io.Writer) {
	type row struct{ n, passed, compiled, invalidAccepted int }
	rows := map[string]*row{}
	var names []string
	for _, s := range r.Schemas {
		x := rows[s.Dataset]
		if x == nil {
			x = &row{}
			rows[s.Dataset] = x
			names = append(names, s.Dataset)
		}
		x.n++
		if s.Passed {
			x.passed++
		}
		if s.CompileErr == "" {
			x.compiled++
		}
		x.invalidAccepted += s.InvalidAccepted
	}
	sort.Strings(names)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataset\tschemas\tcompiled\tpassed\tpass %\tinvalid accepted\t")
	for _, name := range names {
		x := rows[name]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t%d\t\n", name, x.n, x.compiled, x.passed, 100*float64(x.passed)/float64(x.n), x.invalidAccepted)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d tokens masked in %v\n", r.Tokens, r.Wall.Round(time.Second))
	fmt.Fprintln(w, r.Summary())
}

// workQuantile returns the q-quantile of work, sorting it.
func workQuantile(work []int64, q float64) int64 {
	if len(work) == 0 {
		return 0
	}
	slices.Sort(work)
	return work[min(int(q*float64(len(work))), len(work)-1)]
}
