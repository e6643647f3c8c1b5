package fillgate

import (
	"context"
	"errors"
	"testing"
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
	Yield() // gives the processor away and comes back
	cancel()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("Err while filling = %v, want Canceled", ctx.Err())
	}
	Exit()
	if Filling() {
		t.Fatal("Exit: still filling")
	}
	<-child.Done()
	if !errors.Is(child.Err(), context.Canceled) {
		t.Fatalf("child Err = %v", child.Err())
	}
}
