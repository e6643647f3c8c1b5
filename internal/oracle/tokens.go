package oracle

import (
	"fmt"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/tokenizer"
)

// tokenSet is what one token terminal matches, decided id by id with the
// vocabulary's own methods (matches), as the IR documents it.
type tokenSet struct {
	voc    *tokenizer.Vocab
	ids    map[int]bool // ids named by their text
	ranges []grammar.TokenRange
	negate bool
	stops  map[int]bool // voc's stop tokens, which a negated set never matches
}

// named reports whether the terminal names id, by text or by a range.
func (s *tokenSet) named(id int) bool {
	if s.ids[id] {
		return true
	}
	for _, r := range s.ranges {
		if r.Lo <= id && id <= r.Hi {
			return true
		}
	}
	return false
}

// matches reports whether the terminal matches token id. No terminal
// matches an id the vocabulary has no token for (out of range, or a hole:
// Bytes is nil for both); a negated set matches every other id it does not
// name, except stop tokens.
func (s *tokenSet) matches(id int) bool {
	if s.voc.Bytes(id) == nil {
		return false
	}
	if s.negate {
		return !s.named(id) && !s.stops[id]
	}
	return s.named(id)
}

// matchesAny reports whether some id of the vocabulary matches.
func (s *tokenSet) matchesAny() bool {
	for id := range s.voc.Size() {
		if s.matches(id) {
			return true
		}
	}
	return false
}

// vocabInfo is what the converter knows of the vocabulary: nil without one.
type vocabInfo struct {
	voc     *tokenizer.Vocab
	stops   map[int]bool
	special map[string][]int // the text of each special token with bytes, to the ids with that text
	longest int              // the length of the longest key of special
}

func newVocabInfo(voc *tokenizer.Vocab) *vocabInfo {
	v := &vocabInfo{voc: voc, stops: map[int]bool{}, special: map[string][]int{}}
	for _, id := range voc.StopTokens() {
		v.stops[id] = true
	}
	for id := range voc.Size() {
		if b := voc.Bytes(id); voc.IsSpecial(id) && len(b) > 0 {
			v.special[string(b)] = append(v.special[string(b)], id)
			v.longest = max(v.longest, len(b))
		}
	}
	return v
}

// tokenTerminal returns a symbol for the token terminal e: a terminal, or an
// unproductive nonterminal when e matches no token of the vocabulary.
func (c *converter) tokenTerminal(e *grammar.Expr) (symbol, error) {
	if c.vocab == nil {
		return 0, fmt.Errorf("token terminal %s needs a vocabulary (use NewForVocab)", e)
	}
	set := &tokenSet{voc: c.vocab.voc, ids: map[int]bool{}, ranges: e.Tokens, negate: e.Negate, stops: c.vocab.stops}
	for _, name := range e.TokenNames {
		id, ok := c.vocab.voc.TokenID(name)
		if !ok {
			return 0, fmt.Errorf("token terminal %s: vocabulary %s has no token %q", e, c.vocab.voc.Name(), name)
		}
		set.ids[id] = true
	}
	return c.tokenSymbol(set), nil
}

func (c *converter) tokenSymbol(set *tokenSet) symbol {
	if !set.matchesAny() {
		return c.b.alt(nil)
	}
	return c.b.token(set)
}

// specialLiteral returns a symbol for a LitTokens literal s: scanning s from
// the left, wherever the text of a special token starts (the longest such
// text at that place), that piece is either its bytes or one of the special
// tokens with exactly that text; the scan goes on after the piece. Without a
// vocabulary there are no special tokens, and s is plain text.
func (c *converter) specialLiteral(s []byte) symbol {
	if c.vocab == nil {
		return c.b.literal(s)
	}
	var syms []symbol
	for i := 0; i < len(s); {
		text, ids := c.specialAt(s[i:])
		if ids == nil {
			syms = append(syms, c.b.term(s[i], s[i]))
			i++
			continue
		}
		set := &tokenSet{voc: c.vocab.voc, ids: map[int]bool{}}
		for _, id := range ids {
			set.ids[id] = true
		}
		syms = append(syms, c.b.alt([]symbol{c.b.literal(text), c.tokenSymbol(set)}))
		i += len(text)
	}
	return c.b.seq(syms)
}

// specialAt returns the longest special token text that s starts with and
// the ids of the special tokens with that text, or nil ids when s starts with none.
func (c *converter) specialAt(s []byte) ([]byte, []int) {
	for n := min(len(s), c.vocab.longest); n > 0; n-- {
		if ids, ok := c.vocab.special[string(s[:n])]; ok {
			return s[:n], ids
		}
	}
	return nil, nil
}
