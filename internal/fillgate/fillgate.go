// Package fillgate lets the background work of a process (compiles, the
// classification done before Ready, warming) step aside for the goroutines
// that fill masks.
//
// A batch's masks are the decode path: an engine's whole step waits for the
// slowest row. Go's scheduler has no priorities, and where a compile worker
// and the fill's goroutines outnumber the processors (GOMAXPROCS), a fill
// goroutine waits in the run queue until the compile is preempted, which
// the runtime does after 10 ms. So a fill marks itself running (Enter,
// Exit), and background work calls Yield at the checkpoints where it looks
// at its context anyway (every few thousand steps of each stage): while a
// fill runs, it gives its processor to the goroutines waiting for one.
package fillgate

import (
	"context"
	"runtime"
	"sync/atomic"
)

// filling counts the fills running in the process.
var filling atomic.Int32

// Enter marks a fill as running, until the matching Exit.
func Enter() { filling.Add(1) }

// Exit ends a fill that Enter began.
func Exit() { filling.Add(-1) }

// Filling reports whether a fill is running.
func Filling() bool { return filling.Load() > 0 }

// Yield gives the processor to the goroutines waiting for one while a fill
// runs; otherwise it does nothing.
func Yield() {
	if Filling() {
		runtime.Gosched()
	}
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
