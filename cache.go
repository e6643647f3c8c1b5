package rein

import (
	"sync/atomic"
	"time"
)

// lru is the Compiler's cache: compiled grammars and failed compiles by key,
// most recently used first, within a byte budget. Sizes are each grammar's
// MemoryBytes plus its key's length, measured when an entry is added or
// looked up; a failure is charged failureBytes plus its key's and error's
// lengths.
//
// The lazy token index grows while matchers use a grammar. The grammars
// compiled for the cache add their growth to grown as it happens
// (mask.Options.Growth), and the cache counts it on top of the measured
// sizes; once it passes a 64th of the budget, the next eviction measures
// every entry again and grown starts over. So adding an entry costs no more
// than measuring it, however many entries there are, and the count errs only
// upwards: every entry was measured since grown last started over, so what
// an entry grew by since its measure is in grown; what else grown holds is
// growth counted twice (in an entry measured since) or that of grammars no
// longer cached. When the cache evicts, it over-counts by at most a 64th of
// the budget, and never under-counts. It is guarded by Compiler.mu, but for
// grown.
type lru struct {
	budget   int64
	total    int64                           // the entries' sizes, as measured
	grown    atomic.Int64                    // growth of the grammars since every entry was measured
	shared   func() (classified, sets int64) // bytes held outside the entries, within the budget too
	measures int64                           // entries measured, for tests
	failed   int                             // entries holding a failure
	items    map[string]*entry
	head     entry // sentinel of a circular list: head.next is the most recent
}

type entry struct {
	key        string
	res        result
	size       int64
	prev, next *entry
}

func (c *lru) len() int { return len(c.items) }

func (c *lru) init() {
	if c.items == nil {
		c.items = map[string]*entry{}
		c.head.prev, c.head.next = &c.head, &c.head
	}
}

// get returns the entry of key, now the most recent, or nil (also when it
// held a failure that has expired, which leaves).
func (c *lru) get(key string) *entry {
	c.init()
	e := c.items[key]
	if e == nil {
		return nil
	}
	if !e.res.expires.IsZero() && time.Now().After(e.res.expires) {
		c.remove(e)
		return nil
	}
	c.measure(e)
	c.unlink(e)
	c.pushFront(e)
	return e
}

// put adds or replaces key's entry as the most recent, and measures it.
func (c *lru) put(key string, res result) {
	c.init()
	if old := c.items[key]; old != nil {
		c.remove(old)
	}
	e := &entry{key: key, res: res}
	c.items[key] = e
	if res.err != nil {
		c.failed++
	}
	c.pushFront(e)
	c.measure(e)
}

// settle measures every entry again where the grammars have grown by more
// than a 64th of the budget since they last were.
func (c *lru) settle() {
	if c.grown.Load() <= c.budget/64 {
		return
	}
	// grown starts over before the entries are measured: growth while
	// they are is then counted twice, not missed.
	c.grown.Store(0)
	for e := c.head.next; e != &c.head; e = e.next {
		c.measure(e)
	}
}

// bytes is what the cache counts of its entries: their sizes as measured,
// and the growth since.
func (c *lru) bytes() int64 { return c.total + c.grown.Load() }

// evict drops the least recently used entries until the cache, with the
// shared bytes, is within its budget, and returns how many it dropped. It
// settles the count first.
func (c *lru) evict() int64 {
	c.init() // Stats may evict before anything was added
	c.settle()
	var n int64
	// The shared classifications count up to half the budget, which is
	// what NewCompiler lets them take: a larger figure (another Compiler of
	// the vocabulary set a larger budget since) is not this cache's to pay
	// for by flushing its own entries. The token sets they are classified
	// from, bounded on their own, count whole.
	var shared int64
	if c.shared != nil {
		classified, sets := c.shared()
		shared = min(classified, c.budget/2) + sets
	}
	for c.bytes()+shared > c.budget && c.head.prev != &c.head {
		c.remove(c.head.prev)
		n++
	}
	return n
}

// failureBytes is what a cached failure is charged besides its key and its
// error's text: the entry, the result and the error values.
const failureBytes = 256

func (c *lru) measure(e *entry) {
	c.measures++
	var size int64
	if e.res.err != nil {
		if e.size != 0 {
			return // a failure does not grow
		}
		size = int64(failureBytes + len(e.key) + len(e.res.err.Error()))
	} else {
		size = int64(e.res.compiled.MemoryBytes() + len(e.key))
	}
	c.total += size - e.size
	e.size = size
}

func (c *lru) remove(e *entry) {
	if e.res.err != nil {
		c.failed--
	}
	c.unlink(e)
	delete(c.items, e.key)
	c.total -= e.size
}

func (c *lru) unlink(e *entry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (c *lru) pushFront(e *entry) {
	e.prev, e.next = &c.head, c.head.next
	c.head.next.prev = e
	c.head.next = e
}
