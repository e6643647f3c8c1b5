package jumpforward

import (
	"errors"
	"slices"

	"github.com/reinlm/rein/internal/byteset"
	"github.com/reinlm/rein/internal/maskstate"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/toktrie"
)

// Options tune a Forwarder. The zero value is the default.
type Options struct {
	// MaxBytes bounds the forced string looked at in one step (default 256).
	MaxBytes int
	// MaxWindow bounds the accepted tokens re-encoded with the forced bytes
	// (default 32).
	MaxWindow int
	// AppendOnly keeps Next from replacing tokens the engine already has,
	// for engines that cannot rewrite their KV cache: Result.Rollback is
	// always 0. A step whose canonical encoding would replace accepted
	// tokens (the model's `"` that `,"name":"` would turn into `","`)
	// appends nothing; the model writes the merging token itself, and the
	// next step appends what is still forced. While the sequence is the
	// Encoder's own tokenization it stays so, as without the option; what
	// is lost is a share of the tokens delivered without a model step (on
	// MaskBench, see the package documentation). Where the model has
	// already left that tokenization at the end of the sequence (it wrote
	// `"` then `,"`), no step could return to it without replacing tokens,
	// so the forced bytes are encoded from the end of the sequence on.
	AppendOnly bool
}

const (
	defaultMaxBytes  = 256
	defaultMaxWindow = 32
)

// Forwarder computes jump-forward steps for the matchers of one compiled
// grammar (of any grammar compiled for the same vocabulary, in fact). It
// holds scratch buffers, so it is used by one goroutine at a time, like a
// Matcher; give each sequence (or each worker) its own.
type Forwarder struct {
	voc  *tokenizer.Vocab
	enc  *tokenizer.Encoder
	trie *toktrie.Trie
	opts Options

	forced []byte      // the forced bytes of the last call
	text   []byte      // scratch: window text and forced bytes
	one    byteset.Set // scratch: the byte after forced bytes cut before an unfinished character
}

// ErrNoGrammar reports a nil compiled grammar given to New.
var ErrNoGrammar = errors.New("jumpforward: nil compiled grammar")

// New returns a Forwarder for the matchers of c. It fails with ErrNoGrammar
// when c is nil, and when c's vocabulary has no Encoder (re-tokenization
// needs the model's own).
func New(c *mask.Compiled, opts Options) (*Forwarder, error) {
	if c == nil {
		return nil, ErrNoGrammar
	}
	enc, err := c.Vocab().Encoder()
	if err != nil {
		return nil, err
	}
	o := opts
	if o.MaxBytes <= 0 {
		o.MaxBytes = defaultMaxBytes
	}
	if o.MaxWindow <= 0 {
		o.MaxWindow = defaultMaxWindow
	}
	return &Forwarder{voc: c.Vocab(), enc: enc, trie: c.Vocab().Trie(), opts: o}, nil
}

// Result is one jump-forward step: the engine drops the last Rollback tokens
// of its sequence and appends Tokens. It is empty when nothing is forced or
// when the forced bytes do not yet make a token that is sure to stay.
type Result struct {
	Forced   []byte // the bytes the grammar forces after the accepted text
	Rollback int    // tokens removed from the end of the sequence
	Tokens   []int  // tokens appended after the rollback
}

// Empty reports whether the step changes nothing.
func (r Result) Empty() bool { return len(r.Tokens) == 0 }

// Forced returns the bytes the grammar forces at m's state: those every
// continuation of the accepted text starts with, stopping before any point
// where the grammar may end or branch. It leaves m unchanged. The slice is
// valid until the next call on f. It is nil for a nil matcher.
func (f *Forwarder) Forced(m *mask.Matcher) []byte {
	if !f.usable(m) {
		return nil
	}
	f.forced, _, _ = maskstate.Of(m).Forced(f.forced[:0], f.opts.MaxBytes)
	return f.forced
}

// Next computes the jump-forward step at m's state and applies it to m.
// history holds the tokens m accepted, oldest first (the engine's generated
// sequence; only its last few tokens are read, and they must be m's last
// accepted steps). The result's Tokens are the canonical encoding, by the
// vocabulary's Encoder, of the end of the accepted text followed by the
// forced bytes, less any trailing token that what comes next could merge
// with; Rollback counts the accepted tokens that encoding replaces.
//
// m goes through its own API: Rollback, then AcceptToken for each token.
// Should the grammar refuse one (it cannot, for tokens made of forced bytes,
// unless history is not what m accepted), m is restored and the result is
// empty. So is it when m's grammar was compiled for another vocabulary, or
// m is nil or not made by Compiled.NewMatcher. The slices of the result are
// valid until the next call on f.
func (f *Forwarder) Next(m *mask.Matcher, history []int) Result {
	if !f.usable(m) {
		return Result{}
	}
	var next byteset.Set
	f.forced, next, _ = maskstate.Of(m).Forced(f.forced[:0], f.opts.MaxBytes)
	if len(f.forced) == 0 {
		return Result{}
	}
	if n := m.NumTokens(); len(history) > n {
		history = history[len(history)-n:]
	}
	rollback, toks := f.retokenize(history, f.forced, &next)
	if f.opts.AppendOnly && rollback > 0 {
		if f.endsCanonically(history, rollback+1) {
			return Result{Forced: f.forced} // the model writes the merging token
		}
		rollback, toks = f.retokenize(nil, f.forced, &next)
	}
	if len(toks) == 0 {
		return Result{Forced: f.forced}
	}
	if !apply(m, history, rollback, toks) {
		return Result{Forced: f.forced}
	}
	return Result{Forced: f.forced, Rollback: rollback, Tokens: toks}
}

// endsCanonically reports whether the last n tokens of history (all of
// them when it has fewer) are the Encoder's encoding of their text. A
// window holding a special token counts as canonical: the Encoder would
// spell it as text.
func (f *Forwarder) endsCanonically(history []int, n int) bool {
	window := history[len(history)-min(n, len(history)):]
	f.text = f.text[:0]
	for _, id := range window {
		if f.voc.IsSpecial(id) {
			return true
		}
		f.text = append(f.text, f.voc.Bytes(id)...)
	}
	enc := f.enc.Encode(string(f.text))
	return slices.Equal(enc, window)
}

// usable reports whether f can work on m: a live matcher of f's vocabulary.
func (f *Forwarder) usable(m *mask.Matcher) bool {
	return m != nil && m.Compiled() != nil && !m.IsTerminated() && m.Compiled().Vocab() == f.voc
}

// apply rolls m back by rollback tokens and accepts toks. If a token is
// refused, it undoes everything, re-accepting the tokens rolled back.
func apply(m *mask.Matcher, history []int, rollback int, toks []int) bool {
	if m.Rollback(rollback) != nil {
		return false
	}
	for i, id := range toks {
		if !m.AcceptToken(id) {
			_ = m.Rollback(i)
			for _, old := range history[len(history)-rollback:] {
				m.AcceptToken(old)
			}
			return false
		}
	}
	return true
}

// Next is the one-line form for an engine that keeps no Forwarder: it makes
// one for m's grammar and calls its Next. It allocates; a decoding loop
// should keep a Forwarder instead. When m is nil or the vocabulary has no
// Encoder the result is empty (New reports why).
func Next(m *mask.Matcher, history []int) Result {
	if m == nil {
		return Result{}
	}
	f, err := New(m.Compiled(), Options{})
	if err != nil {
		return Result{}
	}
	return f.Next(m, history)
}
