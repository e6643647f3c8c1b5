package reintest

import (
	"errors"
	"fmt"

	"github.com/reinlm/rein/mask"
)

// Status is how much of an input a grammar accepts.
type Status uint8

// The statuses of a Result. The zero Status is Refused, so that a zero
// Result never reads as a match.
const (
	Refused    Status = iota // the grammar refuses a byte or a token of the input, or there is no grammar
	Incomplete               // the grammar takes the whole input, but needs more before it may end
	Complete                 // the grammar takes the whole input and may end there
)

func (s Status) String() string {
	switch s {
	case Refused:
		return "refused"
	case Incomplete:
		return "incomplete"
	case Complete:
		return "complete"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Result says how much of an input a grammar accepts, and where it stops.
type Result struct {
	Status Status
	// Offset is, when Refused, the first byte of the input the grammar
	// refuses: in the text for Match, in the tokens' bytes end to end for
	// MatchTokens (a special token counts its literal text). Where Err is
	// no *mask.RejectError it is the start of the text or token refused.
	// Otherwise it is the input's length in bytes.
	Offset int
	// Token is, for MatchTokens, the index in ids of the token refused, or
	// len(ids) when none is; -1 for Match.
	Token int
	// Err says why the input was refused: a *mask.RejectError (wrapping
	// mask.ErrRejected) for a byte or token the grammar does not allow,
	// an error wrapping mask.ErrRejected for an id outside the
	// vocabulary, mask.ErrTerminated for a token after a stop token, an
	// error wrapping grammar.ErrLimit where the matcher's step limit
	// tripped, and one wrapping mask.ErrGrammar for a nil grammar. It is
	// nil unless Status is Refused.
	Err error
}

// String describes r in a few words: "complete", "incomplete after 5
// bytes", "refused at byte 6", "token 2 refused at byte 6", followed by
// Err where Err is no *mask.RejectError (whose place Offset and Token say).
func (r Result) String() string {
	switch r.Status {
	case Complete:
		return "complete"
	case Incomplete:
		return fmt.Sprintf("incomplete after %d bytes", r.Offset)
	}
	s := fmt.Sprintf("refused at byte %d", r.Offset)
	if r.Token >= 0 {
		s = fmt.Sprintf("token %d %s", r.Token, s)
	}
	var rej *mask.RejectError
	if !errors.As(r.Err, &rej) {
		s += ": " + fmt.Sprint(r.Err)
	}
	return s
}

// Match reports whether the grammar accepts text, taken as bytes from the
// grammar's start whatever the tokenizer would make of it, and where it
// stops: Complete when it takes the whole text and may end there,
// Incomplete when it takes the whole text but needs more, Refused with the
// offset of the first byte it does not take.
func Match(c *mask.Compiled, text string) Result {
	r, _ := match(c, text)
	return r
}

// match is Match that also returns the matcher after the text (nil when
// there is no grammar), for the messages of the Assert functions.
func match(c *mask.Compiled, text string) (Result, *mask.Matcher) {
	m, err := newMatcher(c)
	if err != nil {
		return Result{Token: -1, Err: err}, nil
	}
	if err := m.AcceptText(text); err != nil {
		r := Result{Token: -1, Err: err}
		var rej *mask.RejectError
		if errors.As(err, &rej) {
			r.Offset = rej.Offset
		}
		return r, m
	}
	return Result{Status: ended(m), Offset: len(text), Token: -1}, m
}

// MatchTokens reports whether the grammar accepts ids in turn from its
// start, as an engine's matcher would (Matcher.Accept), and where it stops:
// Complete when it takes them all and may end there (a stop token among
// them ends the output, and must be the last), Incomplete when it takes
// them all but needs more, Refused with the index of the first token it
// does not take and the offset of the first byte refused.
func MatchTokens(c *mask.Compiled, ids []int) Result {
	r, _ := matchTokens(c, ids)
	return r
}

// matchTokens is MatchTokens that also returns the matcher after the
// tokens accepted (nil when there is no grammar).
func matchTokens(c *mask.Compiled, ids []int) (Result, *mask.Matcher) {
	m, err := newMatcher(c)
	if err != nil {
		return Result{Err: err}, nil
	}
	voc := c.Vocab()
	off := 0
	for i, id := range ids {
		if err := m.Accept(id); err != nil {
			r := Result{Offset: off, Token: i, Err: err}
			var rej *mask.RejectError
			if errors.As(err, &rej) {
				r.Offset += rej.Offset
			}
			return r, m
		}
		off += len(voc.Bytes(id))
	}
	return Result{Status: ended(m), Offset: off, Token: len(ids)}, m
}

// newMatcher returns a matcher at the start of c, or an error wrapping
// mask.ErrGrammar when c is nil or was not made by a compile.
func newMatcher(c *mask.Compiled) (*mask.Matcher, error) {
	if c == nil || c.Vocab() == nil {
		return nil, fmt.Errorf("reintest: nil or zero *mask.Compiled: %w", mask.ErrGrammar)
	}
	return c.NewMatcher(), nil
}

// ended is the status of a matcher that took its whole input.
func ended(m *mask.Matcher) Status {
	if m.IsTerminated() || m.CanEnd() {
		return Complete
	}
	return Incomplete
}
