package tokenizer

import (
	"fmt"
	"slices"
	"sync"

	"github.com/reinlm/rein/tokenizer/toktrie"
)

// tokenKind classifies a token id. The order is the preference of TokenID
// when several ids stand for the same bytes: a model piece first, a byte
// fallback token last among the ordinary ones, special tokens and holes never
// before an ordinary token.
type tokenKind uint8

const (
	kindNormal  tokenKind = iota // a piece of the model's vocabulary
	kindAdded                    // an added token that is not special: text the model writes in one piece
	kindByte                     // a SentencePiece byte-fallback token <0xXX>: one raw byte
	kindSpecial                  // a control token: BOS, EOS, chat markers, tiktoken specials
	kindHole                     // an id no token uses (below the largest id)
)

// Vocab is a tokenizer vocabulary as exact byte strings: token id i stands for
// Bytes(i). It is immutable after loading and safe for concurrent use; the
// With* methods return modified copies that share the token data.
type Vocab struct {
	name    string
	data    []byte   // every token's bytes, back to back
	off     []uint32 // token i is data[off[i]:off[i+1]]
	kind    []tokenKind
	byBytes map[string]int32 // keys are substrings of string(data)
	stops   []int
	width   int
	enc     *encoderCell // shared by the copies With* makes
	trie    *trieCell    // shared by the copies With* makes
}

// trieCell builds a vocabulary's token trie once, on first use. The copies
// With* makes share the token data, so they share the cell: however many
// logit widths or stop sets a vocabulary is used with, it has one trie.
type trieCell struct {
	once sync.Once
	trie *toktrie.Trie
}

// Trie returns the trie of v's ordinary tokens: every token that has bytes
// and is not special (stop tokens that are not special are in it). It is
// built on the first call, for v and every copy of v that With* made.
func (v *Vocab) Trie() *toktrie.Trie {
	if v.trie == nil {
		return v.buildTrie() // a zero Vocab, made without a loader
	}
	v.trie.once.Do(func() { v.trie.trie = v.buildTrie() })
	return v.trie.trie
}

func (v *Vocab) buildTrie() *toktrie.Trie {
	return toktrie.New(v.Size(), func(id int) []byte {
		if v.IsSpecial(id) {
			return nil
		}
		return v.Bytes(id)
	})
}

// encoderCell builds a vocabulary's Encoder once, on first use.
type encoderCell struct {
	spec encSpec
	once sync.Once
	enc  *Encoder
	err  error
}

// Size is the number of token ids: the largest id plus one.
func (v *Vocab) Size() int { return len(v.kind) }

// LogitWidth is the width of the model's logit rows, at least Size. Models
// pad their output layer (Qwen2.5: 151,669 tokens in 151,936 logits); the
// extra columns are never allowed.
func (v *Vocab) LogitWidth() int { return v.width }

// WithLogitWidth returns a copy of v whose LogitWidth is n, which must be at
// least Size (an error wrapping ErrArgument otherwise).
func (v *Vocab) WithLogitWidth(n int) (*Vocab, error) {
	if v == nil {
		return nil, fmt.Errorf("%w: nil vocabulary", ErrArgument)
	}
	if n < v.Size() {
		return nil, fmt.Errorf("%w: logit width %d is smaller than the vocabulary size %d", ErrArgument, n, v.Size())
	}
	c := *v
	c.width = n
	return &c, nil
}

// Bytes returns the exact bytes token id stands for: for special tokens their
// literal text, nil for holes and ids out of range. The slice is shared:
// callers must not modify it.
func (v *Vocab) Bytes(id int) []byte {
	if id < 0 || id >= len(v.kind) || v.kind[id] == kindHole {
		return nil
	}
	a, b := v.off[id], v.off[id+1]
	return v.data[a:b:b]
}

// IsSpecial reports whether id is a control token (an added token marked
// special, a tiktoken special token) or a hole. A grammar allows them only
// where it names them as tokens (grammar.Token), and stop tokens where it
// can end. Ids out of range are special too.
func (v *Vocab) IsSpecial(id int) bool {
	if id < 0 || id >= len(v.kind) {
		return true
	}
	k := v.kind[id]
	return k == kindSpecial || k == kindHole
}

// StopTokens returns the ids that end generation, in increasing order. The
// loaders take the end-of-sequence token of tokenizer_config.json and the
// special tokens chat models end a turn with (<|eot_id|>, <|eom_id|>,
// <|im_end|>, <|endoftext|>, <|end_of_text|>) when present. The slice is a
// copy.
func (v *Vocab) StopTokens() []int { return slices.Clone(v.stops) }

// WithStopTokens returns a copy of v whose stop tokens are ids (duplicates
// removed). Every id must be a token of v, not a hole (an error wrapping
// ErrArgument otherwise).
func (v *Vocab) WithStopTokens(ids []int) (*Vocab, error) {
	if v == nil {
		return nil, fmt.Errorf("%w: nil vocabulary", ErrArgument)
	}
	stops := slices.Clone(ids)
	for _, id := range stops {
		if id < 0 || id >= v.Size() || v.kind[id] == kindHole {
			return nil, fmt.Errorf("%w: stop token %d is not a token of %s (size %d)", ErrArgument, id, v.name, v.Size())
		}
	}
	slices.Sort(stops)
	c := *v
	c.stops = slices.Compact(stops)
	return &c, nil
}

// TokenID returns the id of the token whose bytes are text. When several ids
// stand for the same bytes it prefers a model piece, then an added token,
// then a byte-fallback token, then a special token; the lowest id among
// equals.
func (v *Vocab) TokenID(text string) (int, bool) {
	id, ok := v.byBytes[text]
	return int(id), ok
}

// Name is the vocabulary's name: the folder of a tokenizer.json, the base
// name of a tiktoken file, or what LoadOptions.Name said.
func (v *Vocab) Name() string { return v.name }

// String describes v for logs.
func (v *Vocab) String() string {
	return fmt.Sprintf("tokenizer.Vocab(%s, %d tokens, %d logits)", v.name, v.Size(), v.width)
}

// vocabBuilder collects tokens from a loader and checks them.
type vocabBuilder struct {
	file  string
	field string // where ids come from, for errors
	toks  [][]byte
	kinds []tokenKind
	set   []bool
	count int
}

// maxHoles bounds how sparse a vocabulary may be, so that a hostile file
// cannot make the loader allocate for ids it never uses.
const maxHoles = 1 << 16

func (b *vocabBuilder) grow(id int) error {
	if id < 0 {
		return malformed(b.file, b.field, "negative token id %d", id)
	}
	if id >= 2*b.count+maxHoles {
		return malformed(b.file, b.field, "token id %d is far past the %d tokens seen so far", id, b.count)
	}
	for id >= len(b.toks) {
		b.toks = append(b.toks, nil)
		b.kinds = append(b.kinds, kindHole)
		b.set = append(b.set, false)
	}
	return nil
}

// add records token id; a second token with the same id is an error.
func (b *vocabBuilder) add(id int, tok []byte, kind tokenKind) error {
	b.count++
	if err := b.grow(id); err != nil {
		return err
	}
	if b.set[id] {
		return malformed(b.file, b.field, "token id %d is used twice", id)
	}
	b.set[id] = true
	b.toks[id] = tok
	b.kinds[id] = kind
	return nil
}

// override records token id, replacing what add put there (HF added tokens
// override the model's entry for their id).
func (b *vocabBuilder) override(id int, tok []byte, kind tokenKind) error {
	if id >= 0 && id < len(b.set) && b.set[id] {
		b.toks[id] = tok
		b.kinds[id] = kind
		return nil
	}
	return b.add(id, tok, kind)
}

func (b *vocabBuilder) build(name string, enc encSpec) *Vocab {
	n := len(b.toks)
	total := 0
	for _, t := range b.toks {
		total += len(t)
	}
	v := &Vocab{
		name:    name,
		data:    make([]byte, 0, total),
		off:     make([]uint32, n+1),
		kind:    slices.Clone(b.kinds),
		byBytes: make(map[string]int32, n),
		width:   n,
		enc:     &encoderCell{spec: enc},
		trie:    new(trieCell),
	}
	for i, t := range b.toks {
		v.data = append(v.data, t...)
		v.off[i+1] = uint32(len(v.data))
	}
	blob := string(v.data)
	for i := range n {
		if v.kind[i] == kindHole {
			continue
		}
		key := blob[v.off[i]:v.off[i+1]]
		if j, ok := v.byBytes[key]; !ok || v.kind[i] < v.kind[j] {
			v.byBytes[key] = int32(i)
		}
	}
	return v
}

// stopNames are the special tokens chat and base models end generation with:
// Llama-3 (<|end_of_text|>, and <|eot_id|>, <|eom_id|> in Llama-3.1's
// generation config), Qwen (<|im_end|>, <|endoftext|> in its generation
// config), GPT-2 and tiktoken (<|endoftext|>).
var stopNames = []string{"<|end_of_text|>", "<|eot_id|>", "<|eom_id|>", "<|im_end|>", "<|endoftext|>"}

// defaultStops returns eos (when it is a token id) and the ids of the special
// tokens in stopNames.
func (v *Vocab) defaultStops(eos int) []int {
	var stops []int
	if eos >= 0 && eos < v.Size() && v.kind[eos] != kindHole {
		stops = append(stops, eos)
	}
	for _, s := range stopNames {
		if id, ok := v.byBytes[s]; ok && v.kind[id] == kindSpecial {
			stops = append(stops, int(id))
		}
	}
	slices.Sort(stops)
	return slices.Compact(stops)
}

// checkUsable refuses a vocabulary in which no token could ever be allowed
// by a grammar: every one is special, a stop token, a hole or empty.
func (v *Vocab) checkUsable(file, field string) error {
	for id, k := range v.kind {
		if k != kindSpecial && k != kindHole && v.off[id+1] > v.off[id] && !slices.Contains(v.stops, id) {
			return nil
		}
	}
	return malformed(file, field, "no token has bytes and is neither special nor a stop token")
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
