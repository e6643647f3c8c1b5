package rein

import "time"

// lru is the Compiler's cache: compiled grammars and failed compiles by key,
// most recently used first, within a byte budget. Sizes are each grammar's
// MemoryBytes plus its key's length, measured again when an entry is looked
// up (that entry) or added (all entries), since the lazy token index grows
// with use; a failure is charged failureBytes plus its key's and error's
// lengths. It is guarded by Compiler.mu.
type lru struct {
	budget int64
	total  int64
	shared func() (classified, sets int64) // bytes held outside the entries, within the budget too
	failed int                             // entries holding a failure
	items  map[string]*entry
	head   entry // sentinel of a circular list: head.next is the most recent
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

// put adds or replaces key's entry as the most recent and measures every
// entry again.
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
	for e := c.head.next; e != &c.head; e = e.next {
		c.measure(e)
	}
}

// evict drops the least recently used entries until the cache, with the
// shared bytes, is within its budget, and returns how many it dropped.
func (c *lru) evict() int64 {
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
	for c.total+shared > c.budget && c.head.prev != &c.head {
		c.remove(c.head.prev)
		n++
	}
	return n
}

// failureBytes is what a cached failure is charged besides its key and its
// error's text: the entry, the result and the error values.
const failureBytes = 256

func (c *lru) measure(e *entry) {
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
