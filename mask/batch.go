package mask

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reinlm/rein/internal/fillgate"
)

// BatchFiller fills the bitmask rows of a batch's constrained sequences on a
// pool of goroutines it keeps between calls, so that an engine's scheduler
// fills every step's masks in one call that allocates nothing once warm.
//
// Each call hands rows to the workers one at a time from a shared counter,
// so a slow row (a cold node of the lazy index, a wide stack) does not hold
// up an evenly split share of the batch. The caller's goroutine fills rows
// too: a filler of n workers starts n-1 goroutines, which the caller wakes
// at once where a row's matcher meets a node not classified yet, and
// otherwise once it has filled rows alone for 20 µs with rows left (most
// steps take less, and waking a goroutine costs about what it would save
// them). A call returns once its rows are filled, whether or not every
// goroutine woke in time to take one (on busy processors a waiting
// goroutine may be a scheduler's time slice away). Stats tells how many
// rows they took.
//
// Failures stay in their row: an error or a panic while filling one row
// becomes that row's error and the other rows are filled all the same. A row
// whose fill failed is left all zeros (no token allowed), so it can never
// let an invalid token through; the engine must not sample it and should
// fail its request. Rows of b that are not listed, the unconstrained
// sequences, are not touched.
//
// A BatchFiller is safe for concurrent use; calls to Fill run one at a time.
// Close stops its goroutines (they are also stopped once the filler is
// garbage). Make one with NewBatchFiller: Fill on a nil or zero BatchFiller
// returns ErrFiller.
type BatchFiller struct {
	p *fillPool
}

// fillPool is the part of a BatchFiller its goroutines see, so that a
// forgotten filler can be collected and its goroutines stopped.
type fillPool struct {
	mu      sync.Mutex // one Fill at a time
	workers int
	closed  bool
	wake    chan struct{} // a token asks a helper to join the current Fill
	quit    chan struct{}
	exited  sync.WaitGroup // helper goroutines alive

	// The current Fill, set before claim is.
	matchers  []*Matcher
	b         *Bitmask
	rows      []int
	errs      []error       // per matcher; scratch reused between calls
	claim     atomic.Uint64 // the current Fill's rows << 32 | the next row to claim
	pending   atomic.Int64  // the current Fill's rows not yet filled
	finished  chan struct{} // a helper that fills the last row tells the caller
	seen      []bool        // scratch for the duplicate-row check
	stall     chan struct{} // tests only: a woken helper waits for it to close
	wakeAfter time.Duration // a Fill's caller fills rows alone this long before it wakes the helpers

	fills, filled, helperRows, wakes, lateWakes atomic.Int64 // FillerStats
}

// FillerStats counts a BatchFiller's work since it was made, to tell
// whether its goroutines share the rows: where every Fill's caller fills
// nearly all of them, the goroutines wake too late to help (on busy or
// virtual processors a parked thread can take longer to wake than a step
// takes), and fewer workers would do as well.
type FillerStats struct {
	Fills      int64 // Fill calls that had rows to fill
	Rows       int64 // rows those calls filled
	HelperRows int64 // of Rows, those the filler's own goroutines filled, not the callers
	Wakes      int64 // times a Fill's caller woke one of its goroutines
	LateWakes  int64 // times one of its goroutines woke for a Fill to find no row left to claim
}

// Stats returns the filler's counts (zero for a nil or zero filler).
func (f *BatchFiller) Stats() FillerStats {
	if f == nil || f.p == nil {
		return FillerStats{}
	}
	p := f.p
	return FillerStats{Fills: p.fills.Load(), Rows: p.filled.Load(), HelperRows: p.helperRows.Load(), Wakes: p.wakes.Load(), LateWakes: p.lateWakes.Load()}
}

// NewBatchFiller returns a filler that spreads each batch over up to workers
// goroutines, the caller's included. workers < 1 means runtime.GOMAXPROCS(0).
func NewBatchFiller(workers int) *BatchFiller { return newBatchFiller(workers, wakeAfter, nil) }

// newBatchFiller is NewBatchFiller, whose callers wake the helpers after
// filling rows alone for wake, and whose woken helpers first wait for stall
// to close where it is not nil (a test's helper that has not run).
func newBatchFiller(workers int, wake time.Duration, stall chan struct{}) *BatchFiller {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	p := &fillPool{
		workers:   workers,
		wake:      make(chan struct{}, workers),
		quit:      make(chan struct{}),
		finished:  make(chan struct{}, 1),
		stall:     stall,
		wakeAfter: wake,
	}
	p.exited.Add(workers - 1)
	for range workers - 1 {
		go p.helper()
	}
	f := &BatchFiller{p: p}
	runtime.AddCleanup(f, func(p *fillPool) { p.close() }, p)
	return f
}

// ErrFiller reports a nil or zero BatchFiller.
var ErrFiller = errors.New("mask: nil or zero BatchFiller (make one with NewBatchFiller)")

// Workers is the most goroutines one Fill uses, the caller's included (0 for
// a nil or zero filler).
func (f *BatchFiller) Workers() int {
	if f == nil || f.p == nil {
		return 0
	}
	return f.p.workers
}

// Close stops the filler's goroutines and waits for them to exit. Fill still
// works after Close, on the caller's goroutine alone. Closing a nil or zero
// filler does nothing.
func (f *BatchFiller) Close() {
	if f != nil && f.p != nil {
		f.p.close()
	}
}

// Fill writes into row rows[i] of b the tokens matchers[i] allows next, for
// every i, and returns the first row error in matcher order (nil when every
// row was filled). When errs is not nil it must have one slot per matcher;
// errs[i] receives row i's error, or nil. Row errors are those of
// FillBitmask (ErrRow for a row outside b or a matcher of another
// vocabulary), an error for a nil matcher, and a *PanicError for a panic;
// after a panic the matcher's state is unspecified. The listed rows must be
// distinct, and each matcher must belong to no other goroutine during the
// call. Fill allocates nothing once the matchers' nodes are indexed, unless a
// row fails.
//
// Errors with the call itself are returned before any row is written: a
// bitmask that Bitmask.Check refuses (ErrShape), rows and matchers of
// different lengths or a row listed twice (ErrRow), errs of the wrong length
// (ErrShape), a nil or zero filler (ErrFiller).
func (f *BatchFiller) Fill(matchers []*Matcher, b *Bitmask, rows []int, errs []error) error {
	if f == nil || f.p == nil {
		return ErrFiller
	}
	p := f.p
	if err := b.Check(); err != nil {
		return err
	}
	if len(rows) != len(matchers) {
		return fmt.Errorf("%w: %d matchers but %d rows", ErrRow, len(matchers), len(rows))
	}
	if errs != nil && len(errs) != len(matchers) {
		return fmt.Errorf("%w: %d matchers but %d error slots", ErrShape, len(matchers), len(errs))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.checkRows(b, rows); err != nil {
		return err
	}
	n := len(matchers)
	if n == 0 {
		return nil
	}
	if cap(p.errs) < n {
		p.errs = make([]error, n)
	}
	p.matchers, p.b, p.rows, p.errs = matchers, b, rows, p.errs[:n]
	helpers := min(p.workers, n) - 1
	if p.closed {
		helpers = 0
	}
	// Whether a row may classify is asked before the rows can be claimed:
	// a helper woken for an earlier Fill may take one as soon as claim is
	// set, and its matcher is the helper's then.
	cold := helpers > 0 && p.mayClassify()
	p.pending.Store(int64(n))
	p.claim.Store(uint64(n) << 32)
	p.fillRows(helpers, cold)
	p.fills.Add(1)
	p.filled.Add(int64(n))

	var first error
	for i, err := range p.errs {
		if err != nil && first == nil {
			first = err
		}
		if errs != nil {
			errs[i] = err
		}
	}
	clear(p.errs)
	p.matchers, p.b, p.rows = nil, nil, nil
	return first
}

// fillRows fills the current Fill's rows, with at most helpers of the
// pool's goroutines (see drain), while the process's background work
// steps aside (fillgate).
func (p *fillPool) fillRows(helpers int, cold bool) {
	fillgate.Enter()
	defer fillgate.Exit() // also on a panic: else the background would park for good
	// A helper that has not run by the time every row is claimed is not
	// waited for: with the processors busy (a compile beside the fill), it
	// could be a scheduler's time slice away.
	if last, _ := p.drain(helpers, cold); !last {
		<-p.finished
	}
}

// errDuplicateRow is returned when two matchers would write the same row.
var errDuplicateRow = errors.New("listed twice")

// checkRows refuses a batch that lists a row twice: two goroutines would
// write it at once. Rows outside b are left to FillBitmask to report.
func (p *fillPool) checkRows(b *Bitmask, rows []int) error {
	if cap(p.seen) < b.Rows {
		p.seen = make([]bool, b.Rows)
	}
	seen := p.seen[:b.Rows]
	var err error
	for _, r := range rows {
		if r < 0 || r >= len(seen) {
			continue
		}
		if seen[r] {
			err = fmt.Errorf("%w: row %d %w", ErrRow, r, errDuplicateRow)
			break
		}
		seen[r] = true
	}
	for _, r := range rows {
		if r >= 0 && r < len(seen) {
			seen[r] = false
		}
	}
	return err
}

func (p *fillPool) helper() {
	defer p.exited.Done()
	for {
		select {
		case <-p.wake:
			if p.stall != nil {
				<-p.stall
			}
			last, n := p.drain(0, false)
			if n == 0 {
				p.lateWakes.Add(1)
			} else {
				p.helperRows.Add(int64(n))
			}
			if last {
				p.finished <- struct{}{}
			}
		case <-p.quit:
			return
		}
	}
}

// wakeAfter is how long a Fill's caller fills rows alone before it wakes
// the helpers for the rows left. Waking a parked goroutine costs the caller
// a system call, a few microseconds, and the goroutine takes tens of them
// or more to start, hundreds on a busy virtual machine: most steps' rows,
// indexed nodes a microsecond each, are filled sooner alone. Many rows
// take longer, and get the help; so do rows that may classify a node,
// woken for at once (drain).
const wakeAfter = 20 * time.Microsecond

// mayClassify reports whether a row of the current Fill may classify a
// node; its rows must not be claimable yet. A matcher that panics there (a
// broken one, whose row's fill will report it) counts as one that may.
func (p *fillPool) mayClassify() (may bool) {
	defer func() {
		if recover() != nil {
			may = true
		}
	}()
	return slices.ContainsFunc(p.matchers, (*Matcher).mayClassify)
}

// wakeHelpers asks n helpers to join the current Fill.
func (p *fillPool) wakeHelpers(n int) {
	for range n {
		select {
		case p.wake <- struct{}{}:
			p.wakes.Add(1)
		default: // the helpers have tokens they have not taken yet
		}
	}
}

// drain fills rows of the current Fill until none is left to claim, and
// reports whether it filled the last one to finish, and how many it
// filled. A row is claimed by a compare-and-swap of claim, so a helper that
// woke late claims only a row of the Fill running then, never one of a Fill
// that has returned; the fields of that Fill were set before its claim was.
//
// The Fill's caller passes the helpers it may wake (helpers pass 0): it
// wakes them at once where a row may classify a node (cold), else once it
// has filled rows for p.wakeAfter and rows are left to claim.
func (p *fillPool) drain(helpers int, cold bool) (last bool, filled int) {
	var start time.Time
	if helpers > 0 {
		start = time.Now()
		// A row that classifies a node takes from tens of microseconds
		// to milliseconds: where one may, the helpers are woken at once,
		// to take the other rows while the caller is in it.
		if cold {
			p.wakeHelpers(helpers)
			helpers = 0
		}
	}
	for {
		v := p.claim.Load()
		if v&0xFFFFFFFF >= v>>32 {
			return last, filled
		}
		if helpers > 0 && time.Since(start) >= p.wakeAfter {
			p.wakeHelpers(helpers)
			helpers = 0
		}
		if !p.claim.CompareAndSwap(v, v+1) {
			continue
		}
		filled++
		i := int(v & 0xFFFFFFFF)
		p.errs[i] = p.fillRow(i)
		last = p.pending.Add(-1) == 0
	}
}

// fillRow fills one row, turning a panic into the row's error. A row of b
// that fails, by an error or a panic, is left all zeros.
func (p *fillPool) fillRow(i int) (err error) {
	m, row := p.matchers[i], p.rows[i]
	defer func() {
		if r := recover(); r != nil {
			err = newPanicError("FillBitmask", r)
		}
		if err != nil && row >= 0 && row < p.b.Rows {
			clear(p.b.Row(row))
		}
	}()
	if m == nil {
		return fmt.Errorf("%w: no matcher for row %d", ErrMatcher, row)
	}
	return m.FillBitmask(p.b, row)
}

func (p *fillPool) close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.quit)
	}
	p.mu.Unlock()
	p.exited.Wait()
}

// FillBatch fills row rows[i] of b for matchers[i] on up to workers
// goroutines started for this call (workers <= 1 fills on the caller's
// goroutine), with BatchFiller's failure isolation. It returns the first
// row error; the other rows are filled all the same. An engine that fills
// every step should keep a BatchFiller instead.
func FillBatch(matchers []*Matcher, b *Bitmask, rows []int, workers int) error {
	f := NewBatchFiller(max(workers, 1))
	defer f.Close()
	return f.Fill(matchers, b, rows, nil)
}
