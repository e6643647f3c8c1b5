package mask

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/fillgate"
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
	tok    *tokenTerms  // the token terminals' classes; nil without any
	uniq   *uniqueIndex // rules with distinct items; nil without any

	index  []atomic.Pointer[nodeIndex]
	near   []atomic.Int32 // per node: 1 classified within its return (useWithin), -1 not, 0 undecided
	missed atomic.Pointer[missedShape]
	// unshaped marks, per rule, that a node of the rule reached more nodes
	// than a shared shape may describe (maxSharedShape): its other nodes,
	// which reach much the same, are not described again, since a failed
	// description costs a walk of maxSharedShape nodes and shares nothing.
	unshaped []atomic.Bool
	mu       sync.Mutex         // guards busy
	busy     map[int32]busyNode // nodes being classified
	warm     warmOrder          // the order Warm classifies nodes in
	indexed  atomic.Int64       // bytes held by the index
	growth   *atomic.Int64      // Options.Growth
	exits    exitCache          // uncertain tokens decided by caller shape (exits.go)
	unions   unionCache         // tops classified together (union.go)
	stats    indexStats
	states   sync.Pool // *pda.State scratch for classification
}

// Options tune Compile. The zero value is the default.
type Options struct {
	// Limits bound the pushdown automaton (RuleStates, TotalStates,
	// NFAStates), the stack work of one byte at match time (StepWork) and
	// the configurations one token classification walks before it takes
	// the slow, exact way (WalkStates). A zero field means its default in
	// grammar.DefaultLimits.
	Limits grammar.Limits
	// Growth, if not nil, is added every byte by which the grammar's
	// MemoryBytes grows once Compile has returned (its lazy token index,
	// its warming order), as the growth happens: a cache of many grammars
	// sharing one counter learns that they grew, and by how much, without
	// measuring each of them again.
	Growth *atomic.Int64
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
	c.growth = opts.Growth
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
		prog:     prog,
		vocab:    vocab,
		voc:      indexVocab(vocab),
		stride:   WordsPerRow(vocab.Size()),
		index:    make([]atomic.Pointer[nodeIndex], prog.NumNodes()),
		near:     make([]atomic.Int32, prog.NumNodes()),
		unshaped: make([]atomic.Bool, len(prog.Rules)),
	}
	c.states.New = func() any { return pda.NewState(prog) }
	if prog.HasUnique() {
		c.uniq = newUniqueIndex(c)
	}
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
	return c.prog.MemoryBytes() + 12*len(c.index) + int(c.indexed.Load()) + c.tok.memoryBytes() + c.warm.memoryBytes()
}

// grow records that the index holds n more bytes.
func (c *Compiled) grow(n int64) {
	c.indexed.Add(n)
	if c.growth != nil {
		c.growth.Add(n)
	}
}

// nodeIndex returns node n's classification, computing it on first use.
// Only the goroutines that need node n itself wait while it is classified
// (by a matcher or by Warm): the lock is held just to claim the node.
func (c *Compiled) nodeIndex(n int32) *nodeIndex {
	if x := c.index[n].Load(); x != nil {
		return x
	}
	return c.indexNode(n, false)
}

// indexNode is nodeIndex's slow path, for a matcher or for Warm (warm),
// which the work is counted to.
func (c *Compiled) indexNode(n int32, warm bool) *nodeIndex {
	return c.claimIndex(n, warm, func() *nodeIndex { return c.computeIndex(n, warm) })
}

// cheapIndex classifies node n where that is cheap, as indexNode would:
// from the classification another grammar of the vocabulary made for its
// shape, derived from its reference's (derive.go), or from the
// vocabulary's rows (classifyWide). It returns nil, classifying nothing,
// where n's tokens must be walked through the trie.
func (c *Compiled) cheapIndex(n int32) *nodeIndex {
	return c.claimIndex(n, false, func() *nodeIndex { return c.classifyNode(n, false, false) })
}

// busyNode is a node being classified: done is closed when it is, and
// background is set where background work (warming, a compile's
// preparation) classifies it.
type busyNode struct {
	done       chan struct{}
	background bool
}

// claimIndex returns node n's classification, computing it with compute
// (which may return nil: none) unless another goroutine has it or is
// computing it, whose result it then waits for. Background work
// (warming, a compile's preparation) sets background.
func (c *Compiled) claimIndex(n int32, background bool, compute func() *nodeIndex) *nodeIndex {
	c.mu.Lock()
	if x := c.index[n].Load(); x != nil {
		c.mu.Unlock()
		return x
	}
	if b, ok := c.busy[n]; ok {
		// Another goroutine is classifying n: its result is what this one
		// would compute, and it has a head start. Where it is background
		// work, it may be parked while fills run (fillgate); where this one
		// is not (a fill, or a matcher's own mask), let it go on while this
		// one waits. Background work waiting on background work waits its
		// turn.
		c.mu.Unlock()
		wake := b.background && !background
		if wake {
			fillgate.BeginWait()
		}
		c.stats.waits.Add(1)
		<-b.done
		if wake {
			fillgate.EndWait()
		}
		if x := c.index[n].Load(); x != nil {
			return x
		}
		return c.claimIndex(n, background, compute) // it panicked, or had none: try here
	}
	done := make(chan struct{})
	if c.busy == nil {
		c.busy = map[int32]busyNode{}
	}
	c.busy[n] = busyNode{done: done, background: background}
	c.mu.Unlock()
	var x *nodeIndex
	defer func() {
		// Also on a panic, which goes on up to the caller's recover: the
		// waiters must not hang.
		c.mu.Lock()
		if x != nil {
			c.index[n].Store(x)
		}
		delete(c.busy, n)
		if len(c.busy) == 0 {
			c.busy = nil // an idle grammar holds no map
		}
		c.mu.Unlock()
		close(done)
		if background {
			// A fill may wait on n: let it run before this goroutine
			// goes on to its next node.
			fillgate.Handoff()
		}
	}()
	x = compute()
	return x
}

// computeIndex classifies node n, or takes the classification another grammar
// of the vocabulary made for a node of the same shape.
func (c *Compiled) computeIndex(n int32, warm bool) *nodeIndex {
	return c.classifyNode(n, warm, true)
}

// classifyNode is computeIndex, which, without walk, returns nil where the
// node's tokens must be walked through the trie.
func (c *Compiled) classifyNode(n int32, warm, walk bool) *nodeIndex {
	// Wide nodes whose automata are alike, in this grammar or another one
	// of the same vocabulary, share one classification: most JSON Schemas
	// have the same string and number rules. A narrow node mostly costs
	// about as much to classify as to describe, and is shared only in a
	// rule of a few nodes (maxNarrowRule) and a shape of a few hundred
	// (maxNarrowShape). A node without bytes is only classified as the
	// reference of others (derive.go): a loop, wide.
	var shape []byte
	shareable := false
	wide := !c.prog.HasBytes(n) || isWide(c.prog, c.voc, n)
	if wide || c.prog.Rules[c.prog.RuleOf(n)].NumNodes <= maxNarrowRule {
		buf, ok := c.takeMissedShape(n)
		if buf == nil {
			buf = takeShapeBuf()
			if wide {
				_, ok = buf.describe(c, n)
			} else {
				_, ok = buf.describeWithin(c, n, maxNarrowShape)
			}
		}
		defer putShapeBuf(buf)
		shape, shareable = buf.b, ok
	}
	x := c.voc.shared.get(shape, shareable)
	shared := x != nil
	if x == nil {
		st := c.states.Get().(*pda.State)
		var work int
		ok := false
		if wide && c.prog.HasBytes(n) {
			x, work, ok = c.deriveIndex(n, warm)
		}
		if !ok && !walk {
			a := takeWalk(c.prog, n)
			x, ok = a.classifyWide(c.voc, n, c.stride, true)
			work = a.work
			putWalk(c.prog, a)
			if !ok {
				// Not classified, but the attempt was work on the
				// decode path (cheapIndex's caller is a matcher).
				c.stats.work.Add(int64(work))
				c.states.Put(st)
				return nil
			}
		}
		if !ok {
			x, work = classifyAside(c.prog, c.voc, n, st, c.stride, warm)
		}
		if warm {
			c.stats.warmed.Add(1)
			c.stats.warmWork.Add(int64(work))
		} else {
			c.stats.classified.Add(1)
			c.stats.work.Add(int64(work))
		}
		classifications.Add(1)
		c.states.Put(st)
		if shareable {
			x, shared = c.voc.shared.put(shape, x)
		}
	}
	if !shared {
		// A shared classification is charged once, to the vocabulary's
		// cache (SharedIndexBytes), not to every grammar using it.
		c.grow(int64(x.sizeBytes()))
	}
	return x
}

// sharedIndex returns the classification another grammar of the
// vocabulary, or this one, made for a node of wide node n's shape, making it
// n's, or nil. On a miss it keeps n's shape for computeIndex, which will
// need it next.
func (c *Compiled) sharedIndex(n int32) *nodeIndex {
	buf := takeShapeBuf()
	shape, ok := buf.describe(c, n)
	if x := c.voc.shared.get(shape, ok); x != nil {
		putShapeBuf(buf)
		c.index[n].CompareAndSwap(nil, x)
		return c.index[n].Load()
	}
	if old := c.missed.Swap(&missedShape{n: n, buf: buf, ok: ok}); old != nil {
		putShapeBuf(old.buf)
	}
	return nil
}

// missedShape is the shape of a node that sharedIndex did not find shared.
type missedShape struct {
	n   int32
	buf *shapeBuf
	ok  bool
}

// takeMissedShape returns the shape sharedIndex kept for node n, if it
// kept n's last, and whether it is complete; the caller puts the buffer
// back.
func (c *Compiled) takeMissedShape(n int32) (*shapeBuf, bool) {
	m := c.missed.Load()
	if m == nil || m.n != n || !c.missed.CompareAndSwap(m, nil) {
		return nil, false
	}
	return m.buf, m.ok
}

// indexStats counts the classifications made for a grammar.
type indexStats struct {
	classified, warmed atomic.Int64 // by matchers, by Warm
	work, warmWork     atomic.Int64 // their work (see classify)
	waits              atomic.Int64 // waits for another goroutine's classification of a node (tests)
}

// IndexStats counts the node classifications of a grammar's token index:
// how many nodes a matcher classified on its first visit (the decode path:
// the mask waited for it), how many Warm classified ahead of the matchers,
// and the work of each, in steps of the classification walk (trie
// positions visited, bytes stepped and exits recorded). Nodes whose
// classification was taken from another grammar of the vocabulary, and
// nodes a matcher found classified or being classified, count in neither.
type IndexStats struct {
	Classified, Warmed int64
	Work, WarmWork     int64
}

// IndexStats returns the grammar's classification counts so far.
func (c *Compiled) IndexStats() IndexStats {
	return IndexStats{
		Classified: c.stats.classified.Load(), Warmed: c.stats.warmed.Load(),
		Work: c.stats.work.Load(), WarmWork: c.stats.warmWork.Load(),
	}
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
