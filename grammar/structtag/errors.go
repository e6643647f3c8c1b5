package structtag

import (
	"errors"
	"fmt"
	"strings"

	"github.com/reinlm/rein/grammar"
)

// source is the Source of every error of the package.
const source = "structtag"

// shown is how an error shows the JSON pointer ptr: the root, whose
// pointer is empty, as "#", as package jsonschema does.
func shown(ptr string) string {
	if ptr == "" {
		return "#"
	}
	return ptr
}

// errorf returns an error about the value at the JSON pointer ptr.
func errorf(ptr, format string, args ...any) error {
	return &grammar.Error{Source: source, Pointer: shown(ptr), Msg: fmt.Sprintf(format, args...)}
}

// limitErr returns an error about a bound of grammar.Limits crossed at ptr.
func limitErr(ptr, format string, args ...any) error {
	return &grammar.Error{Source: source, Pointer: shown(ptr), Msg: fmt.Sprintf(format, args...), Err: grammar.ErrLimit}
}

// unsupportedErr returns an error about something at ptr that rein cannot
// enforce.
func unsupportedErr(ptr, format string, args ...any) error {
	return &grammar.Error{Source: source, Pointer: shown(ptr), Msg: fmt.Sprintf(format, args...), Err: grammar.ErrUnsupported}
}

// wrapErr returns err, from a front-end that compiled the value at ptr, as
// an error of this package: the pointer of a JSON Schema error is put under
// ptr, and err stays in the chain for errors.Is.
func wrapErr(ptr string, err error) error {
	var ge *grammar.Error
	if errors.As(err, &ge) && ge.Source == source {
		return err
	}
	msg := err.Error()
	var list grammar.ErrorList
	if errors.As(err, &ge) && !errors.As(err, &list) && ge.Pointer != "" && ge.Msg != "" {
		ptr += strings.TrimPrefix(ge.Pointer, "#")
		msg = ge.Source + ": " + ge.Msg
	}
	return &grammar.Error{Source: source, Pointer: shown(ptr), Msg: msg, Err: err}
}
