package maskbench

import (
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
