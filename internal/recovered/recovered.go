// Package recovered describes a panic just recovered, for the errors that
// mask and the root package turn panics into (mask.PanicError).
package recovered

import (
	"runtime/debug"
	"strings"
)

// stackLines bounds the lines of a Stack excerpt.
const stackLines = 16

// Stack returns an excerpt of the calling goroutine's stack, starting at the
// frame that called panic. Call it from the deferred function that
// recovered, so the excerpt shows where the panic happened.
func Stack() string { return excerpt(debug.Stack(), stackLines) }

// excerpt keeps up to max lines of a debug.Stack dump, starting at the frame
// that called panic (or after the goroutine header when there is none).
func excerpt(s []byte, max int) string {
	lines := strings.Split(strings.TrimSpace(string(s)), "\n")
	start := min(1, len(lines))
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") {
			start = min(i+2, len(lines))
			break
		}
	}
	lines = lines[start:]
	if len(lines) > max {
		lines = lines[:max]
	}
	return strings.Join(lines, "\n")
}
