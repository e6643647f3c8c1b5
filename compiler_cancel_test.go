package rein_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/fillgate"
	"github.com/reinlm/rein/internal/vocabtest"
)

// slowGBNF is a grammar whose cost is all in the automaton stage: n rules,
// each a subset construction of 16,384 states (the language of strings
// whose 14th byte from the end is an a). Each rule takes tens of
// milliseconds, so 2,000 of them take about a minute (and then fail the
// total-states limit).
func slowGBNF(n int) rein.Spec {
	var b strings.Builder
	b.WriteString("root ::= r0")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, " | r%d", i)
	}
	b.WriteByte('\n')
	for i := range n {
		fmt.Fprintf(&b, "r%d ::= (\"a\" | \"b\")* \"a\" (\"a\" | \"b\"){13} \"%d\"\n", i, i)
	}
	return rein.GBNF(b.String(), "")
}

// generous bounds a wait that should end at once, far below what the
// slow compile would take if it were not stopped. It is a deadline for the
// test not to hang, not a timing assertion.
const generous = 20 * time.Second

// TestCompileTimeoutStopsTheWork: a compile whose automaton stage would take
// a minute is stopped by a 50 ms time limit, and the only worker is free for
// the next compile at once; the time-out is cached, so a retry costs no
// compile.
func TestCompileTimeoutStopsTheWork(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	c := newCompiler(t, voc, rein.CompilerOptions{Workers: 1, Timeout: 50 * time.Millisecond})
	slow := c.CompileAsync(context.Background(), slowGBNF(2000))
	quick := c.CompileAsync(context.Background(), rein.Regex(`quick`))

	wait, cancel := context.WithTimeout(context.Background(), generous)
	defer cancel()
	_, err := slow.Wait(wait)
	require.True(t, slow.Ready(), "the slow compile was not stopped: %v", err)
	assert.ErrorIs(t, err, grammar.ErrLimit)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	compiled, err := quick.Wait(wait)
	require.NoError(t, err, "the worker was not freed")
	assert.NotNil(t, compiled)

	_, err = c.Compile(context.Background(), slowGBNF(2000))
	assert.ErrorIs(t, err, grammar.ErrLimit, "the time-out is cached")
	st := c.Stats()
	assert.Equal(t, int64(2), st.Compiles)
	assert.Equal(t, int64(1), st.Failures)
	assert.Equal(t, int64(1), st.FailedHits)
	assert.Equal(t, 1, st.FailedEntries)
	assert.Equal(t, 2, st.Entries)
}

// TestTimeoutLeavesOutTheFillsTime: the time a compile is held back by a
// fill (fillgate) does not count toward CompilerOptions.Timeout, up to the
// limit again. A compile parked under a fill for half its limit goes on
// once the fill ends, past its wall-clock limit, for the rest of its own
// time: it ends near one and a half limits, before the latest bound (two
// limits); the time-out is cached as any other. The margins (a quarter of
// the limit, 100 ms, each side) are for a loaded machine: the compile
// cannot end before its timer, and ends within milliseconds of it.
func TestTimeoutLeavesOutTheFillsTime(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	// Parks last until the fill ends.
	defer fillgate.SetMaxWait(fillgate.SetMaxWait(time.Hour))
	const limit = 400 * time.Millisecond
	c := newCompiler(t, voc, rein.CompilerOptions{Workers: 1, Timeout: limit})
	fillgate.Enter()
	filling := true
	defer func() {
		if filling {
			fillgate.Exit() // a failed check must not leave the gate closed
		}
	}()
	start := time.Now()
	slow := c.CompileAsync(context.Background(), slowGBNF(2000))
	ready := readyChan(slow)
	deadline := time.Now().Add(generous)
	for fillgate.Parked() == 0 {
		require.False(t, slow.Ready(), "the compile ended without stepping aside")
		require.False(t, time.Now().After(deadline), "the compile never stepped aside")
		time.Sleep(time.Millisecond)
	}
	held := fillgate.Held()
	time.Sleep(limit / 2) // held back all along
	fillgate.Exit()
	filling = false
	held = fillgate.Held() - held
	require.GreaterOrEqual(t, held, limit/2, "the gate did not count the park")

	// A wall-clock limit would end it at one limit.
	select {
	case <-ready:
		t.Fatalf("the compile ended %v after it began, with the fill's time counted", time.Since(start))
	case <-time.After(time.Until(start.Add(limit + limit/4))):
	}
	// The latest bound would end it at two.
	select {
	case <-ready:
	case <-time.After(time.Until(start.Add(2*limit - limit/4))):
		t.Fatalf("the compile still ran %v after it began: the fill's time was not its own", time.Since(start))
	}
	_, err := slow.Wait(context.Background())
	assert.ErrorIs(t, err, grammar.ErrLimit)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	st := c.Stats()
	assert.Equal(t, 1, st.FailedEntries, "the time-out is cached")
}

// readyChan returns a channel closed once h is Ready.
func readyChan(h *rein.Handle) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		h.Wait(context.Background())
		close(ch)
	}()
	return ch
}

// ctxLoader is a CompilerOptions.LoadRef that reports each call on entered
// and then waits for release or for the compile's context to end, returning
// the context's error in the latter case.
type ctxLoader struct {
	entered chan string
	release chan struct{}
}

func newCtxLoader() *ctxLoader {
	return &ctxLoader{entered: make(chan string, 16), release: make(chan struct{})}
}

func (l *ctxLoader) load(ctx context.Context, uri string) ([]byte, error) {
	l.entered <- uri
	select {
	case <-l.release:
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return []byte(`{"type":"integer"}`), nil
}

// TestCancelledCompileFreesItsWorker: once the only request waiting for a
// running compile goes, the compile's context ends, the compile stops and
// the only worker runs the next compile; the abandoned compile is not
// cached.
func TestCancelledCompileFreesItsWorker(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	l := newCtxLoader()
	c := newCompiler(t, voc, rein.CompilerOptions{Workers: 1, LoadRef: l.load})
	ctx, cancel := context.WithCancel(context.Background())
	h := c.CompileAsync(ctx, remoteSchema("a"))
	<-l.entered // the compile runs, holding the only worker
	quick := c.CompileAsync(context.Background(), rein.Regex(`quick`))
	cancel()
	assert.ErrorIs(t, h.Err(), context.Canceled)

	wait, cancelWait := context.WithTimeout(context.Background(), generous)
	defer cancelWait()
	_, err := quick.Wait(wait)
	require.NoError(t, err, "the worker was not freed")

	close(l.release)
	_, err = c.Compile(context.Background(), remoteSchema("a"))
	require.NoError(t, err, "an abandoned compile is not cached")
	st := c.Stats()
	assert.Equal(t, int64(3), st.Compiles)
	assert.Zero(t, st.FailedEntries)
}

// TestSharedCompileOutlivesOneWaiter: two requests share a compile; the
// first going away does not end the compile's context, and the second gets
// the grammar.
func TestSharedCompileOutlivesOneWaiter(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	l := newCtxLoader()
	c := newCompiler(t, voc, rein.CompilerOptions{LoadRef: l.load})
	ctxA, cancelA := context.WithCancel(context.Background())
	hA := c.CompileAsync(ctxA, remoteSchema("shared"))
	hB := c.CompileAsync(context.Background(), remoteSchema("shared"))
	<-l.entered
	cancelA()
	require.True(t, hA.Ready()) // A has left the compile by now
	assert.ErrorIs(t, hA.Err(), context.Canceled)
	close(l.release)
	compiled, err := hB.Wait(context.Background())
	require.NoError(t, err, "the compile was stopped while B waited")
	assert.True(t, compiled.NewMatcher().AcceptString("42"))
	st := c.Stats()
	assert.Equal(t, int64(1), st.Compiles)
	assert.Equal(t, int64(1), st.Joins)
}

// TestFailedCompilesAreCached: a failed compile is answered from the cache
// the next time, except a loader failure that wraps a context's end, which
// is taken as passing.
func TestFailedCompilesAreCached(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	loads := 0
	c := newCompiler(t, voc, rein.CompilerOptions{
		LoadRef: func(_ context.Context, uri string) ([]byte, error) {
			loads++
			if strings.Contains(uri, "flaky") {
				return nil, fmt.Errorf("fetch %s: %w", uri, context.DeadlineExceeded)
			}
			return nil, errors.New("no such document")
		},
	})
	ctx := context.Background()
	specs := []rein.Spec{
		rein.Regex(`(a`),
		rein.GBNF(`root ::= "a" (`, ""),
		rein.JSONSchema(`{"type":"nope"}`),
		rein.GBNF(`root ::= root "a"`, ""), // left recursion, found by pda
		remoteSchema("missing"),
	}
	for round := range 3 {
		for _, s := range specs {
			_, err := c.Compile(ctx, s)
			require.Error(t, err, "round %d", round)
		}
	}
	st := c.Stats()
	assert.Equal(t, int64(len(specs)), st.Compiles, "each failure compiled once")
	assert.Equal(t, int64(2*len(specs)), st.FailedHits)
	assert.Equal(t, len(specs), st.FailedEntries)
	assert.Equal(t, 1, loads)

	_, err := c.Compile(ctx, remoteSchema("flaky"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	_, err = c.Compile(ctx, remoteSchema("flaky"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, 3, loads, "a passing failure is not cached")
	assert.Equal(t, len(specs), c.Stats().FailedEntries)

	off := newCompiler(t, voc, rein.CompilerOptions{CacheBytes: -1})
	for range 2 {
		_, err := off.Compile(ctx, specs[0])
		require.Error(t, err)
	}
	assert.Equal(t, int64(2), off.Stats().Compiles, "no cache, no failures cached")
}

// BenchmarkCompileTimeoutOvershoot measures how long after the time limit,
// or after its only request's deadline, a compile stuck in the automaton
// stage frees its worker: overshoot-ms is the p50 over the iterations and
// max-overshoot-ms the largest. The limit (100 ms) is past the GBNF
// front-end's share (about 20 ms for this grammar), so the limit falls in the
// automaton stage.
func BenchmarkCompileTimeoutOvershoot(b *testing.B) {
	voc := vocabtest.Load(b, "gpt2")
	spec := slowGBNF(2000)
	const limit = 100 * time.Millisecond
	for _, mode := range []string{"timeout", "cancel"} {
		b.Run(mode, func(b *testing.B) {
			var over []time.Duration
			for b.Loop() {
				opts := rein.CompilerOptions{Workers: 1}
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if mode == "timeout" {
					opts.Timeout = limit
				} else {
					ctx, cancel = context.WithTimeout(ctx, limit)
				}
				c := newCompiler(b, voc, opts)
				start := time.Now()
				h := c.CompileAsync(ctx, spec)
				_, _ = h.Wait(context.Background())                        // ends at the limit, either way
				_, err := c.Compile(context.Background(), rein.Regex(`x`)) // once the worker is free
				over = append(over, time.Since(start)-limit)
				cancel()
				require.NoError(b, err)
			}
			slices.Sort(over)
			b.ReportMetric(float64(over[len(over)/2])/1e6, "overshoot-ms")
			b.ReportMetric(float64(over[len(over)-1])/1e6, "max-overshoot-ms")
		})
	}
}
