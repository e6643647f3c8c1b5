package pda

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reinlm/rein/grammar"
)

// TestLinkClasses checks that following a class's ring from any of its
// bytes visits exactly that class's bytes, each once, and that the
// reserved byte is in no ring.
func TestLinkClasses(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tables := map[string]func(b int) uint8{
		"one class":        func(int) uint8 { return 0 },
		"every byte alone": func(b int) uint8 { return uint8(b) },
		"runs":             func(b int) uint8 { return uint8(b / 40) },
		"random of 5":      func(int) uint8 { return uint8(r.IntN(5)) },
		"random of 200":    func(int) uint8 { return uint8(r.IntN(200)) },
		"reserved alone":   func(b int) uint8 { return uint8(b / 255) },
	}
	for name, class := range tables {
		t.Run(name, func(t *testing.T) {
			var cls [256]uint8
			for b := range cls {
				cls[b] = class(b)
			}
			var ring [256]byte
			LinkClasses(cls[:], ring[:])
			assert.Equal(t, byte(grammar.ReservedByte), ring[grammar.ReservedByte])
			for b := range grammar.ReservedByte {
				seen := map[byte]bool{}
				for x := byte(b); !seen[x]; x = ring[x] {
					seen[x] = true
					assert.NotEqual(t, byte(grammar.ReservedByte), x, "%s: byte %d's ring holds the reserved byte", name, b)
				}
				for x := range grammar.ReservedByte {
					assert.Equal(t, cls[x] == cls[b], seen[byte(x)], "%s: byte %d in byte %d's ring", name, x, b)
				}
			}
		})
	}
}
