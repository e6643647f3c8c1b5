package oracle

import (
	"bytes"
	"slices"
	"sync"

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
//
// As with a Recognizer, methods must not run concurrently on one Matcher
// (Clone and Allowed included); distinct Matchers are independent.
type Matcher struct {
	r          *Recognizer
	voc        *tokenizer.Vocab
	stops      []int
	terminated bool
	text       *textOrder // shared by clones
}

// textOrder is the vocabulary's ordinary tokens sorted by their bytes, made
// on the first call of Mask.
type textOrder struct {
	once sync.Once
	ids  []int
}

// NewMatcher returns a Matcher for g over voc at the start of the output;
// it fails where NewForVocab does.
func NewMatcher(g *grammar.Grammar, voc *tokenizer.Vocab) (*Matcher, error) {
	r, err := NewForVocab(g, voc)
	if err != nil {
		return nil, err
	}
	return &Matcher{r: r, voc: voc, stops: voc.StopTokens(), text: new(textOrder)}, nil
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

// Mask returns, for every token id of the vocabulary, whether it is allowed:
// Allowed(id) for each, computed with the text readings of tokens that
// share leading bytes sharing the work of feeding them.
func (m *Matcher) Mask() []bool {
	allowed := make([]bool, m.voc.Size())
	if m.terminated {
		return allowed
	}
	// Text readings. The ordinary tokens go by in byte order; stack[k] is
	// the recognizer after the first k bytes of the token before, so a
	// token feeds only the bytes after those it shares with it.
	m.text.once.Do(func() {
		for id := range m.voc.Size() {
			if b := m.voc.Bytes(id); len(b) > 0 && !m.voc.IsSpecial(id) && !slices.Contains(m.stops, id) {
				m.text.ids = append(m.text.ids, id)
			}
		}
		slices.SortStableFunc(m.text.ids, func(a, b int) int { return bytes.Compare(m.voc.Bytes(a), m.voc.Bytes(b)) })
	})
	stack := []*Recognizer{m.r}
	var prev []byte
	for _, id := range m.text.ids {
		b := m.voc.Bytes(id)
		shared := 0
		for shared < len(prev) && shared < len(b) && prev[shared] == b[shared] {
			shared++
		}
		stack = stack[:min(len(stack), shared+1)]
		for r := stack[len(stack)-1]; len(stack) <= len(b) && r.Viable(); {
			r = r.Clone()
			r.Feed(b[len(stack)-1 : len(stack)])
			stack = append(stack, r)
		}
		allowed[id] = len(stack) == len(b)+1 && stack[len(b)].Viable()
		prev = b
	}
	// Token readings, and the end.
	for id := range allowed {
		if allowed[id] || m.voc.Bytes(id) == nil {
			continue
		}
		allowed[id] = m.r.Clone().FeedToken(id) || slices.Contains(m.stops, id) && m.r.Complete()
	}
	return allowed
}
