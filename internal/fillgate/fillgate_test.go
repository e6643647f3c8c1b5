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

// TestYieldWaitsAtMostMaxWait checks the bounds for fills that never end:
// a wait ends at maxWait, and nothing parks for maxWait after that.
func TestYieldWaitsAtMostMaxWait(t *testing.T) {
	g := newGate(time.Millisecond)
	clock := time.Unix(1000, 0)
	g.now = func() time.Time { return clock }
	g.Enter()
	defer g.Exit()
	g.Yield() // returns while the fill still runs
	if got := g.timeouts.Load(); got != 1 {
		t.Fatalf("%d timeouts counted, want 1", got)
	}
	// Free for maxWait on the clock: no park (else a second timeout).
	for range 3 {
		g.Yield()
		clock = clock.Add(time.Millisecond / 4)
	}
	if got := g.timeouts.Load(); got != 1 {
		t.Fatalf("%d timeouts counted, want 1: a Yield parked less than maxWait after a timeout", got)
	}
	clock = clock.Add(time.Millisecond / 4)
	g.Yield() // maxWait after the timeout: parks again
	if got := g.timeouts.Load(); got != 2 {
		t.Fatalf("%d timeouts counted, want 2", got)
	}
	if got := g.parked.Load(); got != 0 {
		t.Fatalf("%d goroutines still counted parked", got)
	}
}

func TestEnterExitAllocateNothing(t *testing.T) {
	g := newGate(time.Hour)
	if n := testing.AllocsPerRun(100, func() { g.Enter(); g.BeginWait(); g.Yield(); g.EndWait(); g.Exit() }); n != 0 {
		t.Fatalf("Enter, BeginWait, a Yield beside the wait, EndWait and Exit allocate %v times", n)
	}
}
