package grammar

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnsupported is wrapped by every error about a construct that rein cannot
// enforce (a lookahead in a regex, an unsupported JSON Schema keyword, ...).
// Test for it with errors.Is.
var ErrUnsupported = errors.New("unsupported")

// ErrLimit is wrapped by every error about a size or time limit (source too
// long, repetition bound too large, grammar too big). Test for it with errors.Is.
var ErrLimit = errors.New("limit exceeded")

// Pos is a place in a front-end's input. Line and Col are 1-based (Col counts
// bytes), Offset is the 0-based byte offset. The zero value means unknown.
type Pos struct {
	Line, Col int
	Offset    int
}

// IsValid reports whether the position is known.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String renders the position as "line:col", or "" when it is unknown.
func (p Pos) String() string {
	if !p.IsValid() {
		return ""
	}
	return fmt.Sprintf("%d:%d", p.Line, p.Col)
}

// Error is an error from a front-end, with the place it was found.
//
// Source names the front-end ("gbnf", "regex", "jsonschema", ...). Pos is set
// for textual inputs; Pointer is the JSON pointer of the offending schema node
// for JSON Schema ("" otherwise). Err, when set, is the underlying cause, often
// one of the sentinels ErrUnsupported or ErrLimit.
type Error struct {
	Source  string
	Pos     Pos
	Pointer string
	Msg     string
	Err     error
}

// Error renders the error as "source:line:col: msg" for positioned inputs and
// as "source: pointer: msg" for JSON pointers, leaving out what is unknown.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Pos.IsValid() {
		if b.Len() > 0 {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%d:%d", e.Pos.Line, e.Pos.Col)
	}
	if e.Pointer != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Pointer)
	}
	msg := e.Msg
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(msg)
	return b.String()
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// ErrorList collects several errors from one input, in the order found.
type ErrorList []*Error

// errorListShown is how many errors ErrorList.Error lists before summing up the rest.
const errorListShown = 10

// Error lists the first few errors, one a line, and how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	for i, e := range l {
		if i == errorListShown {
			fmt.Fprintf(&b, "\n(and %d more errors)", len(l)-errorListShown)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns nil for an empty list and the list itself otherwise, so that a
// function can end with "return nil, errs.Err()" without the nil-interface trap.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Unwrap returns the errors of the list, so that errors.Is and errors.As look
// into every one of them.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}
