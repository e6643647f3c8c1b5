package fsm

import "errors"

// Errors returned by the package, for errors.Is. Returned errors wrap them
// and add what went wrong.
var (
	// ErrTooLarge reports an automaton that would exceed a size limit.
	ErrTooLarge = errors.New("fsm: automaton too large")
	// ErrUnsupportedRegexp reports a regular expression feature that a byte-level
	// automaton cannot express, such as a word boundary.
	ErrUnsupportedRegexp = errors.New("fsm: unsupported regexp")
)
