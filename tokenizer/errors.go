package tokenizer

import (
	"errors"
	"fmt"
)

// Sentinels for errors.Is. Every error a loader returns is a *FormatError
// that unwraps to one of them (or to the I/O error that stopped it).
var (
	// ErrMalformed reports a file that is not valid JSON, is truncated, or
	// holds a field of the wrong shape or an inconsistent value.
	ErrMalformed = errors.New("malformed vocabulary")
	// ErrUnsupportedTokenizer reports a well-formed tokenizer of a kind rein does not
	// implement (a Unigram model, an unknown decoder or pre-tokenizer, …).
	ErrUnsupportedTokenizer = errors.New("unsupported tokenizer")
	// ErrArgument reports an argument a Vocab method cannot take: a logit
	// width below the vocabulary size, a stop token that is not a token, a
	// nil or zero Vocab.
	ErrArgument = errors.New("tokenizer: invalid argument")
)

// FormatError names the file and the field (a dotted JSON path such as
// "model.vocab", or "line 12" for line-oriented files) where loading failed.
type FormatError struct {
	File  string
	Field string
	Msg   string
	Err   error // ErrMalformed, ErrUnsupportedTokenizer or an underlying error
}

func (e *FormatError) Error() string {
	s := e.File
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Msg
}

// Unwrap returns the sentinel (or underlying error) the failure belongs to.
func (e *FormatError) Unwrap() error { return e.Err }

func malformed(file, field, format string, args ...any) error {
	return &FormatError{File: file, Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrMalformed}
}

func unsupported(file, field, format string, args ...any) error {
	return &FormatError{File: file, Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrUnsupportedTokenizer}
}
