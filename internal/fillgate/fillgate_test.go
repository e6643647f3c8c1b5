package fillgate

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestContext checks that the context keeps its parent's answers: Err,
// Done, Value, and cancellation passed on to contexts derived from it.
func TestContext(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	ctx := Context(parent)
	child, cancelChild := context.WithCancel(ctx)
	defer cancelChild()
	if ctx.Err() != nil || child.Err() != nil {
		t.Fatal("done before cancel")
	}
	if ctx.Value(key{}) != "v" {
		t.Fatal("value lost")
	}
	Enter()
	if !Filling() {
		t.Fatal("Enter: not filling")
	}
	BeginWait() // so that Err answers at once
	cancel()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("Err while filling = %v, want Canceled", ctx.Err())
	}
	EndWait()
	Exit()
	if Filling() {
		t.Fatal("Exit: still filling")
	}
	<-child.Done()
	if !errors.Is(child.Err(), context.Canceled) {
		t.Fatalf("child Err = %v", child.Err())
	}
}

// park runs g.Yield on a goroutine, and returns once it has parked, with a
// channel closed when Yield returns.
func park(t *testing.T, g *gate) <-chan struct{} {
	t.Helper()
	parked, done := tryYield(t, g)
	if !parked {
		t.Fatal("Yield returned without parking")
	}
	return done
}

// returns reports whether done is closed within a long while (a test
// that would otherwise hang).
func returns(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	case <-time.After(10 * time.Second):
		return false
	}
}

func TestYieldParksUntilTheFillsEnd(t *testing.T) {
	g := newGate(time.Hour)
	g.Yield() // no fill: returns at once
	g.Enter()
	g.Enter()
	done := park(t, g)
	g.Exit()
	select {
	case <-done:
		t.Fatal("Yield returned while a fill runs")
	default:
	}
	if !g.Filling() {
		t.Fatal("one Exit of two ended the filling")
	}
	g.Exit()
	if !returns(done) {
		t.Fatal("Yield still parked after the last Exit")
	}
	if got := g.timeouts.Load(); got != 0 {
		t.Fatalf("%d timeouts, want none", got)
	}
	if g.Filling() {
		t.Fatal("filling after the last Exit")
	}
}

func TestBeginWaitLetsTheParkedGo(t *testing.T) {
	g := newGate(time.Hour)
	g.Enter()
	defer g.Exit()
	first, second := park(t, g), park(t, g)
	g.BeginWait()
	if !returns(first) || !returns(second) {
		t.Fatal("BeginWait left a goroutine parked")
	}
	// While one waits, nothing parks.
	free := make(chan struct{})
	go func() {
		g.Yield()
		close(free)
	}()
	if !returns(free) {
		t.Fatal("Yield parked while a goroutine waits on background work")
	}
	// Once the wait ends, Yield parks again while the fill runs.
	g.EndWait()
	done := park(t, g)
	g.BeginWait()
	if !returns(done) {
		t.Fatal("a second BeginWait left a goroutine parked")
	}
	g.EndWait()
}

// TestYieldWaitsAtMostMaxWait checks that a wait ends at maxWait, the
// fill still running.
func TestYieldWaitsAtMostMaxWait(t *testing.T) {
	g := newGate(time.Millisecond)
	g.Enter()
	defer g.Exit()
	g.Yield() // returns while the fill still runs
	if got := g.timeouts.Load(); got != 1 {
		t.Fatalf("%d timeouts counted, want 1", got)
	}
	if got := g.parked.Load(); got != 0 {
		t.Fatalf("%d goroutines still counted parked", got)
	}
}

// TestSetMaxWaitRaisesTheCredit checks that a long MaxWait set by a test
// is a park's real bound: the credit's cap and the credit follow it, else
// a park would still end after twice the default credit.
func TestSetMaxWaitRaisesTheCredit(t *testing.T) {
	g := newGate(MaxWait)
	g.Enter()
	defer g.Exit()
	if old := g.setMaxWait(time.Hour); old != MaxWait {
		t.Fatalf("setMaxWait replaced %v, want %v", old, MaxWait)
	}
	g.mu.Lock()
	wait, park, _ := g.mayParkLocked()
	g.mu.Unlock()
	if !park || wait != time.Hour {
		t.Fatalf("a park may last %v (park %v), want an hour", wait, park)
	}
}

// fakeClock is a gate's clock in tests: set by the test, read by the
// gate's goroutines.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// tryYield runs g.Yield on a goroutine and reports whether it parked,
// with a channel closed when it returns.
func tryYield(t *testing.T, g *gate) (bool, <-chan struct{}) {
	t.Helper()
	before := g.parked.Load()
	done := make(chan struct{})
	go func() {
		g.Yield()
		close(done)
	}()
	deadline := time.Now().Add(10 * time.Second) // a guard, not a measure
	for {
		select {
		case <-done:
			return false, done
		default:
		}
		if g.parked.Load() > before {
			return true, done
		}
		if time.Now().After(deadline) {
			t.Fatal("Yield neither parked nor returned")
		}
		runtime.Gosched()
	}
}

// TestGateHoldsBackHalfTheTimeAtMost checks the background's share of time
// on a fake clock in hours (no park may end by its timer), with fills that
// end for an instant between them, as a filler's steps back to back do:
// over the run the gate holds the background back for half of it at most,
// plus its credit (an hour here), and for twice the credit at most at
// once; and it does park whenever there is credit.
func TestGateHoldsBackHalfTheTimeAtMost(t *testing.T) {
	g := newGate(time.Hour)
	var clock fakeClock
	clock.ns.Store(int64(1000 * time.Hour))
	g.now = clock.now
	const step = 15 * time.Minute
	var held, longest, run, elapsed time.Duration
	for round := range 40 {
		g.Enter()
		parked, done := tryYield(t, g)
		clock.advance(step)
		elapsed += step
		g.Exit()
		if !returns(done) {
			t.Fatalf("round %d: Yield still parked after Exit", round)
		}
		if parked {
			held += step
			run += step
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	if held > elapsed/2+time.Hour {
		t.Fatalf("held back %v of %v: more than half plus the credit", held, elapsed)
	}
	if longest > 2*time.Hour {
		t.Fatalf("held back %v at once: more than twice the credit", longest)
	}
	// The credit spent, the background is held back every other round.
	if want := 6 * time.Hour; held != want {
		t.Fatalf("held back %v of %v, want %v: a Yield with credit did not park", held, elapsed, want)
	}
	if got := g.timeouts.Load(); got != 0 {
		t.Fatalf("%d timeouts, want none", got)
	}
}

// TestGateChargesOverlappingParksOnce checks that two goroutines parked at
// once hold the background back for the time, not twice the time, in the
// credit and in Held.
func TestGateChargesOverlappingParksOnce(t *testing.T) {
	g := newGate(time.Hour)
	var clock fakeClock
	clock.ns.Store(int64(1000 * time.Hour))
	g.now = clock.now
	g.Enter()
	a, b := park(t, g), park(t, g)
	clock.advance(time.Hour) // credit: 1h - 1h + 30m
	if got := g.Held(); got != time.Hour {
		t.Fatalf("held %v while parked, want 1h", got)
	}
	g.Exit()
	if !returns(a) || !returns(b) {
		t.Fatal("Yield still parked after Exit")
	}
	clock.advance(30 * time.Minute) // nothing parked: nothing held; credit 45m
	if got := g.Held(); got != time.Hour {
		t.Fatalf("held %v in all, want 1h", got)
	}
	g.Enter()
	defer g.Exit()
	if parked, _ := tryYield(t, g); !parked {
		t.Fatal("no park with 45 minutes of credit left: the overlapping parks were charged twice")
	}
}

// TestYieldWithoutCreditGivesTheProcessorAway checks that a Yield that may
// not park, its credit spent, still lets a fill ready to run go first
// (gosched), and that it does not where no fill runs or where a goroutine
// waits on background work (the caller may be doing the work it waits on).
func TestYieldWithoutCreditGivesTheProcessorAway(t *testing.T) {
	g := newGate(time.Hour)
	var clock fakeClock
	clock.ns.Store(int64(1000 * time.Hour))
	g.now = clock.now
	var passes int
	g.gosched = func() { passes++ }

	g.Yield() // no fill
	g.Enter()
	a := park(t, g) // spends the hour of credit
	clock.advance(2 * time.Hour)
	g.Exit()
	if !returns(a) {
		t.Fatal("Yield still parked after Exit")
	}
	if passes != 0 {
		t.Fatalf("%d passes with credit or without a fill, want 0", passes)
	}
	g.Enter()
	defer g.Exit()
	g.Yield() // credit spent: passes
	if passes != 1 {
		t.Fatalf("%d passes without credit, want 1", passes)
	}
	g.BeginWait()
	g.Yield() // a goroutine waits on background work: goes on
	g.EndWait()
	if passes != 1 {
		t.Fatalf("%d passes, want 1: a Yield beside a wait gave its processor away", passes)
	}
	if got := g.parked.Load(); got != 0 {
		t.Fatalf("%d goroutines counted parked, want 0", got)
	}
}

// TestHandoffOnlyForAWaiter checks that Handoff gives the processor away
// where a goroutine waits on background work, and only there.
func TestHandoffOnlyForAWaiter(t *testing.T) {
	g := newGate(time.Hour)
	var passes int
	g.gosched = func() { passes++ }
	g.Enter()
	defer g.Exit()
	g.Handoff()
	if passes != 0 {
		t.Fatalf("%d passes without a waiter, want 0", passes)
	}
	g.BeginWait()
	g.Handoff()
	g.EndWait()
	if passes != 1 {
		t.Fatalf("%d passes with a waiter, want 1", passes)
	}
	g.Handoff()
	if passes != 1 {
		t.Fatalf("%d passes after the wait ended, want 1", passes)
	}
}

func TestEnterExitAllocateNothing(t *testing.T) {
	g := newGate(time.Hour)
	if n := testing.AllocsPerRun(100, func() {
		g.Enter()
		g.BeginWait()
		g.Yield()
		g.Handoff()
		g.EndWait()
		g.Exit()
	}); n != 0 {
		t.Fatalf("Enter, BeginWait, a Yield and a Handoff beside the wait, EndWait and Exit allocate %v times", n)
	}
}
