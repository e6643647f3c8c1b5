package mask

import (
	"sync"
	"sync/atomic"

	"github.com/reinlm/rein/tokenizer"
)

// maxSharedShape bounds the automata whose classifications are shared: a
// node reaching more nodes than this is classified for its own grammar
// only, so describing a shape never costs more than a small walk.
const maxSharedShape = 2048

// maxNarrowRule is the most nodes the rule of a narrow node (see isWide)
// may have for the node's classification to be shared. Most narrow nodes
// cost about as much to classify as to describe, and those within a
// literal would describe the rest of a large rule. But the hex digits of a
// string's \u escape, a rule of a few nodes in every grammar, start every
// token of digits and of the letters a to f: their classification walks
// thousands of tokens, 2-3 ms, which one grammar of the vocabulary pays
// instead of each.
const maxNarrowRule = 16

// maxNarrowShape bounds the shapes of narrow nodes that are shared. A rule
// of a few nodes may still reach many within the longest token's bytes: a
// property's name, in an object of a recursive schema
// (Github_easy---o78062), reaches its value's rules, over 1,000 nodes, 30
// µs to describe, where classifying the name costs a few µs.
const maxNarrowShape = 256

// DefaultSharedIndexBudget is the memory, in bytes, that the node
// classifications shared between the grammars of one vocabulary may take
// unless SetSharedIndexBudget says otherwise.
const DefaultSharedIndexBudget = 256 << 20

// SetSharedIndexBudget sets the memory, in bytes, that the node
// classifications shared between the grammars of vocab may take. Once they
// fill it, new classifications stay private to the grammar that made them
// (and count in its MemoryBytes); ResetSharedIndex starts over. 0 turns
// sharing off for vocab. A rein.Compiler sets it to half its own cache
// budget, so that its budget covers both. A nil vocab is ignored.
//
// The classifications, and so the budget, belong to vocab's tokens and stop
// tokens, not to the *Vocab: the copies WithLogitWidth makes share them.
func SetSharedIndexBudget(vocab *tokenizer.Vocab, bytes int) {
	if vocab == nil {
		return
	}
	indexVocab(vocab).shared.budget.Store(int64(bytes))
}

// ResetSharedIndex forgets the node classifications shared between the
// grammars of vocab, and the rows and lists of tokens wide nodes are
// classified from: the next grammar to meet a node classifies it again.
// Grammars compiled before keep the classifications they already hold, no
// longer counted anywhere. Benchmarks call it so that a figure called cold is
// cold.
func ResetSharedIndex(vocab *tokenizer.Vocab) {
	if vocab == nil {
		return
	}
	v := indexVocab(vocab)
	c := v.shared
	c.mu.Lock()
	c.m, c.bytes = nil, 0
	c.mu.Unlock()
	v.perTrie.sets.reset()
}

// SharedIndexBytes returns the memory, in bytes, that the node
// classifications shared between the grammars of vocab take now, with the
// rows and lists of tokens that wide nodes are classified from. It is
// counted here once, never in a grammar's MemoryBytes.
func SharedIndexBytes(vocab *tokenizer.Vocab) int {
	if vocab == nil {
		return 0
	}
	v := indexVocab(vocab)
	c := v.shared
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes + v.perTrie.sets.sizeBytes()
}

// SharedTokenSetBytes returns the part of SharedIndexBytes that the rows
// and lists of tokens take. They are bounded on their own, outside the
// budget SetSharedIndexBudget sets for the classifications.
func SharedTokenSetBytes(vocab *tokenizer.Vocab) int {
	if vocab == nil {
		return 0
	}
	return indexVocab(vocab).perTrie.sets.sizeBytes()
}

// indexCache shares node classifications between the compiled grammars of
// one vocabulary (of every copy with the same trie and stop tokens), keyed by the node's shape (pda.Program.Shape). A schema
// seen for the first time then classifies only what is new in it, typically
// its enums and patterns, not its string and number rules again.
//
// Entries are never dropped (until ResetSharedIndex): a classification that
// left the cache while grammars still held it would be memory counted
// nowhere. So the bytes counted here are exactly the shared classifications,
// and every classification is counted once, here or by the one grammar that
// holds it privately.
type indexCache struct {
	budget atomic.Int64 // bytes (DefaultSharedIndexBudget when built)
	mu     sync.Mutex
	m      map[string]*nodeIndex
	bytes  int
}

// sharedEntryBytes is what sharing a classification costs besides its key and
// the classification: the map entry.
const sharedEntryBytes = 64

// get returns the classification stored for shape, or nil.
func (c *indexCache) get(shape []byte, ok bool) *nodeIndex {
	if !ok {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[string(shape)]
}

// put shares x under shape, unless another goroutine shared one first
// (returned instead), x records a failure (which depends on the grammar's
// limits, not on the shape) or it does not fit the budget; it reports
// whether the returned classification is shared.
func (c *indexCache) put(shape []byte, x *nodeIndex) (*nodeIndex, bool) {
	if x.err != nil {
		return x, false
	}
	size := len(shape) + x.sizeBytes() + sharedEntryBytes
	budget := int(c.budget.Load())
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[string(shape)]; old != nil {
		return old, true
	}
	if c.bytes+size > budget {
		return x, false
	}
	if c.m == nil {
		c.m = map[string]*nodeIndex{}
	}
	c.m[string(shape)] = x
	c.bytes += size
	return x, true
}

// shapeBuf is a buffer a node's shape (pda.Program.Shape) is written into.
// A shape is a key, copied only where a classification is stored under it;
// the shape of a node of a long string is tens of kilobytes, which a mask
// that only looks a classification up should not allocate (an allocation
// on the decode path may be charged the collector's assist work).
type shapeBuf struct{ b []byte }

var shapeBufs = sync.Pool{New: func() any { return new(shapeBuf) }}

func takeShapeBuf() *shapeBuf { return shapeBufs.Get().(*shapeBuf) }

func putShapeBuf(s *shapeBuf) { shapeBufs.Put(s) }

// describe writes the shape of node n of c's program into s, replacing what
// s held, and returns it (valid until s is written again or put back) and
// whether it is complete (see Shape). Once a node of a rule has reached too
// many nodes, the rule's other nodes are taken as too large without a walk
// (Compiled.unshaped).
func (s *shapeBuf) describe(c *Compiled, n int32) ([]byte, bool) {
	return s.describeWithin(c, n, maxSharedShape)
}

// describeWithin is describe for a shape of at most maxNodes nodes; only a
// shape over maxSharedShape marks its rule.
func (s *shapeBuf) describeWithin(c *Compiled, n int32, maxNodes int) ([]byte, bool) {
	rule := c.prog.RuleOf(n)
	if c.unshaped[rule].Load() {
		s.b = s.b[:0]
		return s.b, false
	}
	var ok bool
	s.b, ok = c.prog.Shape(s.b[:0], n, c.voc.maxLen, maxNodes)
	if !ok && maxNodes >= maxSharedShape {
		c.unshaped[rule].Store(true)
	}
	return s.b, ok
}
