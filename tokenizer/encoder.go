package tokenizer

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// encSpec is what a loader learned about how the model turns text into
// tokens. Encoder compiles it on first use.
type encSpec struct {
	file         string // the file that describes the encoder, for errors
	vocabFile    string // the file of the token list, and the field, for errors
	vocabField   string
	hf           hfKind // hfByteLevel (also GPT-2 and tiktoken) or hfSentencePiece
	replacement  rune   // SentencePiece: the rune spaces become ('▁')
	merges       []merge
	fromRanks    bool  // tiktoken: merges follow from token ranks (a pair merges into the token it spells)
	ignoreMerges bool  // a word that is a whole token is that token (Llama-3, tiktoken)
	byteFallback bool  // SentencePiece: unknown characters become <0xXX> tokens
	unk          int32 // the unknown token, or -1
	fuseUnk      bool  // a run of unknown characters is one unknown token
	normalizers  []normStep
	pretok       []preStep
	added        []addedToken // non-special added tokens, split out of the text whole
	deferred     error        // the encoding part of the file is malformed or unsupported
}

// merge is one BPE merge rule: left and right become result.
type merge struct{ left, right, result int32 }

type addedToken struct {
	text string
	id   int32
}

// Encoder turns text into the token ids the model's own tokenizer gives. It
// is safe for concurrent use.
type Encoder struct {
	v       *Vocab
	spec    *encSpec
	norm    []normStep
	pretok  []compiledPreStep
	table   mergeTable
	byteIDs [256]int32     // byte-level: the token of each byte; SentencePiece: the <0xXX> token, or -1
	runeIDs map[rune]int32 // SentencePiece: the piece of each character that is one
	cache   wordCache
}

// Encoder returns v's encoder, built on the first call and shared afterwards.
// It fails when the file's normalizer, pre-tokenizer or model options are
// malformed or of a kind rein does not implement, and with an error wrapping
// ErrArgument for a nil or zero Vocab.
func (v *Vocab) Encoder() (*Encoder, error) {
	if v == nil || v.enc == nil {
		return nil, fmt.Errorf("%w: no vocabulary (nil or zero Vocab)", ErrArgument)
	}
	c := v.enc
	c.once.Do(func() { c.enc, c.err = newEncoder(v, &c.spec) })
	return c.enc, c.err
}

// NewEncoder is v.Encoder().
func NewEncoder(v *Vocab) (*Encoder, error) { return v.Encoder() }

func newEncoder(v *Vocab, spec *encSpec) (*Encoder, error) {
	if spec.deferred != nil {
		return nil, spec.deferred
	}
	e := &Encoder{v: v, spec: spec, norm: spec.normalizers}
	for i := range e.byteIDs {
		e.byteIDs[i] = -1
	}
	switch spec.hf {
	case hfByteLevel:
		for c := range 256 {
			id, ok := v.byBytes[string([]byte{byte(c)})]
			if !ok || v.kind[id] != kindNormal {
				return nil, unsupported(spec.vocabFile, spec.vocabField, "byte-level vocabulary without a token for byte 0x%02X", c)
			}
			e.byteIDs[c] = id
		}
	case hfSentencePiece:
		e.runeIDs = make(map[rune]int32)
		for id, k := range v.kind {
			tok := v.data[v.off[id]:v.off[id+1]]
			switch {
			case k == kindByte:
				e.byteIDs[tok[0]] = int32(id)
			case k == kindNormal && len(tok) > 0 && utf8.RuneCount(tok) == 1:
				r, _ := utf8.DecodeRune(tok)
				if r != utf8.RuneError || string(tok) == "\uFFFD" {
					if old, ok := e.runeIDs[r]; !ok || int32(id) < old {
						e.runeIDs[r] = int32(id)
					}
				}
			}
		}
	default:
		return nil, unsupported(spec.file, "", "no encoder for this vocabulary")
	}
	var err error
	if e.pretok, err = compilePreSteps(spec.file, spec.pretok); err != nil {
		return nil, err
	}
	if spec.fromRanks {
		e.table = rankMergeTable(v)
	} else {
		e.table = newMergeTable(spec.merges)
	}
	return e, nil
}

// Vocab returns the vocabulary e encodes into.
func (e *Encoder) Vocab() *Vocab { return e.v }

// Encode returns the token ids of text, exactly as the model's tokenizer
// encodes it without adding BOS/EOS: plain text, in which the text of a
// special token is ordinary text. Non-special added tokens (Qwen's <think>,
// <tool_call>) are matched whole, as Hugging Face tokenizers do.
func (e *Encoder) Encode(text string) []int {
	out := make([]int, 0, len(text)/3+1)
	if len(e.spec.added) == 0 {
		return e.encodeSegment(text, true, out)
	}
	// next[i] is where added token i next occurs at or after pos (-1: never);
	// each only moves forward, so the scan is linear in the text.
	next := make([]int, len(e.spec.added))
	for i, t := range e.spec.added {
		next[i] = indexFrom(text, t.text, 0)
	}
	pos, first := 0, true
	for {
		best := -1
		for i, t := range e.spec.added {
			if next[i] >= 0 && next[i] < pos {
				next[i] = indexFrom(text, t.text, pos)
			}
			if next[i] >= 0 && (best < 0 || next[i] < next[best] || next[i] == next[best] && len(t.text) > len(e.spec.added[best].text)) {
				best = i
			}
		}
		if best < 0 {
			return e.encodeSegment(text[pos:], first, out)
		}
		at, tok := next[best], e.spec.added[best]
		if at > pos {
			out = e.encodeSegment(text[pos:at], first, out)
		}
		out = append(out, int(tok.id))
		pos, first = at+len(tok.text), false
	}
}

// indexFrom returns the first index of sub in s at or after from, or -1.
func indexFrom(s, sub string, from int) int {
	if sub == "" {
		return -1
	}
	i := strings.Index(s[from:], sub)
	if i < 0 {
		return -1
	}
	return from + i
}

// encodeSegment normalizes, pre-tokenizes and encodes a stretch of text with
// no added token in it.
func (e *Encoder) encodeSegment(text string, first bool, out []int) []int {
	for _, n := range e.norm {
		text = n.apply(text)
	}
	if text == "" {
		return out
	}
	return e.preTokenize(text, 0, first, out)
}

// preTokenize runs pre-tokenizer step i and the later ones on text, then
// encodes each word.
func (e *Encoder) preTokenize(text string, i int, first bool, out []int) []int {
	if i == len(e.pretok) {
		return e.encodeWord(text, out)
	}
	for j, w := range e.pretok[i].split(text, first) {
		out = e.preTokenize(w, i+1, first && j == 0, out)
	}
	return out
}

// encodeWord encodes one pre-tokenized word.
func (e *Encoder) encodeWord(word string, out []int) []int {
	if word == "" {
		return out
	}
	if e.spec.hf == hfSentencePiece {
		word = strings.ReplaceAll(word, string(e.spec.replacement), " ")
	}
	if e.spec.ignoreMerges {
		if id, ok := e.v.byBytes[word]; ok && e.v.kind[id] == kindNormal {
			return append(out, int(id))
		}
	}
	if ids, ok := e.cache.get(word); ok {
		return append(out, ids...)
	}
	start := len(out)
	out = e.bpe(word, out)
	e.cache.put(word, out[start:])
	return out
}

// wordCache remembers the encoding of short words. It is cleared when full.
type wordCache struct {
	mu sync.RWMutex
	m  map[string][]int
}

const (
	maxCachedWord  = 64
	maxCachedWords = 1 << 15
)

func (c *wordCache) get(w string) ([]int, bool) {
	if len(w) > maxCachedWord {
		return nil, false
	}
	c.mu.RLock()
	ids, ok := c.m[w]
	c.mu.RUnlock()
	return ids, ok
}

func (c *wordCache) put(w string, ids []int) {
	if len(w) > maxCachedWord {
		return
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedWords {
		c.m = make(map[string][]int)
	}
	c.m[strings.Clone(w)] = append([]int(nil), ids...)
	c.mu.Unlock()
}

// String describes e for logs.
func (e *Encoder) String() string { return fmt.Sprintf("tokenizer.Encoder(%s)", e.v.name) }
