//go:build !race

// Package race reports whether the race detector is on, so long-running
// property tests can scale down under `go test -race` (which `make test` also
// runs without it at full size).
package race

// Enabled is true when built with -race.
const Enabled = false
