package oracle

import (
	"fmt"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/tokenizer"
)

// item is an Earley item: the dotted position pos in the flat table (the dot
// sits before t.syms[pos]) and the input offset where its production started.
// The input is a sequence of bytes and whole tokens, one offset each.
type item struct{ pos, origin int32 }

// Recognizer decides, byte by byte and token by token, whether the input so
// far is a viable prefix or a sentence of a grammar. Methods must not run concurrently on one
// Recognizer (Clone included); distinct Recognizers, clones of one another or
// not, are independent.
type Recognizer struct {
	t *table
	// The Earley set after j input symbols is past[j] for j < len(past) and
	// recent[j-len(past)] after that. Sets are never modified once built and
	// past is never appended to, so clones share it; recent holds the sets
	// this recognizer built since it was last cloned.
	past   [][]item
	recent [][]item
	dead   bool
}

// New returns a Recognizer for g at the start of the input. It fails when g
// is invalid, holds a token terminal (which needs a vocabulary: see
// NewForVocab), or holds a regular expression with an operator it cannot
// express (word boundaries, or anchors away from the pattern's edges).
// Without a vocabulary there are no special tokens, so a LitTokens literal
// is plain text.
func New(g *grammar.Grammar) (*Recognizer, error) {
	return newRecognizer(g, nil)
}

// NewForVocab is New for a grammar that may name tokens of voc: token
// terminals and LitTokens literals are resolved against it, and FeedToken
// consumes its tokens. It fails, besides where New does, when a token
// terminal names by text a token voc does not have.
func NewForVocab(g *grammar.Grammar, voc *tokenizer.Vocab) (*Recognizer, error) {
	if voc == nil {
		return nil, fmt.Errorf("oracle: nil vocabulary")
	}
	return newRecognizer(g, voc)
}

func newRecognizer(g *grammar.Grammar, voc *tokenizer.Vocab) (*Recognizer, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	t, err := convert(g, voc)
	if err != nil {
		return nil, err
	}
	first := make([]item, 0, len(t.starts[t.root]))
	for _, pos := range t.starts[t.root] {
		first = append(first, item{pos, 0})
	}
	r := &Recognizer{t: t}
	r.extend(first)
	return r, nil
}

// Clone returns an independent copy of r in the same state. It costs a copy
// of the list of sets when r has been fed since it was last cloned, and
// nothing otherwise.
func (r *Recognizer) Clone() *Recognizer {
	if len(r.recent) > 0 {
		r.past = append(r.past[:len(r.past):len(r.past)], r.recent...)
		r.recent = nil
	}
	return &Recognizer{t: r.t, past: r.past, dead: r.dead}
}

// set returns the Earley set after j input symbols.
func (r *Recognizer) set(j int32) []item {
	if int(j) < len(r.past) {
		return r.past[j]
	}
	return r.recent[int(j)-len(r.past)]
}

// last returns the current Earley set.
func (r *Recognizer) last() []item { return r.set(int32(len(r.past) + len(r.recent) - 1)) }

// Feed consumes b as text, one byte at a time, and reports whether the
// input so far is still a viable prefix. Once it is not, the recognizer is
// dead and stays so.
func (r *Recognizer) Feed(b []byte) bool {
	for _, c := range b {
		r.scan(func(t terminal) bool { return t.tokens == nil && t.bytes.lo <= c && c <= t.bytes.hi })
	}
	return !r.dead
}

// FeedToken consumes token id whole, as a token terminal matches it (never
// as its bytes), and reports whether the input so far is still a viable
// prefix. Only a grammar with token terminals or LitTokens literals, made
// by NewForVocab, can consume a token.
func (r *Recognizer) FeedToken(id int) bool {
	r.scan(func(t terminal) bool { return t.tokens != nil && t.tokens.matches(id) })
	return !r.dead
}

// scan consumes one input symbol: the items of the current set whose next
// symbol is a terminal that match accepts step over it.
func (r *Recognizer) scan(match func(terminal) bool) {
	if r.dead {
		return
	}
	var next []item
	for _, it := range r.last() {
		s := r.t.syms[it.pos]
		if s < 0 && s != endMark && match(r.t.terms[^s]) {
			// Distinct items advance to distinct items: no duplicates here.
			next = append(next, item{it.pos + 1, it.origin})
		}
	}
	r.extend(next)
}

// Viable reports whether the input so far is a prefix of some sentence.
func (r *Recognizer) Viable() bool { return !r.dead }

// Complete reports whether the input so far is a sentence.
func (r *Recognizer) Complete() bool {
	if r.dead {
		return false
	}
	for _, it := range r.last() {
		if it.origin == 0 && r.t.syms[it.pos] == endMark && r.t.lhs[it.pos] == r.t.root {
			return true
		}
	}
	return false
}

// Accepts reports whether s is a sentence of g.
func Accepts(g *grammar.Grammar, s []byte) (bool, error) {
	r, err := New(g)
	if err != nil {
		return false, err
	}
	r.Feed(s)
	return r.Complete(), nil
}

// ViablePrefix reports whether s is a prefix of some sentence of g.
func ViablePrefix(g *grammar.Grammar, s []byte) (bool, error) {
	r, err := New(g)
	if err != nil {
		return false, err
	}
	return r.Feed(s), nil
}

// seen is the duplicate filter of the set being built, j: an item that
// started at j (a prediction, as most are) is in the set when stamp at its
// position is pass; any other item is in the set when it is in older.
type seen struct {
	stamp []uint32
	pass  uint32
	older map[item]struct{}
}

// extend closes set (the scanned items of the next Earley set) under
// prediction and completion and appends it to the sets, or marks r dead when
// it is empty.
func (r *Recognizer) extend(set []item) {
	if len(set) == 0 {
		r.dead = true
		return
	}
	t := r.t
	j := int32(len(r.past) + len(r.recent))
	d := t.seen.Get().(*seen)
	defer t.seen.Put(d)
	if d.pass++; d.pass == 0 {
		clear(d.stamp)
		d.pass = 1
	}
	defer clear(d.older)
	// add appends it to set unless it is there.
	add := func(it item) {
		if it.origin == j {
			if d.stamp[it.pos] == d.pass {
				return
			}
			d.stamp[it.pos] = d.pass
		} else {
			if _, ok := d.older[it]; ok {
				return
			}
			d.older[it] = struct{}{}
		}
		set = append(set, it)
	}
	// Sets after one another are of similar sizes: make room at once.
	scanned, room := set, 2*len(set)
	if j > 0 {
		room = max(room, len(r.last())+len(r.last())/2)
	}
	set = make([]item, 0, room)
	for _, it := range scanned {
		add(it)
	}
	for k := 0; k < len(set); k++ {
		it := set[k]
		s := t.syms[it.pos]
		switch {
		case s == endMark:
			// Complete: advance the items of the origin set waiting for lhs.
			// When the origin is this set, lhs derived "" and is nullable, so
			// items reaching the set later are advanced when they predict it.
			lhs := t.lhs[it.pos]
			from := set
			if it.origin < j {
				from = r.set(it.origin)
			}
			for i := 0; i < len(from); i++ {
				if w := from[i]; t.syms[w.pos] == lhs {
					add(item{w.pos + 1, w.origin})
				}
			}
		case s >= 0:
			// Predict s; when s is nullable also step over it (Aycock and Horspool).
			for _, pos := range t.starts[s] {
				add(item{pos, j})
			}
			if t.nullable[s] {
				add(item{it.pos + 1, it.origin})
			}
		}
	}
	r.recent = append(r.recent, set)
}
