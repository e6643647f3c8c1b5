package maskbench

import (
	"strings"
	"testing"
	"time"
)

// TestReadCPU checks how a mask's thread CPU time is read against its
// wall time: on the CPU, off it for over offCPUStall, or a clock that ran
// ahead (a reading this project's virtual machines gave).
func TestReadCPU(t *testing.T) {
	for _, tc := range []struct {
		wall, cpu time.Duration
		want      cpuReading
	}{
		{5 * time.Millisecond, 4900 * time.Microsecond, cpuOnCPU},
		{10 * time.Microsecond, 60 * time.Microsecond, cpuOnCPU}, // within clockSlack
		{10 * time.Millisecond, time.Millisecond, cpuOffCPU},
		{1500 * time.Microsecond, 400 * time.Microsecond, cpuOffCPU},
		{1500 * time.Microsecond, 600 * time.Microsecond, cpuOnCPU},
		{131 * time.Microsecond, 13500 * time.Microsecond, cpuClockAhead},
	} {
		if got := readCPU(tc.wall, tc.cpu); got != tc.want {
			t.Errorf("readCPU(wall %v, cpu %v) = %d, want %d", tc.wall, tc.cpu, got, tc.want)
		}
	}
}

// TestWorkQuantile checks the quantiles of the decode-path work per mask.
func TestWorkQuantile(t *testing.T) {
	work := []int64{50, 10, 40, 20, 30, 60, 70, 80, 90, 100}
	for _, tc := range []struct {
		q    float64
		want int64
	}{{0, 10}, {0.5, 60}, {0.99, 100}, {1, 100}} {
		if got := workQuantile(work, tc.q); got != tc.want {
			t.Errorf("workQuantile(%v) = %d, want %d", tc.q, got, tc.want)
		}
	}
	if got := workQuantile(nil, 0.99); got != 0 {
		t.Errorf("workQuantile of none = %d, want 0", got)
	}
}

// TestStalls checks the report of a short spin: it read the clock, kept
// only gaps over minStall, longest first, and counts them in its summary.
func TestStalls(t *testing.T) {
	r := Stalls(20 * time.Millisecond)
	if r.Reads < 2 {
		t.Fatalf("%d clock reads", r.Reads)
	}
	for i, g := range r.Gaps {
		if g <= minStall || i > 0 && g > r.Gaps[i-1] {
			t.Fatalf("gaps %v: want each over %v, longest first", r.Gaps, minStall)
		}
	}
	r.Gaps = []time.Duration{6 * time.Millisecond, 1500 * time.Microsecond, 600 * time.Microsecond}
	want := "over 0.5 ms 3, over 1 ms 2, over 2 ms 1, over 5 ms 1; longest 6.00 ms"
	if s := r.Summary(); !strings.Contains(s, want) {
		t.Fatalf("Summary() = %q, want it to contain %q", s, want)
	}
}
