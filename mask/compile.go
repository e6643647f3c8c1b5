package mask

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/pda"
	"github.com/reinlm/rein/tokenizer"
)

// Compiled is a grammar compiled against one vocabulary. It is immutable
// from the outside and safe for concurrent use by any number of matchers:
// the per-node token index fills in lazily, each node once, under a lock of
// its own stripe. Make one with Compile or CompileContext; the methods of a
// nil or zero Compiled panic.
type Compiled struct {
	prog   *pda.Program
	vocab  *tokenizer.Vocab
	voc    *vocabIndex
	stride int
	tok    *tokenTerms // the token terminals' classes; nil without any

	index   []atomic.Pointer[nodeIndex]
	locks   [64]sync.Mutex
	indexed atomic.Int64 // bytes held by the index
	states  sync.Pool    // *pda.State scratch for classification
}

// Options tune Compile. The zero value is the default.
type Options struct {
	// Limits bound the pushdown automaton (RuleStates, TotalStates,
	// NFAStates), the stack work of one byte at match time (StepWork) and
	// the configurations one token classification walks before it takes
	// the slow, exact way (WalkStates). A zero field means its default in
	// grammar.DefaultLimits.
	Limits grammar.Limits
}

// ErrVocab reports a vocabulary that cannot be used.
var ErrVocab = errors.New("mask: unusable vocabulary")

// ErrGrammar reports a nil grammar given to Compile.
var ErrGrammar = errors.New("mask: no grammar")

// Compile compiles g for vocab. The token index is not built here: each
// automaton node is classified on its first visit by any matcher. It fails
// with an error wrapping ErrGrammar when g is nil, and ErrVocab when vocab
// is nil or has no token a grammar could allow (see CheckVocab).
func Compile(g *grammar.Grammar, vocab *tokenizer.Vocab, opts Options) (*Compiled, error) {
	return CompileContext(context.Background(), g, vocab, opts)
}

// CompileContext is Compile that stops once ctx ends, with an error wrapping
// ctx.Err(): every stage looks at ctx every few thousand steps, so it
// returns within about a millisecond of the end.
func CompileContext(ctx context.Context, g *grammar.Grammar, vocab *tokenizer.Vocab, opts Options) (*Compiled, error) {
	if g == nil {
		return nil, fmt.Errorf("%w: nil grammar", ErrGrammar)
	}
	if err := CheckVocab(vocab); err != nil {
		return nil, err
	}
	g, tok, classes, err := resolveTokens(g, vocab, opts.Limits)
	if err != nil {
		return nil, err
	}
	var prog *pda.Program
	if tok == nil {
		prog, err = pda.CompileContext(ctx, g, opts.Limits)
	} else {
		prog, err = pda.CompileTokens(ctx, g, opts.Limits, classes)
	}
	if err != nil {
		return nil, err
	}
	c := newCompiled(prog, vocab)
	c.tok = tok
	return c, nil
}

// CheckVocab returns an error wrapping ErrVocab when vocab cannot back a
// grammar: it is nil, or none of its tokens is an ordinary token with bytes
// (every one is special, a stop token or empty), so that no mask could ever
// allow anything but a stop token.
func CheckVocab(vocab *tokenizer.Vocab) error {
	if vocab == nil || vocab.Size() == 0 {
		return fmt.Errorf("%w: nil or empty", ErrVocab)
	}
	if !indexVocab(vocab).usable() {
		return fmt.Errorf("%w: every token of %s is special, a stop token or empty", ErrVocab, vocab.Name())
	}
	return nil
}

// newCompiled indexes prog for vocab, which CheckVocab accepted.
func newCompiled(prog *pda.Program, vocab *tokenizer.Vocab) *Compiled {
	c := &Compiled{
		prog:   prog,
		vocab:  vocab,
		voc:    indexVocab(vocab),
		stride: WordsPerRow(vocab.Size()),
		index:  make([]atomic.Pointer[nodeIndex], prog.NumNodes()),
	}
	c.states.New = func() any { return pda.NewState(prog) }
	return c
}

// Vocab returns the vocabulary the grammar was compiled for.
func (c *Compiled) Vocab() *tokenizer.Vocab { return c.vocab }

// VocabSize is the number of token ids a bitmask row must cover.
func (c *Compiled) VocabSize() int { return c.vocab.Size() }

// MemoryBytes reports the memory the compiled grammar holds alone: the
// automaton and the classifications of its token index built so far that no
// other grammar shares. The sorted vocabulary and the classifications shared
// between the grammars of a vocabulary are counted once, by
// SharedIndexBytes.
func (c *Compiled) MemoryBytes() int {
	return c.prog.MemoryBytes() + 8*len(c.index) + int(c.indexed.Load()) + c.tok.memoryBytes()
}

// nodeIndex returns node n's classification, computing it on first use.
func (c *Compiled) nodeIndex(n int32) *nodeIndex {
	if x := c.index[n].Load(); x != nil {
		return x
	}
	mu := &c.locks[n&63]
	mu.Lock()
	defer mu.Unlock()
	if x := c.index[n].Load(); x != nil {
		return x
	}
	// Nodes whose automata are alike, in this grammar or another one of
	// the same vocabulary, share one classification: most JSON Schemas
	// have the same string, number and whitespace rules.
	shape, shareable := c.prog.Shape(nil, n, c.voc.maxLen, maxSharedShape)
	x := c.voc.shared.get(shape, shareable)
	shared := x != nil
	if x == nil {
		st := c.states.Get().(*pda.State)
		x = classify(c.prog, c.voc, n, st, c.stride)
		classifications.Add(1)
		c.states.Put(st)
		if shareable {
			x, shared = c.voc.shared.put(shape, x)
		}
	}
	c.index[n].Store(x)
	if !shared {
		// A shared classification is charged once, to the vocabulary's
		// cache (SharedIndexBytes), not to every grammar using it.
		c.indexed.Add(int64(x.sizeBytes()))
	}
	return x
}

// classifications counts the node classifications made in this process.
var classifications atomic.Int64

// Classifications returns how many node classifications (walks of a
// vocabulary from one automaton node) this process has made so far: the
// work a first mask at a node may pay for, unless another grammar's equal
// node paid for it before. Runners compare it before and after a mask to
// tell the masks that classified from those that did not.
func Classifications() int64 { return classifications.Load() }

// Precompute classifies every node now instead of on first visit, for
// engines that prefer a slower compile to a slower first mask.
func (c *Compiled) Precompute() {
	for n := int32(0); n < int32(c.prog.NumNodes()); n++ {
		if c.prog.HasBytes(n) {
			c.nodeIndex(n)
		}
	}
}
