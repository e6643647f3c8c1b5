package mask_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/latency"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// schemaRun is a MaskBench schema compiled for a vocabulary and one of its
// valid instances, tokenized: feeding prefixes of ids puts matchers in the
// varied states of real structured decoding.
type schemaRun struct {
	g   *grammar.Grammar
	c   *mask.Compiled
	ids []int
}

// schemaRuns compiles up to n MaskBench schemas (every 37th file, those that
// compile and have a valid instance of at most maxTokens tokens that the
// grammar accepts whole).
func schemaRuns(tb testing.TB, voc *tokenizer.Vocab, n, maxTokens int) []schemaRun {
	tb.Helper()
	set := datadir.MaskBench(tb)
	files, err := filepath.Glob(filepath.Join(set.Dir, "*.json"))
	require.NoError(tb, err)
	sort.Strings(files)
	enc, err := voc.Encoder()
	require.NoError(tb, err)
	var runs []schemaRun
	for i := 0; i < len(files) && len(runs) < n; i += set.Stride(37) {
		raw, err := os.ReadFile(files[i])
		require.NoError(tb, err)
		g, _, err := jsonschema.Compile([]byte(gjson.GetBytes(raw, "schema").Raw), jsonschema.Options{})
		if err != nil {
			continue
		}
		c, err := mask.Compile(g, voc, mask.Options{})
		if err != nil {
			continue
		}
		for _, tc := range gjson.GetBytes(raw, "tests").Array() {
			var buf bytes.Buffer
			if !tc.Get("valid").Bool() || json.Compact(&buf, []byte(tc.Get("data").Raw)) != nil {
				continue
			}
			ids := enc.Encode(buf.String())
			if len(ids) > maxTokens || !acceptsAll(c.NewMatcher(), ids) {
				continue
			}
			runs = append(runs, schemaRun{g: g, c: c, ids: ids})
			break
		}
	}
	require.NotEmpty(tb, runs)
	return runs
}

func acceptsAll(m *mask.Matcher, ids []int) bool {
	for _, id := range ids {
		if !m.AcceptToken(id) {
			return false
		}
	}
	return m.CanEnd()
}

// batchState is a batch of matchers decoding the instances of runs, row i
// starting its instance at a different offset so the rows are in varied
// states; step advances every row by one token, restarting a finished one.
type batchState struct {
	matchers []*mask.Matcher
	runs     []schemaRun
	pos      []int
}

func newBatchState(tb testing.TB, runs []schemaRun, rows int) *batchState {
	s := &batchState{}
	for i := range rows {
		r := runs[i%len(runs)]
		m := r.c.NewMatcher()
		p := (i * 7) % len(r.ids)
		for _, id := range r.ids[:p] {
			require.True(tb, m.AcceptToken(id))
		}
		s.matchers = append(s.matchers, m)
		s.runs = append(s.runs, r)
		s.pos = append(s.pos, p)
	}
	return s
}

func (s *batchState) step(tb testing.TB) {
	for i, m := range s.matchers {
		ids := s.runs[i].ids
		if s.pos[i] == len(ids) {
			m.Reset()
			s.pos[i] = 0
			continue
		}
		if err := m.Accept(ids[s.pos[i]]); err != nil {
			tb.Fatal(err)
		}
		s.pos[i]++
	}
}

// TestBatchFillerMatchesSingle fills a batch whose constrained rows are
// scattered over the bitmask, with several worker counts, and checks each
// row against the matcher's own FillBitmask and the unlisted rows untouched.
func TestBatchFillerMatchesSingle(t *testing.T) {
	voc := vocabtest.Core(t)
	runs := schemaRuns(t, voc, 6, 200)
	const constrained, total = 20, 26
	rows := make([]int, constrained)
	for i := range rows {
		rows[i] = (i*11 + 3) % total // a permutation leaving 6 rows unlisted
	}
	listed := map[int]bool{}
	for _, r := range rows {
		listed[r] = true
	}
	require.Len(t, listed, constrained)
	for _, workers := range []int{1, 2, 4, 0} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			f := mask.NewBatchFiller(workers)
			defer f.Close()
			s := newBatchState(t, runs, constrained)
			bm := mask.NewBitmask(total, voc.Size())
			for i := range bm.Words {
				bm.Words[i] = 0xdeadbeef
			}
			one := mask.NewBitmask(1, voc.Size())
			errs := make([]error, constrained)
			for step := range 4 {
				require.NoError(t, f.Fill(s.matchers, bm, rows, errs))
				for i, m := range s.matchers {
					assert.NoError(t, errs[i])
					require.NoError(t, m.FillBitmask(one, 0))
					assert.Equal(t, one.Row(0), bm.Row(rows[i]), "step %d matcher %d", step, i)
				}
				for r := range total {
					if !listed[r] {
						assert.Equal(t, uint32(0xdeadbeef), bm.Row(r)[0], "unlisted row %d written", r)
						assert.Equal(t, uint32(0xdeadbeef), bm.Row(r)[bm.Stride-1], "unlisted row %d written", r)
					}
				}
				s.step(t)
			}
		})
	}
}

// TestBatchFillerRowFailures checks that each kind of row failure stays in
// its row: the other rows are filled exactly, a panicking row is left all
// zeros, and a row outside the bitmask is reported without touching it.
func TestBatchFillerRowFailures(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	gpt2 := vocabtest.Load(t, "gpt2")
	runs := schemaRuns(t, voc, 2, 200)
	other, err := mask.Compile(grammar.JSON(), gpt2, mask.Options{})
	require.NoError(t, err)
	good := newBatchState(t, runs, 4).matchers
	tests := []struct {
		name  string
		bad   *mask.Matcher
		row   int
		check func(t *testing.T, err error)
	}{
		{"panic", mask.BrokenMatcher(runs[0].c), 2, func(t *testing.T, err error) {
			var pe *mask.PanicError
			require.ErrorAs(t, err, &pe)
			assert.ErrorIs(t, err, mask.ErrPanic)
			assert.Equal(t, "FillBitmask", pe.Op)
			assert.Contains(t, pe.Stack, "(*Matcher).FillBitmask", "the stack starts where the panic happened")
		}},
		{"nil matcher", nil, 2, func(t *testing.T, err error) { assert.ErrorContains(t, err, "no matcher") }},
		{"zero matcher", new(mask.Matcher), 2, func(t *testing.T, err error) { assert.ErrorIs(t, err, mask.ErrMatcher) }},
		{"other vocabulary", other.NewMatcher(), 2, func(t *testing.T, err error) { assert.ErrorIs(t, err, mask.ErrRow) }},
		{"row outside", runs[0].c.NewMatcher(), 9, func(t *testing.T, err error) { assert.ErrorIs(t, err, mask.ErrRow) }},
	}
	f := mask.NewBatchFiller(3)
	defer f.Close()
	one := mask.NewBitmask(1, voc.Size())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := []*mask.Matcher{good[0], good[1], tt.bad, good[2], good[3]}
			rows := []int{0, 1, tt.row, 3, 4}
			bm := mask.NewBitmask(5, voc.Size())
			for i := range bm.Words {
				bm.Words[i] = ^uint32(0)
			}
			errs := make([]error, len(ms))
			err := f.Fill(ms, bm, rows, errs)
			require.Error(t, err)
			assert.Equal(t, errs[2], err, "the first row error is returned")
			tt.check(t, errs[2])
			for i, m := range ms {
				if i == 2 {
					continue
				}
				assert.NoError(t, errs[i])
				require.NoError(t, m.FillBitmask(one, 0))
				assert.Equal(t, one.Row(0), bm.Row(rows[i]), "row %d", rows[i])
			}
			if tt.row == 2 && tt.name != "other vocabulary" {
				assert.Zero(t, bm.Count(2), "failed row must allow nothing")
			}
		})
	}
}

// TestBatchFillerRefusesBadCalls covers the errors that refuse a whole call.
func TestBatchFillerRefusesBadCalls(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	c, err := mask.Compile(grammar.JSON(), voc, mask.Options{})
	require.NoError(t, err)
	ms := []*mask.Matcher{c.NewMatcher(), c.NewMatcher()}
	bm := mask.NewBitmask(2, voc.Size())
	f := mask.NewBatchFiller(2)
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"rows length", func() error { return f.Fill(ms, bm, []int{0}, nil) }, mask.ErrRow},
		{"errs length", func() error { return f.Fill(ms, bm, []int{0, 1}, make([]error, 1)) }, mask.ErrShape},
		{"duplicate row", func() error { return f.Fill(ms, bm, []int{1, 1}, nil) }, mask.ErrRow},
		{"nil bitmask", func() error { return f.Fill(ms, nil, []int{0, 1}, nil) }, mask.ErrShape},
		{"empty batch", func() error { return f.Fill(nil, bm, nil, nil) }, nil},
		{"after close", func() error { f.Close(); return f.Fill(ms, bm, []int{1, 0}, nil) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if tt.want == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tt.want)
			}
		})
	}
	assert.Positive(t, bm.Count(0))
}

// TestBatchFillerDoesNotAllocate pins zero allocations for a warm Fill on
// several workers.
func TestBatchFillerDoesNotAllocate(t *testing.T) {
	voc := vocabtest.Core(t)
	s := newBatchState(t, schemaRuns(t, voc, 4, 200), 16)
	rows := make([]int, len(s.matchers))
	for i := range rows {
		rows[i] = len(rows) - 1 - i
	}
	bm := mask.NewBitmask(len(rows), voc.Size())
	errs := make([]error, len(rows))
	f := mask.NewBatchFiller(4)
	defer f.Close()
	fill := func() {
		if err := f.Fill(s.matchers, bm, rows, errs); err != nil {
			panic(err)
		}
	}
	fill()
	assert.Zero(t, testing.AllocsPerRun(50, fill))
}

// TestBatchFillerDoesNotWaitForHelpers checks that Fill returns once its
// rows are filled, without waiting for a helper that has not run: here a
// helper that woke but is held before it takes a row (as a helper may wait
// for a compile's time slice on a busy machine). Fill used to wait until
// the helper had run, only for it to find nothing left to do. A later Fill
// is filled right all the same, whichever goroutine takes its rows.
func TestBatchFillerDoesNotWaitForHelpers(t *testing.T) {
	voc := vocabtest.Core(t)
	s := newBatchState(t, schemaRuns(t, voc, 4, 200), 8)
	rows := make([]int, len(s.matchers))
	want := mask.NewBitmask(len(rows), voc.Size())
	for i, m := range s.matchers {
		rows[i] = i
		require.NoError(t, m.FillBitmask(want, i))
	}
	stall := make(chan struct{})
	f := mask.NewStalledBatchFiller(2, stall)
	defer f.Close()
	bm := mask.NewBitmask(len(rows), voc.Size())
	done := make(chan error, 1)
	go func() { done <- f.Fill(s.matchers, bm, rows, nil) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(time.Minute): // a hang, not a time measured
		close(stall)
		t.Fatal("Fill waited for a helper that had not run")
	}
	assert.Equal(t, want.Words, bm.Words)
	// The helper, woken and held, has filled nothing: the caller filled
	// every row.
	assert.Equal(t, mask.FillerStats{Fills: 1, Rows: int64(len(rows)), Wakes: 1}, f.Stats())
	close(stall)
	for range 20 {
		clear(bm.Words)
		require.NoError(t, f.Fill(s.matchers, bm, rows, nil))
		assert.Equal(t, want.Words, bm.Words)
	}
	f.Close() // the helper's counts are in once it has exited
	st := f.Stats()
	assert.Equal(t, int64(21), st.Fills)
	assert.Equal(t, int64(21*len(rows)), st.Rows)
	assert.LessOrEqual(t, st.HelperRows, st.Rows)
}

// TestBatchFillerWakesForColdRows checks when a Fill's caller wakes its
// helpers, with a wait longer than any test's Fill: at once where a row's
// matcher meets a node not classified yet, and never for rows whose nodes
// are all classified.
func TestBatchFillerWakesForColdRows(t *testing.T) {
	voc := vocabtest.Core(t)
	s := newBatchState(t, schemaRuns(t, voc, 4, 200), 8)
	rows := make([]int, len(s.matchers))
	for i := range rows {
		rows[i] = i
	}
	f := mask.NewBatchFillerWakingAfter(2, time.Hour)
	defer f.Close()
	bm := mask.NewBitmask(len(rows), voc.Size())
	require.True(t, slices.ContainsFunc(s.matchers, mask.MayClassify), "fresh grammars: some row classifies")
	require.NoError(t, f.Fill(s.matchers, bm, rows, nil))
	assert.Equal(t, int64(1), f.Stats().Wakes, "woken at once for the cold rows")

	// The rows whose nodes that Fill classified (a node classified with
	// its return or in a union has no classification of its own, and
	// counts as cold).
	var warm []*mask.Matcher
	var warmRows []int
	for i, m := range s.matchers {
		if !mask.MayClassify(m) {
			warm, warmRows = append(warm, m), append(warmRows, rows[i])
		}
	}
	require.GreaterOrEqual(t, len(warm), 2)
	for range 3 {
		require.NoError(t, f.Fill(warm, bm, warmRows, nil))
	}
	assert.Equal(t, int64(1), f.Stats().Wakes, "no wake for warm rows within the wait")
}

// TestBatchFillerStats checks the counts of a filler with no goroutines of
// its own, whose caller fills every row, and of a nil one.
func TestBatchFillerStats(t *testing.T) {
	voc := vocabtest.Core(t)
	s := newBatchState(t, schemaRuns(t, voc, 3, 200), 3)
	rows := []int{2, 0, 1}
	f := mask.NewBatchFiller(1)
	defer f.Close()
	bm := mask.NewBitmask(3, voc.Size())
	require.NoError(t, f.Fill(s.matchers, bm, rows, nil))
	require.NoError(t, f.Fill(s.matchers[:1], bm, rows[:1], nil))
	require.NoError(t, f.Fill(nil, bm, nil, nil)) // no rows: not counted
	assert.Equal(t, mask.FillerStats{Fills: 2, Rows: 4}, f.Stats())
	var none *mask.BatchFiller
	assert.Equal(t, mask.FillerStats{}, none.Stats())
}

// TestMatcherAcceptErrors checks that misuse of a matcher comes back as an
// error naming what went wrong.
func TestMatcherAcceptErrors(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	g, err := grammar.FromRegex(`(yes|no)`, grammar.Limits{})
	require.NoError(t, err)
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	yes, _ := voc.TokenID("yes")
	maybe, _ := voc.TokenID("maybe")
	stop := voc.StopTokens()[0]
	tests := []struct {
		name string
		run  func(m *mask.Matcher) error
		want error
	}{
		{"accepted", func(m *mask.Matcher) error { return m.Accept(yes) }, nil},
		{"rejected", func(m *mask.Matcher) error { return m.Accept(maybe) }, mask.ErrRejected},
		{"stop too early", func(m *mask.Matcher) error { return m.Accept(stop) }, mask.ErrRejected},
		{"outside vocabulary", func(m *mask.Matcher) error { return m.Accept(voc.Size()) }, mask.ErrRejected},
		{"negative id", func(m *mask.Matcher) error { return m.Accept(-1) }, mask.ErrRejected},
		{"after termination", func(m *mask.Matcher) error {
			m.AcceptToken(yes)
			m.AcceptToken(stop)
			return m.Accept(yes)
		}, mask.ErrTerminated},
		{"rollback too far", func(m *mask.Matcher) error {
			if err := m.Accept(yes); err != nil {
				return err
			}
			return m.Rollback(2)
		}, mask.ErrRollback},
		{"broken matcher", func(*mask.Matcher) error { return mask.BrokenMatcher(c).Accept(yes) }, mask.ErrPanic},
		{"zero matcher", func(*mask.Matcher) error { return new(mask.Matcher).Accept(yes) }, mask.ErrMatcher},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := c.NewMatcher()
			err := tt.run(m)
			if tt.want == nil {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tt.want)
		})
	}
	m := c.NewMatcher()
	assert.ErrorContains(t, m.Accept(maybe), `"maybe"`, "a rejection names the token")
	assert.Zero(t, m.NumTokens(), "a rejected token leaves the matcher unchanged")
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		if m.Accept(yes) != nil || m.Rollback(1) != nil {
			panic("refused")
		}
	}), "an accepted token allocates nothing")
}

// BenchmarkFillBatch times one Fill of a whole batch on the Llama-3
// vocabulary: rows of MaskBench schema matchers, each at its own place in a
// valid instance and advanced one token per iteration (outside the timing),
// on 1, 2 and GOMAXPROCS workers. Each case compiles its grammars afresh
// with the shared classifications dropped: its first 300 batches are the
// cold-* figures, the timed ones after them the warm-* figures, per batch.
func BenchmarkFillBatch(b *testing.B) {
	voc := vocabtest.Load(b, "llama3")
	runs := schemaRuns(b, voc, 64, 300)
	workers := []int{1, 2}
	if n := runtime.GOMAXPROCS(0); n > 2 {
		workers = append(workers, n)
	}
	for _, rows := range []int{64, 256} {
		for _, w := range workers {
			b.Run(fmt.Sprintf("rows=%d/workers=%d", rows, w), func(b *testing.B) {
				// A fresh compile of every grammar, with nothing shared
				// between grammars yet: the first batches are cold.
				mask.ResetSharedIndex(voc)
				fresh := make([]schemaRun, len(runs))
				for i, r := range runs {
					c, err := mask.Compile(r.g, voc, mask.Options{})
					require.NoError(b, err)
					fresh[i] = schemaRun{g: r.g, c: c, ids: r.ids}
				}
				s := newBatchState(b, fresh, rows)
				idx := make([]int, rows)
				for i := range idx {
					idx[i] = i
				}
				bm := mask.NewBitmask(rows, voc.Size())
				errs := make([]error, rows)
				f := mask.NewBatchFiller(w)
				defer f.Close()
				fill := func() {
					if err := f.Fill(s.matchers, bm, idx, errs); err != nil {
						b.Fatal(err)
					}
				}
				var cold, times latency.Sample
				for range 300 {
					t0 := time.Now()
					fill()
					cold.Add(time.Since(t0))
					s.step(b)
				}
				b.ResetTimer()
				for range b.N {
					t0 := time.Now()
					fill()
					times.Add(time.Since(t0))
					b.StopTimer()
					s.step(b)
					b.StartTimer()
				}
				b.StopTimer()
				cold.Report(b, "cold-")
				times.Report(b, "warm-")
				b.ReportMetric(float64(len(runs)), "schemas")
			})
		}
	}
}

// A BatchFiller fills the rows of a batch's constrained sequences in one
// call; a row that fails reports its own error and the others are filled.
func ExampleBatchFiller() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	g, err := grammar.Choice([]string{"yes", "no"}, grammar.Limits{})
	if err != nil {
		panic(err)
	}
	yesNo, err := mask.Compile(g, vocab, mask.Options{})
	if err != nil {
		panic(err)
	}
	matchers := []*mask.Matcher{yesNo.NewMatcher(), yesNo.NewMatcher(), new(mask.Matcher)} // the last one is broken
	matchers[1].AcceptString("y")
	bitmask := mask.NewBitmask(len(matchers), vocab.Size())
	errs := make([]error, len(matchers))
	filler := mask.NewBatchFiller(2)
	defer filler.Close()
	_ = filler.Fill(matchers, bitmask, []int{0, 1, 2}, errs)
	for row, err := range errs {
		fmt.Printf("row %d: %d tokens allowed, failed: %v\n", row, bitmask.Count(row), err != nil)
	}
	// Output:
	// row 0: 5 tokens allowed, failed: false
	// row 1: 2 tokens allowed, failed: false
	// row 2: 0 tokens allowed, failed: true
}

// TestBatchFillerStopsWhenCollected checks that a filler dropped without
// Close does not leak its goroutines.
func TestBatchFillerStopsWhenCollected(t *testing.T) {
	before := runtime.NumGoroutine()
	f := mask.NewBatchFiller(8)
	require.Equal(t, 8, f.Workers())
	require.GreaterOrEqual(t, runtime.NumGoroutine(), before+7)
	f = nil
	_ = f
	for range 200 {
		runtime.GC()
		if runtime.NumGoroutine() <= before {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before)
}
