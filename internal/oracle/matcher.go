package oracle

import (
	"slices"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/tokenizer"
)

// Matcher is the reference for package mask's Matcher: which token may come
// next, and what accepting it does, decided with a Recognizer. For token id
// at the current point:
//
//   - a stop token is allowed when the output so far is complete, or when a
//     token terminal can consume it (FeedToken would stay viable);
//   - a special token that is not a stop token is allowed when a token
//     terminal can consume it;
//   - an ordinary token (not special, not a stop token) is allowed when its
//     bytes, if it has any, as text can follow (Feed would stay viable), or
//     when a token terminal can consume it;
//   - nothing else is ever allowed (holes, ids out of the vocabulary), nor
//     anything once a stop token has ended the output.
//
// Accepting a token takes one reading: an ordinary token viable as text is
// text, even where a token terminal could also take it (the text reading
// wins: mask's documented limitation). A stop token ends the output where it
// is complete; elsewhere a token terminal consumes it, and it ends the
// output too when the output is complete after it.
type Matcher struct {
	r          *Recognizer
	voc        *tokenizer.Vocab
	stops      []int
	terminated bool
}

// NewMatcher returns a Matcher for g over voc at the start of the output;
// it fails where NewForVocab does.
func NewMatcher(g *grammar.Grammar, voc *tokenizer.Vocab) (*Matcher, error) {
	r, err := NewForVocab(g, voc)
	if err != nil {
		return nil, err
	}
	return &Matcher{r: r, voc: voc, stops: voc.StopTokens()}, nil
}

// Clone returns an independent copy of m in the same state.
func (m *Matcher) Clone() *Matcher {
	c := *m
	c.r = m.r.Clone()
	return &c
}

// reading is how a token would be consumed.
type reading uint8

const (
	refused    reading = iota
	asText             // its bytes, fed as text
	asToken            // the whole token, fed to a token terminal
	asEnd              // a stop token that ends the complete output
	asTokenEnd         // a stop token fed to a token terminal, which ends the output if complete after it
)

// read returns the reading Accept would take for id, without consuming it.
func (m *Matcher) read(id int) reading {
	b := m.voc.Bytes(id)
	if m.terminated || b == nil {
		return refused
	}
	switch {
	case slices.Contains(m.stops, id):
		if m.r.Complete() {
			return asEnd
		}
		if m.r.Clone().FeedToken(id) {
			return asTokenEnd
		}
	case m.voc.IsSpecial(id):
		if m.r.Clone().FeedToken(id) {
			return asToken
		}
	default:
		if len(b) > 0 && m.r.Clone().Feed(b) {
			return asText
		}
		if m.r.Clone().FeedToken(id) {
			return asToken
		}
	}
	return refused
}

// Allowed reports whether token id may come next.
func (m *Matcher) Allowed(id int) bool { return m.read(id) != refused }

// Accept consumes token id and reports whether it was allowed; a token that
// was not leaves m as it was.
func (m *Matcher) Accept(id int) bool {
	switch m.read(id) {
	case asText:
		m.r.Feed(m.voc.Bytes(id))
	case asToken:
		m.r.FeedToken(id)
	case asEnd:
		m.terminated = true
	case asTokenEnd:
		m.r.FeedToken(id)
		m.terminated = m.r.Complete()
	default:
		return false
	}
	return true
}

// AcceptsText reports whether token id would be accepted as text, its bytes
// fed to the grammar, rather than as a whole token or as the end.
func (m *Matcher) AcceptsText(id int) bool { return m.read(id) == asText }

// CanEnd reports whether the output so far is complete, so that a stop
// token may end it.
func (m *Matcher) CanEnd() bool { return !m.terminated && m.r.Complete() }

// Terminated reports whether a stop token has ended the output.
func (m *Matcher) Terminated() bool { return m.terminated }
