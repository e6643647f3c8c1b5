// Package pervocab keeps one value per vocabulary, keyed by something the
// vocabulary owns and shares with its copies (its token trie, say): built on
// first use and shared by every caller, and dropped once the key is
// unreachable: the map is keyed by a weak pointer and a cleanup deletes the
// entry when the key is collected. A value must not refer to its key, or it
// would keep it alive.
package pervocab

import (
	"runtime"
	"sync"
	"weak"
)

// Cache maps keys of type *K to values of type *V. The zero value is empty
// and ready to use; a Cache is safe for concurrent use.
type Cache[K, V any] struct {
	m sync.Map // weak.Pointer[K] -> *V
}

// Lookup returns key's value, or nil when none was built.
func (c *Cache[K, V]) Lookup(key *K) *V {
	if x, ok := c.m.Load(weak.Make(key)); ok {
		return x.(*V)
	}
	return nil
}

// Get returns key's value, building it with build on first use. Concurrent
// first uses may each build one; all get the one stored first.
func (c *Cache[K, V]) Get(key *K, build func(*K) *V) *V {
	if x := c.Lookup(key); x != nil {
		return x
	}
	wk := weak.Make(key)
	x, loaded := c.m.LoadOrStore(wk, build(key))
	if !loaded {
		runtime.AddCleanup(key, func(k weak.Pointer[K]) { c.m.Delete(k) }, wk)
	}
	return x.(*V)
}

// Len is the number of keys with a value.
func (c *Cache[K, V]) Len() int {
	n := 0
	c.m.Range(func(_, _ any) bool { n++; return true })
	return n
}
