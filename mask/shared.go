package mask

import (
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/reinlm/rein/tokenizer"
)

// maxSharedShape bounds the automata whose classifications are shared: a
// node reaching more nodes than this is classified for its own grammar
// only, so describing a shape never costs more than a small walk.
const maxSharedShape = 1024

// DefaultSharedIndexBudget is the memory, in bytes, that the node
// classifications shared between the grammars of one vocabulary may take
// unless SetSharedIndexBudget says otherwise.
const DefaultSharedIndexBudget = 256 << 20

// SetSharedIndexBudget sets the memory, in bytes, that the node
// classifications shared between the grammars of vocab may take. A
// classification is shared only while some grammar holds it and while the
// shared ones fit the budget; past it, new classifications stay private to
// the grammar that made them (and count in its MemoryBytes). 0 turns sharing
// off for vocab. A rein.Compiler sets it to half its own cache budget, so
// that its budget covers both. A nil vocab is ignored.
func SetSharedIndexBudget(vocab *tokenizer.Vocab, bytes int) {
	if vocab == nil {
		return
	}
	indexVocab(vocab).shared.budget.Store(int64(bytes))
}

// ResetSharedIndex forgets the node classifications shared between the
// grammars of vocab: the next grammar to meet a node classifies it again.
// Grammars compiled before keep the classifications they already hold, no
// longer counted anywhere. Benchmarks call it so that a figure called cold is
// cold.
func ResetSharedIndex(vocab *tokenizer.Vocab) {
	if v := lookupVocab(vocab); v != nil {
		c := &v.shared
		c.mu.Lock()
		c.m, c.bytes = nil, 0
		c.mu.Unlock()
	}
}

// SharedIndexBytes returns the memory, in bytes, that the node
// classifications shared between the grammars of vocab take now. It is
// counted here once, never in a grammar's MemoryBytes.
func SharedIndexBytes(vocab *tokenizer.Vocab) int {
	v := lookupVocab(vocab)
	if v == nil {
		return 0
	}
	v.shared.mu.Lock()
	defer v.shared.mu.Unlock()
	return v.shared.bytes
}

// indexCache shares node classifications between the compiled grammars of
// one vocabulary, keyed by the node's shape (pda.Program.Shape). A schema
// seen for the first time then classifies only what is new in it, typically
// its enums and patterns, not its string and number rules again.
//
// The cache holds its classifications weakly: the grammars that use one hold
// it, and once none does it is collected and leaves the cache (and its
// bytes). So the bytes counted here are exactly the shared classifications
// alive, and no classification is alive without being counted once, by the
// cache or by the one grammar that holds it privately.
type indexCache struct {
	budget atomic.Int64 // bytes (DefaultSharedIndexBudget when built)
	mu     sync.Mutex
	m      map[string]sharedEntry
	bytes  int // the sizes of the entries in m
}

// sharedEntry is a shared classification, held weakly, and the bytes it is
// counted for.
type sharedEntry struct {
	wp   weak.Pointer[nodeIndex]
	size int
}

// get returns the classification stored for shape, or nil.
func (c *indexCache) get(shape []byte, ok bool) *nodeIndex {
	if !ok {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[string(shape)].wp.Value()
}

// put shares x under shape, unless another goroutine shared one first
// (returned instead), x records a failure (which depends on the grammar's
// limits, not on the shape) or the shared classifications would exceed the
// budget; it reports whether the returned classification is shared.
func (c *indexCache) put(shape []byte, x *nodeIndex) (*nodeIndex, bool) {
	if x.err != nil {
		return x, false
	}
	size := len(shape) + x.sizeBytes() + sharedEntryBytes
	budget := int(c.budget.Load())
	c.mu.Lock()
	defer c.mu.Unlock()
	key := string(shape)
	if old, ok := c.m[key]; ok {
		if x := old.wp.Value(); x != nil {
			return x, true
		}
		// Collected, its cleanup not run yet: it leaves now.
		delete(c.m, key)
		c.bytes -= old.size
	}
	if c.bytes+size > budget {
		return x, false
	}
	if c.m == nil {
		c.m = map[string]sharedEntry{}
	}
	e := sharedEntry{weak.Make(x), size}
	c.m[key] = e
	c.bytes += size
	runtime.AddCleanup(x, c.drop, droppedEntry{key, e.wp})
	return x, true
}

// sharedEntryBytes is what sharing a classification costs besides its key and
// the classification: the map entry, the weak pointer and the cleanup.
const sharedEntryBytes = 192

type droppedEntry struct {
	key string
	wp  weak.Pointer[nodeIndex]
}

// drop removes a collected classification, unless the cache was reset or
// the shape shared again since (put then took it out already).
func (c *indexCache) drop(e droppedEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[e.key]; ok && old.wp == e.wp {
		delete(c.m, e.key)
		c.bytes -= old.size
	}
}
