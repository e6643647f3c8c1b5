package mask

import (
	"sync"
	"sync/atomic"

	"github.com/reinlm/rein/tokenizer"
)

// maxSharedShape bounds the automata whose classifications are shared: a
// node reaching more nodes than this is classified for its own grammar
// only, so describing a shape never costs more than a small walk.
const maxSharedShape = 1024

var sharedBudget atomic.Int64

func init() { sharedBudget.Store(256 << 20) }

// SetSharedIndexBudget sets the memory, in bytes, that the node
// classifications shared between the grammars of one vocabulary may take
// (256 MiB unless set). When it is exceeded, entries are dropped at random;
// grammars that hold an entry keep it. 0 turns sharing off.
func SetSharedIndexBudget(bytes int) { sharedBudget.Store(int64(bytes)) }

// ResetSharedIndex drops the node classifications shared between the
// grammars of vocab: the next grammar to meet a node classifies it again.
// Grammars compiled before keep the classifications they already hold.
// Benchmarks call it so that a figure called cold is cold; a server may call
// it to return the memory.
func ResetSharedIndex(vocab *tokenizer.Vocab) {
	if v := lookupVocab(vocab); v != nil {
		c := &v.shared
		c.mu.Lock()
		c.m, c.bytes = nil, 0
		c.mu.Unlock()
	}
}

// indexCache shares node classifications between the compiled grammars of
// one vocabulary, keyed by the node's shape (pda.Program.Shape). A schema
// seen for the first time then classifies only what is new in it, typically
// its enums and patterns, not its string and number rules again.
type indexCache struct {
	mu    sync.Mutex
	m     map[string]*nodeIndex
	bytes int
}

// get returns the classification stored for shape, or nil.
func (c *indexCache) get(shape []byte, ok bool) *nodeIndex {
	if !ok {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[string(shape)]
}

// put stores x for shape unless another goroutine stored one first, and
// returns the one stored, and false when x was too large to share (the
// caller then holds it alone).
func (c *indexCache) put(shape []byte, x *nodeIndex) (*nodeIndex, bool) {
	size := len(shape) + x.sizeBytes()
	budget := int(sharedBudget.Load())
	if size > budget/4 {
		return x, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[string(shape)]; old != nil {
		return old, true
	}
	if c.m == nil {
		c.m = map[string]*nodeIndex{}
	}
	for key, old := range c.m {
		if c.bytes+size <= budget {
			break
		}
		// Map order is random: this drops entries at random.
		c.bytes -= len(key) + old.sizeBytes()
		delete(c.m, key)
	}
	c.m[string(shape)] = x
	c.bytes += size
	return x, true
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
