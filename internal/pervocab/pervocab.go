// Package pervocab keeps one value per tokenizer vocabulary (a sorted token
// index, say), built on first use and shared by every caller, and drops it
// once the vocabulary is unreachable: the map is keyed by a weak pointer and
// a cleanup deletes the entry when the Vocab is collected. A value must not
// refer to its Vocab, or it would keep it alive.
package pervocab

import (
	"runtime"
	"sync"
	"weak"

	"github.com/reinlm/rein/tokenizer"
)

// Cache maps vocabularies to values of type T. The zero value is empty and
// ready to use; a Cache is safe for concurrent use.
type Cache[T any] struct {
	m sync.Map // weak.Pointer[tokenizer.Vocab] -> *T
}

// Lookup returns voc's value, or nil when none was built.
func (c *Cache[T]) Lookup(voc *tokenizer.Vocab) *T {
	if x, ok := c.m.Load(weak.Make(voc)); ok {
		return x.(*T)
	}
	return nil
}

// Get returns voc's value, building it with build on first use. Concurrent
// first uses may each build one; all get the one stored first.
func (c *Cache[T]) Get(voc *tokenizer.Vocab, build func(*tokenizer.Vocab) *T) *T {
	if x := c.Lookup(voc); x != nil {
		return x
	}
	key := weak.Make(voc)
	x, loaded := c.m.LoadOrStore(key, build(voc))
	if !loaded {
		runtime.AddCleanup(voc, func(k weak.Pointer[tokenizer.Vocab]) { c.m.Delete(k) }, key)
	}
	return x.(*T)
}

// Len is the number of vocabularies with a value.
func (c *Cache[T]) Len() int {
	n := 0
	c.m.Range(func(_, _ any) bool { n++; return true })
	return n
}
