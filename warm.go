package rein

import (
	"time"
	"weak"

	"github.com/reinlm/rein/internal/fillgate"
	"github.com/reinlm/rein/mask"
)

// warmer classifies the nodes of recently compiled grammars in the
// background (mask.Compiled.WarmNext), newest grammar first: the request
// that just became Ready is the one about to take its first masks, while
// older ones have had time. It yields to compiles: while one runs or waits
// for a slot, it pauses between nodes, so warming never delays a compile by
// more than one node's classification. Its goroutines exist only while there
// is work. The queue holds grammars weakly: a grammar that left the cache and
// whose requests are done is not kept alive, nor grown, by warming. Fields
// are guarded by Compiler.mu.
type warmer struct {
	workers int        // goroutines allowed (CompilerOptions.WarmWorkers)
	running int        // goroutines alive
	queue   []warmItem // grammars with nodes left, newest last
}

// warmItem is a grammar to warm and its cache key: each node warmed grows
// it, and its cache entry is measured again.
type warmItem struct {
	g   weak.Pointer[mask.Compiled]
	key string
}

// maxWarmQueue bounds the grammars waiting to be warmed: past it the oldest
// is dropped (its matchers classify what they meet, as without warming).
const maxWarmQueue = 16

// warmPause is how long a warming goroutine sleeps before looking again
// whether compiles are still running.
const warmPause = 100 * time.Microsecond

// warm queues g, cached under key, for background classification. c.mu is
// held.
func (c *Compiler) warm(key string, g *mask.Compiled) {
	w := &c.warmer
	if w.workers <= 0 || g == nil {
		return
	}
	p := weak.Make(g)
	w.remove(p)
	if len(w.queue) == maxWarmQueue {
		w.queue = w.queue[1:]
	}
	w.queue = append(w.queue, warmItem{p, key})
	if w.running < w.workers {
		w.running++
		go c.warmLoop()
	}
}

// warmLoop warms queued grammars one node at a time until none is left.
// After each node it measures the grammar's cache entry again, so that the
// cache's budget holds while warming grows the grammars in it.
func (c *Compiler) warmLoop() {
	for {
		for c.compiling.Load() > 0 {
			time.Sleep(warmPause)
		}
		c.mu.Lock()
		w := &c.warmer
		if len(w.queue) == 0 {
			w.running--
			c.mu.Unlock()
			return
		}
		it := w.queue[len(w.queue)-1]
		g := it.g.Value()
		if g == nil {
			w.remove(it.g) // collected: nothing holds it any more
		}
		c.mu.Unlock()
		if g == nil {
			continue
		}
		more := g.WarmNext()
		fillgate.Yield() // a node at a time, masks first
		c.mu.Lock()
		if !more {
			w.remove(it.g)
		}
		if e := c.cache.items[it.key]; e != nil && e.res.compiled == g {
			c.cache.measure(e)
			c.stats.Evictions += c.cache.evict()
		}
		c.mu.Unlock()
	}
}

// remove takes the grammar p out of the queue, if it is there.
func (w *warmer) remove(p weak.Pointer[mask.Compiled]) {
	for i, q := range w.queue {
		if q.g == p {
			w.queue = append(w.queue[:i], w.queue[i+1:]...)
			return
		}
	}
}
