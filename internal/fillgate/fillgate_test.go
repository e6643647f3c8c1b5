package fillgate

import (
	"context"
	"errors"
	"runtime"
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
	before := g.parked.Load()
	done := make(chan struct{})
	go func() {
		g.Yield()
		close(done)
	}()
	for g.parked.Load() == before {
		select {
		case <-done:
			t.Fatal("Yield returned without parking")
		default:
			runtime.Gosched()
		}
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

// TestGateHoldsBackHalfTheTimeAtMost checks the share of time the gate
// holds the background back, on a fake clock, with fills that end for an
// instant between them (a filler whose steps run back to back): once a
// goroutine has been parked for half the time since the epoch began plus
// the allowance, nothing parks until the rest of the time catches up.
func TestGateHoldsBackHalfTheTimeAtMost(t *testing.T) {
	g := newGate(time.Hour) // parks end when a fill does, never by the timer
	g.allowance = time.Millisecond
	clock := time.Unix(1000, 0)
	g.now = func() time.Time { return clock }
	ms := func(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }
	start := clock

	g.Enter()
	done := park(t, g) // the epoch begins
	clock = start.Add(ms(5))
	g.Exit() // parked 5 ms of 5
	if !returns(done) {
		t.Fatal("Yield still parked after Exit")
	}

	g.Enter()
	free := make(chan struct{})
	go func() {
		g.Yield()
		close(free)
	}()
	if !returns(free) {
		t.Fatal("Yield parked with the background held back for 5 ms of 5")
	}
	clock = start.Add(ms(8)) // 5 ms of 8: within half and the allowance
	done = park(t, g)
	clock = start.Add(ms(9))
	g.Exit()
	if !returns(done) {
		t.Fatal("Yield still parked after Exit")
	}
	if got := g.timeouts.Load(); got != 0 {
		t.Fatalf("%d timeouts, want none", got)
	}
}

func TestEnterExitAllocateNothing(t *testing.T) {
	g := newGate(time.Hour)
	if n := testing.AllocsPerRun(100, func() { g.Enter(); g.BeginWait(); g.Yield(); g.EndWait(); g.Exit() }); n != 0 {
		t.Fatalf("Enter, BeginWait, a Yield beside the wait, EndWait and Exit allocate %v times", n)
	}
}
