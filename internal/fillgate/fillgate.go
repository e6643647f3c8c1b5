// Package fillgate lets the background work of a process (compiles, the
// classification done before Ready, warming) step aside for the goroutines
// that fill masks.
//
// A batch's masks are the decode path: an engine's whole step waits for the
// slowest row. Go's scheduler has no priorities, and where a compile worker
// and the fill's goroutines outnumber the processors (GOMAXPROCS), a fill
// goroutine waits in the run queue until the compile is preempted, which
// the runtime does after 10 ms. So a fill marks itself running (Enter,
// Exit), and background work calls Yield at its checkpoints: where it
// looks at its context anyway (every few thousand steps of each stage),
// between the nodes it warms, and every so many steps of a classification's
// walk. While a fill runs, Yield parks its goroutine until no fill runs,
// which frees its processor for them.
//
// Parking, not runtime.Gosched: a yielding goroutine goes to the global run
// queue, which a processor looks at before it steals from another's, so
// it would take its processor straight back, and a fill's helper woken
// onto the busy processor of the fill's caller would go on waiting there.
//
// Three bounds keep the background moving. A goroutine that waits on
// background work (a fill that needs the node a warming walk is
// classifying) marks its wait (BeginWait, EndWait): while one waits,
// nothing parks, and the parked go. No goroutine stays parked longer than
// MaxWait. And over any stretch of time, the gate holds the background
// back for half of it at most, plus MaxWait, and for twice MaxWait at
// most at once (a credit: settleLocked), so fills back to back (a process
// filling from many goroutines, or with no forward pass between its
// steps) slow the background but never stop it.
//
// A fill goroutine that blocks for a moment (on a helper's row, on a node
// being classified, on the collector) goes back to a run queue when it
// wakes, often the one of the processor that woke it, and background work
// that does not step aside would keep it there for up to 10 ms. So a
// Yield that may not park, the credit spent, still calls runtime.Gosched:
// a fill in the run queue of the caller's processor, or in the global one,
// runs first (one queued on another processor is not helped: that is what
// parking is for). And background work that finishes a node hands its
// processor off (Handoff) where a goroutine waits on background work: the
// waiter was woken onto that processor.
package fillgate

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// MaxWait bounds one Yield's wait.
const MaxWait = 2 * time.Millisecond

// std is the process's gate: its fills are the process's.
var std = newGate(MaxWait)

// gate is what Enter, Exit, BeginWait, EndWait and Yield work on. Only tests make
// their own.
type gate struct {
	filling atomic.Int32 // fills running; read without mu by Yield's fast path
	waiting atomic.Int32 // goroutines waiting on background work (BeginWait)
	maxWait atomic.Int64 // a Yield's longest wait, in nanoseconds

	mu   sync.Mutex
	open chan struct{} // closed when the parked may go; nil while none waits
	now  func() time.Time
	// gosched gives the processor away without parking (runtime.Gosched;
	// tests count the calls).
	gosched func()
	// The background's credit of time to be held back (see settleLocked):
	// it grows at half the rate of time, up to most, and shrinks at the
	// full rate while holding is set (a goroutine is parked on open).
	credit  time.Duration
	most    time.Duration
	settled time.Time // when credit was last brought up to date
	holding bool
	onOpen  int           // goroutines parked on open
	held    time.Duration // the time some goroutine was parked on open, over the gate's life

	parked   atomic.Int32 // goroutines parked in Yield
	timeouts atomic.Int64 // Yields that ended by their time, the fills still running
}

func newGate(maxWait time.Duration) *gate {
	g := &gate{now: time.Now, gosched: runtime.Gosched, credit: maxWait, most: maxWait}
	g.maxWait.Store(int64(maxWait))
	return g
}

// Enter marks a fill as running, until the matching Exit.
func Enter() { std.Enter() }

// Exit ends a fill that Enter began.
func Exit() { std.Exit() }

// BeginWait marks the caller as waiting on background work, which may be
// parked: the parked go, and nothing parks until the matching EndWait.
func BeginWait() { std.BeginWait() }

// EndWait ends a wait that BeginWait began.
func EndWait() { std.EndWait() }

// Filling reports whether a fill is running.
func Filling() bool { return std.Filling() }

// Handoff gives the caller's processor away for a moment where a
// goroutine waits on background work (BeginWait). Background work calls
// it when it has finished what such a goroutine may wait on: the waiter,
// woken onto the caller's processor, runs first then, and does not wait
// there until the caller parks or is preempted, which the runtime does
// after 10 ms.
func Handoff() { std.Handoff() }

// Yield parks the calling goroutine while fills run (for MaxWait at most).
// Where the background has been held back for its share of the time, it
// gives the processor away for a moment instead (runtime.Gosched); where
// no fill runs, it returns at once.
func Yield() { std.Yield() }

// SetMaxWait sets the longest a Yield waits, and the credit's cap with it
// (the credit is filled up to it), and returns the setting it replaces.
// Tests set it long, so that a goroutine left parked hangs rather than
// goes on after a while.
func SetMaxWait(d time.Duration) time.Duration { return std.setMaxWait(d) }

func (g *gate) setMaxWait(d time.Duration) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.settleLocked()
	g.most, g.credit = d, d
	return time.Duration(g.maxWait.Swap(int64(d)))
}

// Waiting returns how many goroutines wait on background work now
// (BeginWait).
func Waiting() int { return int(std.waiting.Load()) }

// Held returns how long, over the process's life, background work has
// been held back (some goroutine parked in Yield, counted once however
// many were). Work timed by the wall clock reads it before and after to
// tell how much of its time the fills took.
func Held() time.Duration { return std.Held() }

// Parked returns how many goroutines are parked in Yield now.
func Parked() int { return int(std.parked.Load()) }

// Timeouts returns how many Yields have ended by their time (MaxWait, or
// twice the credit left where that is shorter), with fills still running.
func Timeouts() int64 { return std.timeouts.Load() }

// Enter marks a fill as running, until the matching Exit. It allocates
// nothing.
func (g *gate) Enter() { g.filling.Add(1) }

// Exit ends a fill that Enter began; once none runs, the parked go.
func (g *gate) Exit() {
	g.mu.Lock()
	if g.filling.Add(-1) == 0 {
		g.openLocked()
	}
	g.mu.Unlock()
}

// BeginWait marks the caller as waiting on background work: the parked
// go, and nothing parks until the matching EndWait.
func (g *gate) BeginWait() {
	g.waiting.Add(1)
	g.mu.Lock()
	g.openLocked()
	g.mu.Unlock()
}

// EndWait ends a wait that BeginWait began.
func (g *gate) EndWait() { g.waiting.Add(-1) }

// settleLocked brings the credit up to now: half the time since it was
// last settled comes in, and all of it goes out while the gate holds a
// goroutine. So over any stretch the background is held back for half of
// it at most, plus most; and the longest it is held back at once is twice
// most.
func (g *gate) settleLocked() {
	now := g.now()
	d := now.Sub(g.settled)
	g.settled = now
	if d <= 0 {
		return // the first settling, or a clock that went back
	}
	if g.holding {
		g.credit -= d
		g.held += d
	}
	g.credit = min(g.credit+d/2, g.most)
}

// mayParkLocked reports whether a Yield may park now (park), and for how
// long at most: fills run, none waits on background work, and there is
// credit. Where only the credit is missing, it reports spent.
func (g *gate) mayParkLocked() (wait time.Duration, park, spent bool) {
	if g.filling.Load() == 0 || g.waiting.Load() > 0 {
		return 0, false, false
	}
	g.settleLocked()
	if g.credit <= 0 {
		return 0, false, true
	}
	// Held, the credit shrinks at half the rate of time: it lasts twice.
	return min(time.Duration(g.maxWait.Load()), 2*g.credit), true, false
}

// openLocked lets the parked go. The time they take to run again is not
// held against the background.
func (g *gate) openLocked() {
	if g.open != nil {
		g.settleLocked()
		close(g.open)
		g.open, g.holding, g.onOpen = nil, false, 0
	}
}

// Filling reports whether a fill is running.
func (g *gate) Filling() bool { return g.filling.Load() > 0 }

// Held returns how long g has held the background back so far.
func (g *gate) Held() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.settleLocked()
	return g.held
}

// Handoff gives the processor away (gosched) where a goroutine waits on
// background work.
func (g *gate) Handoff() {
	if g.waiting.Load() > 0 {
		g.gosched()
	}
}

// Yield parks the caller while fills run and no goroutine waits on
// background work, for g's longest wait at most. Where the background has
// been held back for its share of the time (settleLocked), it gives the
// processor away instead (gosched) and goes on; where no fill runs or a
// goroutine waits, it returns at once.
func (g *gate) Yield() {
	if g.filling.Load() == 0 {
		return // the checkpoints' common case: one atomic load
	}
	g.mu.Lock()
	wait, park, spent := g.mayParkLocked()
	if park && g.open == nil {
		// Made outside the lock, which Exit takes: a fill never waits on
		// an allocation.
		g.mu.Unlock()
		fresh := make(chan struct{})
		g.mu.Lock()
		if wait, park, spent = g.mayParkLocked(); park && g.open == nil {
			g.open = fresh
		}
	}
	if !park {
		g.mu.Unlock()
		if spent {
			// A fill that blocked for a moment (on a helper, on a node, on
			// the collector) and was woken onto this processor would else
			// wait for it until this goroutine is preempted, which the
			// runtime does after 10 ms.
			g.gosched()
		}
		return
	}
	open := g.open
	g.onOpen++
	g.holding = true
	g.mu.Unlock()
	g.parked.Add(1)
	t := time.NewTimer(wait)
	select {
	case <-open:
	case <-t.C:
		g.timeouts.Add(1)
		g.mu.Lock()
		if g.open == open {
			// Still shut: this one is held no more.
			if g.onOpen--; g.onOpen == 0 {
				g.settleLocked()
				g.holding = false
			}
		}
		g.mu.Unlock()
	}
	t.Stop()
	g.parked.Add(-1)
}

// Context returns ctx, whose Err yields (Yield) before it answers: work
// that looks at its context every so often steps aside as often.
func Context(ctx context.Context) context.Context { return yielding{ctx} }

// yielding is Context's context. Values and Done are ctx's own, so
// contexts derived from it are ctx's children as they would be without it.
type yielding struct{ context.Context }

func (c yielding) Err() error {
	Yield()
	return c.Context.Err()
}
