package maskbench

import (
	"syscall"
	"time"
	"unsafe"
)

// haveThreadCPU reports whether threadCPU reads the calling thread's CPU
// time here.
const haveThreadCPU = true

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID.
const clockThreadCPUTime = 3

// threadCPU returns the CPU time the calling OS thread has used, or 0
// where the clock cannot be read.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
