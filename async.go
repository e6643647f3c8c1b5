package rein

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/fillgate"
	"github.com/reinlm/rein/mask"
)

// result is the outcome of a compile.
type result struct {
	compiled *mask.Compiled
	warnings []jsonschema.Warning
	err      error
	keep     bool      // a failure that says something about the spec, so it is cached
	expires  time.Time // when a cached failure stops counting (zero: never)
}

// timeoutTTL is how long a compile that ran out of CompilerOptions.Timeout
// is remembered: long enough that a client retrying a hostile spec costs
// nothing, short enough that a spec that timed out under a passing load is
// compiled again.
const timeoutTTL = time.Minute

// flight is one compile running on behalf of every request that asked for
// its key while it ran. Its fields other than done and res are guarded by
// Compiler.mu.
type flight struct {
	key    string
	spec   Spec
	ctx    context.Context // ends when every waiter has gone
	cancel context.CancelFunc
	done   chan struct{} // closed once res is set
	res    result

	waiters  int           // requests whose context has not ended
	stops    []func() bool // unregister the waiters' context callbacks
	finished bool
}

// Handle is one request's view of a compile started by CompileAsync. A
// scheduler polls Ready while the request waits in its queue, then reads
// Compiled or Err; Wait blocks instead. A Handle is safe for concurrent use,
// and its outcome never changes once Ready. Handles come from CompileAsync:
// the methods of a nil or zero Handle panic.
type Handle struct {
	c    *Compiler
	f    *flight         // nil for a handle answered at once
	ctx  context.Context // the request's context, given to CompileAsync
	res  atomic.Pointer[result]
	left atomic.Bool // the request has withdrawn from f
}

// CompileAsync starts compiling spec, unless the cache holds it or an
// identical compile is running (the request then joins it), and returns at
// once.
//
// ctx is the request's: once it ends before the compile does, the handle is
// Ready with ctx's error (context.Cause). The compile itself runs on behalf
// of every request that joined it, so one request going away does not stop
// it; it stops, within milliseconds, only when the contexts of all of them
// have ended, or at CompilerOptions.Timeout.
func (c *Compiler) CompileAsync(ctx context.Context, spec Spec) *Handle {
	if ctx == nil {
		ctx = context.Background()
	}
	key, err := spec.key(c.opts.Limits)
	if err != nil {
		return answered(ctx, result{err: err})
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Requests++
	if e := c.cache.get(key); e != nil {
		c.stats.Hits++
		if e.res.err != nil {
			c.stats.FailedHits++
		}
		c.stats.Evictions += c.cache.evict()
		c.warm(key, e.res.compiled)
		return answered(ctx, e.res)
	}
	if ctx.Err() != nil {
		return answered(ctx, result{err: context.Cause(ctx)})
	}
	f := c.inflight[key]
	if f != nil {
		c.stats.Joins++
	} else {
		f = c.start(key, spec)
	}
	f.waiters++
	h := &Handle{c: c, f: f, ctx: ctx}
	if ctx.Done() != nil {
		f.stops = append(f.stops, context.AfterFunc(ctx, h.leave))
	}
	return h
}

// start registers and launches a compile of spec. c.mu is held.
func (c *Compiler) start(key string, spec Spec) *flight {
	spec.Choices = append([]string(nil), spec.Choices...)
	ctx, cancel := context.WithCancel(context.Background())
	f := &flight{
		key:    key,
		spec:   spec,
		ctx:    ctx,
		cancel: cancel,
		done:   make(chan struct{}),
	}
	c.inflight[key] = f
	c.stats.Compiles++
	go c.run(f)
	return f
}

// run compiles f's spec once a compile slot is free, then publishes the
// result.
func (c *Compiler) run(f *flight) {
	var res result
	c.compiling.Add(1)
	select {
	case c.slots <- struct{}{}:
		res = c.work(f)
		<-c.slots
	case <-f.ctx.Done():
		res = result{err: context.Cause(f.ctx)}
	}
	c.compiling.Add(-1)
	if res.err != nil {
		res.compiled = nil
		res.err = fmt.Errorf("rein: compile %s: %w", f.spec.Kind, res.err)
	}
	c.finish(f, res)
}

// work builds f's spec under the time limit, and says whether a failure is
// to be cached: not when the compile was abandoned, nor for an error that
// wraps a context's end other than the time limit's (a loader's own
// deadline, say), since those say nothing about the spec.
func (c *Compiler) work(f *flight) result {
	ctx := f.ctx
	if c.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = withWorkLimit(ctx, c.opts.Timeout,
			fmt.Errorf("compile took longer than %v: %w (%w)", c.opts.Timeout, grammar.ErrLimit, context.DeadlineExceeded))
		defer cancel()
	}
	// The stages look at their context every few thousand steps: there
	// they step aside while a BatchFiller fills masks (fillgate).
	yielding := fillgate.Context(ctx)
	res := c.build(yielding, &f.spec)
	if res.err == nil && c.opts.PrepareWork >= 0 {
		work := c.opts.PrepareWork
		if work == 0 {
			work = DefaultPrepareWork
		}
		res.compiled.WarmWithin(yielding, work)
	}
	switch {
	case res.err == nil:
	case f.ctx.Err() != nil:
		res.err = context.Cause(f.ctx) // abandoned: every waiter has gone
	case ctx.Err() != nil:
		res.err, res.keep = context.Cause(ctx), true // the time limit
		res.expires = time.Now().Add(timeoutTTL)
	default:
		res.keep = !errors.Is(res.err, context.Canceled) && !errors.Is(res.err, context.DeadlineExceeded)
	}
	return res
}

// withWorkLimit returns a context of parent's that ends with cause once
// the compile has had limit of time, not counting the time the process's
// background work was held back for BatchFiller fills (fillgate.Held), and
// at twice limit at the latest. Compiles step aside while fills run, so
// under fills back to back a wall-clock limit would stop compiles that
// their own work would not have stopped; a time-out then says something
// about the spec, and is cached. The gate holds the background back for
// half the time at most (plus its credit), so under fills back to back
// the two bounds meet: a compile runs for up to about twice its limit.
// (Held is the process's: a compile that was not parked itself is given
// the time too, never past the later bound.)
func withWorkLimit(parent context.Context, limit time.Duration, cause error) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	start, held := time.Now(), fillgate.Held()
	go func() {
		t := time.NewTimer(limit)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			elapsed := time.Since(start)
			left := min(limit-elapsed+(fillgate.Held()-held), 2*limit-elapsed)
			if left <= 0 {
				cancel(cause)
				return
			}
			t.Reset(left)
		}
	}()
	return ctx, func() { cancel(nil) }
}

// finish publishes f's result to its waiters and to the cache: a grammar, or
// a failure to keep (result.keep). A compile whose waiters had all gone
// still fills the cache when it succeeded: the work is done.
func (c *Compiler) finish(f *flight, res result) {
	c.mu.Lock()
	f.res = res
	f.finished = true
	close(f.done)
	if c.inflight[f.key] == f {
		delete(c.inflight, f.key)
	}
	if res.err != nil {
		c.stats.Failures++
	}
	if (res.err == nil || res.keep) && c.cache.budget > 0 {
		c.cache.put(f.key, res)
		c.stats.Evictions += c.cache.evict()
	}
	if res.err == nil {
		c.warm(f.key, res.compiled)
	}
	stops := f.stops
	f.stops = nil
	c.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	f.cancel()
}

// leave withdraws the request from its compile, once: called when its
// context ends, by the context's callback or by the first look at the
// handle after that, whichever comes first.
func (h *Handle) leave() {
	if h.f != nil && h.left.CompareAndSwap(false, true) {
		h.c.leave(h.f)
	}
}

// leave records that one of f's waiters has gone; the last one to go
// cancels the compile, and later requests start a new one.
func (c *Compiler) leave(f *flight) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.finished {
		return
	}
	f.waiters--
	if f.waiters > 0 {
		return
	}
	if c.inflight[f.key] == f {
		delete(c.inflight, f.key)
	}
	f.cancel()
}

// answered returns a handle that is Ready with res.
func answered(ctx context.Context, res result) *Handle {
	h := &Handle{ctx: ctx}
	h.res.Store(&res)
	return h
}

// resolve returns the handle's outcome, fixing it on first sight, or nil
// while the compile runs and the request's context lives.
func (h *Handle) resolve() *result {
	if r := h.res.Load(); r != nil {
		return r
	}
	select {
	case <-h.f.done:
		if h.f.res.err == nil || h.ctx.Err() == nil {
			h.res.CompareAndSwap(nil, &h.f.res)
			break
		}
		// The compile failed and the request has gone: report why it went,
		// since its going may be what stopped the compile.
		h.res.CompareAndSwap(nil, &result{err: context.Cause(h.ctx)})
	default:
		if h.ctx.Err() == nil {
			return nil
		}
		h.res.CompareAndSwap(nil, &result{err: context.Cause(h.ctx)})
		h.leave()
	}
	return h.res.Load()
}

// Ready reports whether the handle has its outcome: the compile is done, or
// the request's context has ended. It never blocks.
func (h *Handle) Ready() bool { return h.resolve() != nil }

// Err returns the compile's error once Ready (nil if it succeeded), and nil
// before. Errors wrap the front-end's (*grammar.Error with the place in the
// source), the automaton's, a *mask.PanicError for a panic, or the request
// context's error.
func (h *Handle) Err() error {
	if r := h.resolve(); r != nil {
		return r.err
	}
	return nil
}

// Compiled returns the compiled grammar once Ready and successful, and nil
// otherwise.
func (h *Handle) Compiled() *mask.Compiled {
	if r := h.resolve(); r != nil {
		return r.compiled
	}
	return nil
}

// Warnings returns what the JSON Schema front-end ignored in lenient mode or
// could not check (unknown formats), once Ready.
func (h *Handle) Warnings() []jsonschema.Warning {
	if r := h.resolve(); r != nil {
		return r.warnings
	}
	return nil
}

// Wait blocks until the handle is Ready or ctx ends, and returns the
// outcome. ctx bounds this wait only: when it ends first, Wait returns its
// error and the handle stays pending; the request's interest in the compile
// is governed by the context given to CompileAsync.
func (h *Handle) Wait(ctx context.Context) (*mask.Compiled, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if r := h.resolve(); r != nil {
		return r.compiled, r.err
	}
	select {
	case <-h.f.done:
	case <-h.ctx.Done():
	case <-ctx.Done():
		if r := h.resolve(); r != nil { // the request's own context, or a race with the compile
			return r.compiled, r.err
		}
		return nil, context.Cause(ctx)
	}
	r := h.resolve()
	return r.compiled, r.err
}
