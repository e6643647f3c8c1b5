package maskbench_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/maskbench"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
)

// sampleDir is the committed MaskBench sample, whatever else is present.
func sampleDir() string { return filepath.Join(datadir.Root(), "testdata", "maskbench-sample") }

// TestRunFresh runs a few sample schemas through the fresh-process line, one
// process and per schema, and checks it against Run: the same schemas pass,
// the same tokens and masks are fed (a mask per token, and one for the end
// of each instance that got there), and every compiled schema has its
// compile and first-mask timings.
func TestRunFresh(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	opts := maskbench.Options{Dir: sampleDir(), Vocab: voc, Every: 7, Limit: 12}
	plain, err := maskbench.Run(opts)
	require.NoError(t, err)
	require.Len(t, plain.Schemas, 12)
	for _, perSchema := range []bool{false, true} {
		t.Run(map[bool]string{false: "process", true: "per-schema"}[perSchema], func(t *testing.T) {
			o := opts
			o.PerSchemaFresh = perSchema
			rep, err := maskbench.RunFresh(o)
			require.NoError(t, err)
			require.Len(t, rep.Schemas, len(plain.Schemas))
			assert.Equal(t, plain.Passed(), rep.Passed())
			compiled, accepted, instances := 0, 0, 0
			for i, s := range rep.Schemas {
				p := plain.Schemas[i]
				assert.Equal(t, p.Passed, s.Passed, s.File)
				assert.Equal(t, p.CompileErr == "", s.CompileErr == "", s.File)
				assert.Equal(t, p.ValidPassed, s.ValidPassed, s.File)
				assert.Equal(t, p.InvalidPassed, s.InvalidPassed, s.File)
				if s.CompileErr == "" {
					compiled++
					assert.Positive(t, s.FirstMask, s.File)
				}
				accepted += s.ValidPassed + s.InvalidAccepted
				instances += s.Valid + s.Invalid
			}
			assert.Equal(t, plain.Tokens, rep.Tokens)
			assert.Equal(t, plain.Masks.Len(), rep.Masks.Len())
			assert.Equal(t, plain.Ends, rep.Ends)
			assert.Equal(t, rep.Tokens+rep.Ends, rep.Masks.Len(), "a mask per token and per end")
			assert.GreaterOrEqual(t, rep.Ends, accepted, "every accepted instance took its end's mask")
			assert.LessOrEqual(t, rep.Ends, instances)
			assert.Equal(t, compiled, rep.Compile.Len())
			assert.Equal(t, compiled, rep.FirstMask.Len())
			assert.Positive(t, rep.GrammarBytes)
			assert.Positive(t, rep.SharedIndexBytes)
			if _, err := os.Stat("/proc/self/status"); err == nil {
				assert.Positive(t, rep.PeakRSS)
			}
			assert.Positive(t, len(rep.MaskWork), "the first masks classify on the decode path")
			assert.LessOrEqual(t, len(rep.MaskWork), rep.Masks.Len())
			var most int64
			for _, w := range rep.MaskWork {
				assert.Positive(t, w)
				most = max(most, w)
			}
			var mostOfSchemas int64
			for _, s := range rep.Schemas {
				mostOfSchemas = max(mostOfSchemas, s.MaxMaskWork)
			}
			assert.Equal(t, most, mostOfSchemas, "each schema's most work per mask")
			assert.Contains(t, rep.Summary(), "decode-path work: ")
			assert.Equal(t, perSchema, rep.PerSchema)
			assert.Contains(t, rep.Summary(), map[bool]string{false: "fresh: ", true: "fresh per schema: "}[perSchema])
			t.Log(rep.Summary())
		})
	}
}

// TestRunFreshThreadCPU checks that with Options.ThreadCPU every timed mask
// has its thread's CPU time, which the summary reports; elsewhere than
// Linux the option is an error.
func TestRunFreshThreadCPU(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	o := maskbench.Options{Dir: sampleDir(), Vocab: voc, Every: 7, Limit: 4, ThreadCPU: true}
	rep, err := maskbench.RunFresh(o)
	if runtime.GOOS != "linux" {
		require.Error(t, err)
		_, err := maskbench.RunFreshBatch(o, 4, 2)
		require.Error(t, err, "a batch run reading thread CPU")
		return
	}
	require.NoError(t, err)
	require.Positive(t, rep.Masks.Len())
	assert.Equal(t, rep.Masks.Len(), rep.MaskCPU.Len()+rep.ClockAhead)
	assert.Positive(t, rep.MaskCPU.Max())
	assert.LessOrEqual(t, rep.OffCPU, rep.Masks.Len())
	assert.Contains(t, rep.Summary(), "thread CPU per mask p99 ")
	t.Log(rep.Summary())
	o.ThreadCPU = false
	rep, err = maskbench.RunFresh(o)
	require.NoError(t, err)
	assert.Zero(t, rep.MaskCPU.Len())
	assert.NotContains(t, rep.Summary(), "thread CPU")
}

// TestRunFreshPrefill checks that a pause between each compile's Ready and
// its first mask, with a warming goroutine to use it, changes no outcome:
// the same schemas pass and the same masks are fed as without it. Each
// compiled schema's pause is in the run's wall time.
func TestRunFreshPrefill(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	o := maskbench.Options{Dir: sampleDir(), Vocab: voc, Every: 7, Limit: 4}
	plain, err := maskbench.RunFresh(o)
	require.NoError(t, err)
	o.Prefill, o.WarmWorkers = 20*time.Millisecond, 1
	rep, err := maskbench.RunFresh(o)
	require.NoError(t, err)
	require.Len(t, rep.Schemas, len(plain.Schemas))
	assert.Equal(t, plain.Passed(), rep.Passed())
	assert.Equal(t, plain.Tokens, rep.Tokens)
	assert.Equal(t, plain.Masks.Len(), rep.Masks.Len())
	compiled := 0
	for i, s := range rep.Schemas {
		assert.Equal(t, plain.Schemas[i].Passed, s.Passed, s.File)
		if s.CompileErr == "" {
			compiled++
			assert.Positive(t, s.FirstMask, s.File)
		}
	}
	require.Positive(t, compiled)
	assert.GreaterOrEqual(t, rep.Wall, time.Duration(compiled)*o.Prefill)
	t.Log(rep.Summary())
}

// TestRunFreshBatch decodes, in batches smaller than the sequences so that
// there are several, the valid instances of sample schemas whose valid
// instances Run accepts: the batch runner must accept every one of them.
func TestRunFreshBatch(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	plain, err := maskbench.Run(maskbench.Options{Dir: sampleDir(), Vocab: voc, Every: 11, Limit: 10})
	require.NoError(t, err)
	dir := t.TempDir()
	valid := 0
	for _, s := range plain.Schemas {
		if s.CompileErr != "" || s.ValidPassed != s.Valid || s.Valid == 0 {
			continue
		}
		raw, err := os.ReadFile(s.File)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(s.File)), raw, 0o644))
		valid += s.Valid
	}
	require.Greater(t, valid, 8, "valid instances of the schemas Run passes")
	tests := []struct {
		size, workers int
		continuous    bool
		forward       time.Duration
		compilers     int  // Options.CompileWorkers
		threadCPU     bool // Options.ThreadCPU, where the platform has it
	}{
		{8, 2, false, 0, 0, false},
		{64, 2, false, 0, 2, true},
		{5, 1, false, 0, 0, false},
		{8, 2, true, 0, 3, true},
		{3, 2, true, 50 * time.Microsecond, 0, false},
		{64, 1, true, 0, 1, false},
	}
	for _, tt := range tests {
		mask.ResetSharedIndex(voc)
		run := maskbench.RunFreshBatch
		if tt.continuous {
			run = maskbench.RunFreshContinuous
		}
		finished := 0
		o := maskbench.Options{Dir: dir, Vocab: voc, Forward: tt.forward, CompileWorkers: tt.compilers, Progress: func(done, _ int) { finished = done }}
		o.ThreadCPU = tt.threadCPU && runtime.GOOS == "linux"
		rep, err := run(o, tt.size, tt.workers)
		require.NoError(t, err)
		if o.ThreadCPU {
			// Every step's caller CPU is read.
			assert.Equal(t, rep.Steps, rep.StepCPU.Len(), tt)
			assert.Equal(t, rep.Steps, rep.StepOff.Len(), tt)
			assert.Positive(t, rep.StepCPU.Max(), tt)
			assert.Contains(t, rep.Summary(), "the caller's thread CPU per step p50 ", tt)
		} else {
			assert.Zero(t, rep.StepCPU.Len(), tt)
			assert.NotContains(t, rep.Summary(), "thread CPU", tt)
		}
		assert.Equal(t, max(tt.compilers, 1), rep.CompileWorkers, tt)
		assert.Equal(t, valid, finished, "%+v: progress", tt)
		assert.Equal(t, tt.continuous, rep.Continuous, tt)
		assert.Equal(t, valid, rep.Sequences, "%+v", tt)
		assert.Equal(t, valid, rep.Accepted, "%+v: %v", tt, rep.Failures)
		assert.Zero(t, rep.Refused, tt)
		assert.Zero(t, rep.CompileFailed, tt)
		assert.Empty(t, rep.Failures, tt)
		if tt.continuous {
			// One batch whose slots refill: every step but the last few
			// fills more rows than the static batches' tails do.
			assert.Equal(t, 1, rep.Batches, tt)
		} else {
			assert.Equal(t, (valid+tt.size-1)/tt.size, rep.Batches, tt)
		}
		assert.LessOrEqual(t, rep.Rows, rep.Steps*min(tt.size, valid), tt)
		assert.Equal(t, rep.Steps, rep.Step.Len(), tt)
		assert.Equal(t, rep.Steps, rep.Classifying.Len()+rep.Other.Len(), tt)
		// Nothing warms (Options.WarmWorkers 0) and the shared index
		// starts empty: some step's rows classify.
		assert.Positive(t, rep.Classifying.Len(), tt)
		assert.Equal(t, valid, rep.Compile.Len(), tt)
		// A step sees a handle Ready no sooner than it is: each sequence's
		// Seen is at least its Compile, so every quantile is too.
		assert.Equal(t, valid, rep.Seen.Len(), tt)
		for _, q := range []float64{0, 0.5, 0.99, 1} {
			assert.GreaterOrEqual(t, rep.Seen.Quantile(q), rep.Compile.Quantile(q), "%+v: q%v", tt, q)
		}
		t.Log(rep.Summary())
	}
}

// TestRunFreshBatchRefuses feeds the batch runners a schema whose valid
// instances do not match it and one that does not compile: each sequence
// must be counted refused or failed, not accepted, and the run must go on,
// a continuous batch giving the freed slots to the sequences after.
func TestRunFreshBatchRefuses(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	dir := t.TempDir()
	doc := `{"schema": {"type": "integer"}, "tests": [
		{"data": "text", "valid": true}, {"data": 12, "valid": true}, {"data": [1], "valid": true}, {"data": 1.5, "valid": false}]}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Handwritten---int.json"), []byte(doc), 0o644))
	bad := `{"schema": {"type": "integer", "minimum": "none"}, "tests": [{"data": 1, "valid": true}, {"data": 2, "valid": true}]}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Handwritten---bad.json"), []byte(bad), 0o644))
	for _, run := range []func(maskbench.Options, int, int) (*maskbench.BatchReport, error){maskbench.RunFreshBatch, maskbench.RunFreshContinuous} {
		rep, err := run(maskbench.Options{Dir: dir, Vocab: voc}, 2, 2)
		require.NoError(t, err)
		assert.Equal(t, 5, rep.Sequences, rep.Failures)
		assert.Equal(t, 1, rep.Accepted, rep.Failures)
		assert.Equal(t, 2, rep.Refused, rep.Failures)
		assert.Equal(t, 2, rep.CompileFailed, rep.Failures)
		assert.Len(t, rep.Failures, 4)
	}
}
