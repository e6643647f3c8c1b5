package fsm

import (
	"errors"
	"fmt"
)

// Errors returned by the package, for errors.Is. Returned errors wrap them
// and add what went wrong.
var (
	// ErrTooLarge reports an automaton that would exceed a size limit.
	ErrTooLarge = errors.New("fsm: automaton too large")
	// ErrTooManyStates reports an automaton past the state bound its caller
	// gave; it wraps ErrTooLarge. Other ErrTooLarge errors are the package's
	// own fixed bounds on the work of a construction.
	ErrTooManyStates = fmt.Errorf("%w: too many states", ErrTooLarge)
	// ErrUnsupportedRegexp reports a regular expression feature that a byte-level
	// automaton cannot express, such as a word boundary.
	ErrUnsupportedRegexp = errors.New("fsm: unsupported regexp")
)
