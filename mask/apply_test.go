package mask_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/mask"
)

// TestApplyDTypes masks float32, float16 and bfloat16 rows with random
// bitmasks and checks every element against the bitmask: an allowed logit
// keeps its bits (16-bit NaN payloads included), a disallowed one and every
// column past the vocabulary become -Inf in its encoding, and rows left out
// of indices are untouched.
func TestApplyDTypes(t *testing.T) {
	const vocab, width, rows = 100, 104, 3 // four padding columns
	rng := rand.New(rand.NewPCG(1, 2))
	b := mask.NewBitmask(rows, vocab)
	for r := range rows {
		for id := range vocab {
			if rng.IntN(3) > 0 {
				b.Row(r)[id>>5] |= 1 << (id & 31)
			}
		}
	}
	allowed := func(r, c int) bool { return c < vocab && b.Allowed(r, c) }
	for _, indices := range [][]int{nil, {2, 0}} {
		bitmaskRow := func(r int) (int, bool) { // the bitmask row logits row r is masked by
			if indices == nil {
				return r, true
			}
			for k, i := range indices {
				if i == r {
					return k, true
				}
			}
			return 0, false
		}
		// float32
		f := make([]float32, rows*width)
		for i := range f {
			f[i] = rng.Float32()*20 - 10
		}
		in32 := append([]float32(nil), f...)
		require.NoError(t, mask.Apply(f, width, b, indices))
		// float16 and bfloat16: random bit patterns, NaNs and infinities
		// among them.
		h := make([]uint16, rows*width)
		for i := range h {
			h[i] = uint16(rng.Uint32())
		}
		inH := append([]uint16(nil), h...)
		bf := append([]uint16(nil), h...)
		require.NoError(t, mask.ApplyFloat16(h, width, b, indices))
		require.NoError(t, mask.ApplyBFloat16(bf, width, b, indices))
		for r := range rows {
			k, masked := bitmaskRow(r)
			for c := range width {
				i := r*width + c
				switch {
				case !masked:
					assert.Equal(t, math.Float32bits(in32[i]), math.Float32bits(f[i]), "float32 row %d untouched", r)
					assert.Equal(t, inH[i], h[i])
					assert.Equal(t, inH[i], bf[i])
				case allowed(k, c):
					assert.Equal(t, math.Float32bits(in32[i]), math.Float32bits(f[i]))
					assert.Equal(t, inH[i], h[i], "float16 keeps its bits")
					assert.Equal(t, inH[i], bf[i], "bfloat16 keeps its bits")
				default:
					assert.True(t, math.IsInf(float64(f[i]), -1))
					assert.Equal(t, uint16(0xFC00), h[i])
					assert.Equal(t, uint16(0xFF80), bf[i])
				}
			}
		}
	}
	// Shapes that do not fit are refused before anything is written.
	h := make([]uint16, 2*width)
	assert.ErrorIs(t, mask.ApplyFloat16(h[:width+1], width, b, nil), mask.ErrShape)
	assert.ErrorIs(t, mask.ApplyBFloat16(h[:2*(vocab-1)], vocab-1, b, nil), mask.ErrShape)
	assert.ErrorIs(t, mask.ApplyFloat16(h, width, b, []int{5}), mask.ErrShape)
	assert.Equal(t, make([]uint16, 2*width), h)
}
