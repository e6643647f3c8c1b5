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
// MaxWait. And the gate holds the background back for about half of the
// time at most: over each stretch of a few MaxWaits, nothing parks once
// some goroutine has been parked for half of it (plus MaxWait), so fills
// back to back (a process filling from many goroutines, or with no
// forward pass between its steps) slow the background but never stop it.
package fillgate

import (
	"context"
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
	filling   atomic.Int32  // fills running; read without mu by Yield's fast path
	waiting   atomic.Int32  // goroutines waiting on background work (BeginWait)
	maxWait   atomic.Int64  // a Yield's longest wait, in nanoseconds
	allowance time.Duration // the time held back beyond half (mayParkLocked): MaxWait but in tests

	mu   sync.Mutex
	open chan struct{} // closed when the parked may go; nil while none waits
	now  func() time.Time
	// The share of time the gate holds the background back: since epoch,
	// closed is the time some goroutine was parked, not counting the
	// stretch going on since closedSince (zero: none parked now).
	epoch       time.Time
	closed      time.Duration
	closedSince time.Time
	parkedNow   int // goroutines parked, under mu

	parked   atomic.Int32 // goroutines parked in Yield
	timeouts atomic.Int64 // Yields that ended at maxWait, the fills still running
}

func newGate(maxWait time.Duration) *gate {
	g := &gate{now: time.Now, allowance: maxWait}
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

// Yield parks the calling goroutine while fills run (for MaxWait at most),
// and returns at once otherwise.
func Yield() { std.Yield() }

// SetMaxWait sets the longest a Yield waits, and returns the setting it
// replaces. Tests set it long, so that a goroutine left parked hangs rather
// than goes on after a while.
func SetMaxWait(d time.Duration) time.Duration {
	return time.Duration(std.maxWait.Swap(int64(d)))
}

// Waiting returns how many goroutines wait on background work now
// (BeginWait).
func Waiting() int { return int(std.waiting.Load()) }

// Parked returns how many goroutines are parked in Yield now.
func Parked() int { return int(std.parked.Load()) }

// Timeouts returns how many Yields have ended at MaxWait, with fills still
// running.
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

// epochLength is how many allowances (MaxWait) the gate's share of time
// is counted over.
const epochLength = 10

// mayParkLocked reports whether a Yield may park now: fills run, none
// waits on background work, and the background has been held back for no
// more than half of the time since the epoch began, plus the allowance.
func (g *gate) mayParkLocked() bool {
	if g.filling.Load() == 0 || g.waiting.Load() > 0 {
		return false
	}
	now := g.now()
	if now.Sub(g.epoch) > epochLength*g.allowance {
		g.epoch, g.closed = now, 0
		if !g.closedSince.IsZero() {
			g.closedSince = now
		}
	}
	closed := g.closed
	if !g.closedSince.IsZero() {
		closed += now.Sub(g.closedSince)
	}
	return closed <= now.Sub(g.epoch)/2+g.allowance
}

// openLocked lets the parked go.
func (g *gate) openLocked() {
	if g.open != nil {
		close(g.open)
		g.open = nil
	}
}

// Filling reports whether a fill is running.
func (g *gate) Filling() bool { return g.filling.Load() > 0 }

// Yield parks the caller while fills run and no goroutine waits on
// background work, for g's longest wait at most, unless the background has
// been held back for its share of the time (mayParkLocked).
func (g *gate) Yield() {
	if g.filling.Load() == 0 {
		return // the checkpoints' common case: one atomic load
	}
	g.mu.Lock()
	if !g.mayParkLocked() {
		g.mu.Unlock()
		return
	}
	if g.open == nil {
		// Made outside the lock, which Exit takes: a fill never waits on
		// an allocation.
		g.mu.Unlock()
		fresh := make(chan struct{})
		g.mu.Lock()
		if !g.mayParkLocked() {
			g.mu.Unlock()
			return
		}
		if g.open == nil {
			g.open = fresh
		}
	}
	open := g.open
	if g.parkedNow++; g.parkedNow == 1 {
		g.closedSince = g.now()
	}
	g.mu.Unlock()
	g.parked.Add(1)
	t := time.NewTimer(time.Duration(g.maxWait.Load()))
	select {
	case <-open:
	case <-t.C:
		g.timeouts.Add(1)
	}
	t.Stop()
	g.mu.Lock()
	if g.parkedNow--; g.parkedNow == 0 {
		g.closed += g.now().Sub(g.closedSince)
		g.closedSince = time.Time{}
	}
	g.mu.Unlock()
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
