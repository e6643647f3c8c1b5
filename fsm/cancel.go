package fsm

import (
	"context"
	"fmt"
)

// checkEvery is the work, in the units each construction counts (subset
// steps, partition moves), between two looks at a context: often enough to
// stop within a millisecond or so, rarely enough that the look costs nothing
// measurable.
const checkEvery = 1 << 14

// stopper checks a context every checkEvery units of work. The zero value,
// and one made from a context that can never end, never stops.
type stopper struct {
	ctx  context.Context // nil when it can never end
	next int             // the work count at which to look next
}

func newStopper(ctx context.Context) stopper {
	if ctx == nil || ctx.Done() == nil {
		return stopper{}
	}
	return stopper{ctx: ctx, next: checkEvery}
}

// at is told the work done so far (a count that only grows) and, each time
// it has grown by checkEvery, returns an error wrapping the context's error
// if the context has ended.
func (s *stopper) at(work int) error {
	if s.ctx == nil || work < s.next {
		return nil
	}
	s.next = work + checkEvery
	return s.check()
}

// check returns an error wrapping the context's error if it has ended.
func (s *stopper) check() error {
	if s.ctx == nil {
		return nil
	}
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("fsm: stopped: %w", err)
	}
	return nil
}
