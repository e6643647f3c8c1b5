package pervocab

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// key is 32 bytes: not a tiny allocation, which shares its block with
// others and so may never be seen freed.
type key struct{ n [4]int }

// TestDroppedWithTheKey: a value is built once per key, and leaves the
// cache once its key is unreachable.
func TestDroppedWithTheKey(t *testing.T) {
	var c Cache[key, int]
	builds := 0
	build := func(k *key) *int { builds++; n := k.n[0]; return &n }
	func() {
		k := &key{n: [4]int{7}}
		assert.Nil(t, c.Lookup(k))
		a := c.Get(k, build)
		b := c.Get(k, build)
		assert.Same(t, a, b)
		assert.Equal(t, 7, *a)
		assert.Equal(t, 1, builds)
		assert.Equal(t, 1, c.Len())
		runtime.KeepAlive(k)
	}()
	for i := 0; i < 100 && c.Len() > 0; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
	}
	assert.Zero(t, c.Len())
}
