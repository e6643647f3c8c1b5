package oracle

import (
	"bytes"
	"fmt"
	"slices"
	"sync"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/tokenizer"
)

// Matcher is the reference for package mask's Matcher: which token may come
// next, and what accepting it does, decided with Recognizers. For token id
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
// An ordinary token that can be read both as text and by a token terminal
// is read both ways: the Matcher keeps every reading, as an ambiguous
// grammar keeps every parse. It holds one Recognizer per surviving path of
// readings, and each rule above holds when it holds for some of them. A
// stop token ends the output where it is complete; elsewhere a token
// terminal consumes it, and it ends the output too when the output is
// complete after it. Readings that die are dropped; more than MaxReadings
// live at once is a panic (see Accept).
//
// As with a Recognizer, methods must not run concurrently on one Matcher
// (Clone and Allowed included); distinct Matchers are independent.
type Matcher struct {
	rs         []*Recognizer // the live readings, never empty
	voc        *tokenizer.Vocab
	stops      []int
	terminated bool
	text       *textOrder // shared by clones
}

// MaxReadings bounds how many readings a Matcher keeps at once. Readings
// multiply where tokens that are both text and a token terminal's follow
// one another and both readings stay viable; the oracle does not merge
// them, so a grammar that keeps many alive is beyond it.
const MaxReadings = 64

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
	return &Matcher{rs: []*Recognizer{r}, voc: voc, stops: voc.StopTokens(), text: new(textOrder)}, nil
}

// Clone returns an independent copy of m in the same state.
func (m *Matcher) Clone() *Matcher {
	c := *m
	c.rs = make([]*Recognizer, len(m.rs))
	for i, r := range m.rs {
		c.rs[i] = r.Clone()
	}
	return &c
}

// Readings returns how many readings of the output so far are alive.
func (m *Matcher) Readings() int { return len(m.rs) }

// kind is how the rules treat a token.
type kind uint8

const (
	hole     kind = iota // no bytes: never allowed
	stop                 // a stop token
	special              // a special token that is not a stop token
	ordinary             // anything else
)

func (m *Matcher) kind(id int) kind {
	switch {
	case m.voc.Bytes(id) == nil:
		return hole
	case slices.Contains(m.stops, id):
		return stop
	case m.voc.IsSpecial(id):
		return special
	}
	return ordinary
}

// textReading returns r after id's bytes as text, or nil where id has no
// text reading there.
func (m *Matcher) textReading(r *Recognizer, id int) *Recognizer {
	b := m.voc.Bytes(id)
	if m.kind(id) != ordinary || len(b) == 0 {
		return nil
	}
	if r = r.Clone(); !r.Feed(b) {
		return nil
	}
	return r
}

// tokenReading returns r after id taken whole by a token terminal, or nil
// where no token terminal takes it there.
func (m *Matcher) tokenReading(r *Recognizer, id int) *Recognizer {
	if m.kind(id) == hole {
		return nil
	}
	if r = r.Clone(); !r.FeedToken(id) {
		return nil
	}
	return r
}

// complete reports whether some reading is a complete output.
func (m *Matcher) complete() bool {
	return slices.ContainsFunc(m.rs, (*Recognizer).Complete)
}

// Allowed reports whether token id may come next.
func (m *Matcher) Allowed(id int) bool {
	if m.terminated || m.kind(id) == hole {
		return false
	}
	if m.kind(id) == stop && m.complete() {
		return true
	}
	for _, r := range m.rs {
		if m.textReading(r, id) != nil || m.tokenReading(r, id) != nil {
			return true
		}
	}
	return false
}

// Accept consumes token id and reports whether it was allowed; a token that
// was not leaves m as it was. Each reading goes on by every way it can take
// the token (as text, by a token terminal, or both, forking it in two), and
// readings that cannot take it are dropped. It panics, naming the token,
// when more than MaxReadings readings would stay alive: a test relying on
// the oracle there must fail rather than be checked against a truncated
// state.
func (m *Matcher) Accept(id int) bool {
	if !m.Allowed(id) {
		return false
	}
	if m.kind(id) == stop && m.complete() {
		m.terminated = true
		return true
	}
	var next []*Recognizer
	for _, r := range m.rs {
		for _, n := range []*Recognizer{m.textReading(r, id), m.tokenReading(r, id)} {
			if n != nil {
				next = append(next, n)
			}
		}
	}
	if len(next) > MaxReadings {
		panic(fmt.Sprintf("oracle: token %d %q leaves %d readings alive, more than MaxReadings (%d)", id, m.voc.Bytes(id), len(next), MaxReadings))
	}
	m.rs = next
	m.terminated = m.kind(id) == stop && m.complete()
	return true
}

// AcceptsText reports whether token id would be accepted as text, its bytes
// fed to the grammar, in some reading (perhaps besides a token reading).
func (m *Matcher) AcceptsText(id int) bool {
	if m.terminated || m.kind(id) == stop && m.complete() {
		return false
	}
	return slices.ContainsFunc(m.rs, func(r *Recognizer) bool { return m.textReading(r, id) != nil })
}

// AcceptsToken reports whether token id would be accepted whole by a token
// terminal in some reading (perhaps besides a text reading), rather than
// only as text or as the end.
func (m *Matcher) AcceptsToken(id int) bool {
	if m.terminated || m.kind(id) == stop && m.complete() {
		return false
	}
	return slices.ContainsFunc(m.rs, func(r *Recognizer) bool { return m.tokenReading(r, id) != nil })
}

// CanEnd reports whether the output so far is complete in some reading, so
// that a stop token may end it.
func (m *Matcher) CanEnd() bool { return !m.terminated && m.complete() }

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
	m.text.once.Do(func() {
		for id := range m.voc.Size() {
			if len(m.voc.Bytes(id)) > 0 && m.kind(id) == ordinary {
				m.text.ids = append(m.text.ids, id)
			}
		}
		slices.SortStableFunc(m.text.ids, func(a, b int) int { return bytes.Compare(m.voc.Bytes(a), m.voc.Bytes(b)) })
	})
	for _, r := range m.rs {
		m.maskText(allowed, r)
	}
	// Token readings, and the end.
	end := m.complete()
	for id := range allowed {
		if allowed[id] || m.kind(id) == hole {
			continue
		}
		allowed[id] = end && m.kind(id) == stop || slices.ContainsFunc(m.rs, func(r *Recognizer) bool { return m.tokenReading(r, id) != nil })
	}
	return allowed
}

// maskText sets allowed[id] for each ordinary token whose text reading r
// allows. The tokens go by in byte order; stack[k] is r after the first k
// bytes of the token before, so a token feeds only the bytes after those it
// shares with it.
func (m *Matcher) maskText(allowed []bool, r *Recognizer) {
	stack := []*Recognizer{r}
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
		if len(stack) == len(b)+1 && stack[len(b)].Viable() {
			allowed[id] = true
		}
		prev = b
	}
}
