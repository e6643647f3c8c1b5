package maskbench

import (
	"fmt"
	"slices"
	"time"
)

// StallReport is what Stalls saw: the gaps between two consecutive reads of
// the clock by a goroutine that did nothing else.
type StallReport struct {
	Spun  time.Duration
	Reads int
	Gaps  []time.Duration // those over minStall, longest first
}

// minStall is the shortest gap Stalls keeps.
const minStall = 500 * time.Microsecond

// Stalls spins for d reading the clock, allocating nothing and calling
// nothing else, and returns the gaps between reads longer than minStall:
// time the goroutine's thread did not run, taken by the machine (other
// threads, the hypervisor), not by the program. A mask timed by the clock
// takes such a gap in whole when one falls inside it, so they bound from
// below the slowest masks a run on that machine can report.
func Stalls(d time.Duration) StallReport {
	r := StallReport{Spun: d}
	start := time.Now()
	prev := start
	for {
		now := time.Now()
		r.Reads++
		if g := now.Sub(prev); g > minStall {
			r.Gaps = append(r.Gaps, g)
		}
		prev = now
		if now.Sub(start) >= d {
			break
		}
	}
	slices.SortFunc(r.Gaps, func(x, y time.Duration) int { return int(y - x) })
	return r
}

// Summary is one line: the time spun, the gaps over 0.5, 1, 2 and 5 ms, and
// the longest.
func (r StallReport) Summary() string {
	over := func(t time.Duration) int {
		n := 0
		for _, g := range r.Gaps {
			if g > t {
				n++
			}
		}
		return n
	}
	longest := time.Duration(0)
	if len(r.Gaps) > 0 {
		longest = r.Gaps[0]
	}
	return fmt.Sprintf("stalls: spun %v on one goroutine, %d clock reads; gaps over 0.5 ms %d, over 1 ms %d, over 2 ms %d, over 5 ms %d; longest %.2f ms",
		r.Spun, r.Reads, over(minStall), over(time.Millisecond), over(2*time.Millisecond), over(5*time.Millisecond), float64(longest.Microseconds())/1e3)
}
