// Package ctxtest holds a context for tests of cancellation that need no
// timer: it ends at a chosen call to Err and counts the calls, so a test
// asserts exactly where work stopped and how often it looked.
package ctxtest

import (
	"context"
	"sync/atomic"
)

// Countdown is a context that ends at its limit-th call to Err.
type Countdown struct {
	context.Context
	limit int64
	calls atomic.Int64
	done  chan struct{}
}

// NewCountdown returns a context that reports context.Canceled from the
// limit-th call to Err on.
func NewCountdown(limit int64) *Countdown {
	return &Countdown{Context: context.Background(), limit: limit, done: make(chan struct{})}
}

// Done returns a channel that is never closed: the context ends only as Err
// says.
func (c *Countdown) Done() <-chan struct{} { return c.done }

// Err counts the call, and reports context.Canceled from the limit-th on.
func (c *Countdown) Err() error {
	if c.calls.Add(1) >= c.limit {
		return context.Canceled
	}
	return nil
}

// Calls is the number of calls to Err so far.
func (c *Countdown) Calls() int64 { return c.calls.Load() }
