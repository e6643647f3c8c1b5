//go:build !linux

package maskbench

import "time"

// haveThreadCPU reports whether threadCPU reads the calling thread's CPU
// time here: on Linux only.
const haveThreadCPU = false

func threadCPU() time.Duration { return 0 }
