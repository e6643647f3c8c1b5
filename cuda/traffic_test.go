package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reinlm/rein/mask"
)

// trafficBytes is the memory traffic the kernel needs to mask rows of width
// logits of dtype d with b, as BenchmarkApply counts it: every bitmask word a
// row uses is read; a 16-byte vector of logits costs nothing when it allows
// every token, a write when it allows none (-inf is stored without a load),
// and a read and a write otherwise. Padding columns allow nothing.
func trafficBytes(b *mask.Bitmask, d DType, width int) int64 {
	n := int64(4 * b.Rows * mask.WordsPerRow(b.VocabSize))
	e := 16 / d.Size()
	for row := 0; row < b.Rows; row++ {
		for c := 0; c < width; c += e {
			m := min(e, width-c)
			allowed := 0
			for j := c; j < c+m; j++ {
				if b.Allowed(row, j) {
					allowed++
				}
			}
			switch allowed {
			case m:
			case 0:
				n += int64(m * d.Size())
			default:
				n += int64(2 * m * d.Size())
			}
		}
	}
	return n
}

func TestTrafficBytes(t *testing.T) {
	b := mask.NewBitmask(1, 70)
	b.Words[0] = 0x0000_00f0 // float32 vector 1 allowed, 0 and 2-7 not
	b.Words[1] = 0x8000_0001 // vectors 8 and 15 mixed, 9-14 not
	b.Words[2] = 0x0000_0003 // 2 tokens past 64 allowed; 66-69 and padding not
	const words = 4 * 3
	// float32, 4 tokens a vector: 0-3 none, 4-7 all, 8-31 none; 32-35 mixed,
	// 36-59 none, 60-63 mixed; 64-67 mixed, 68-71 none (70, 71 padding).
	assert.Equal(t, int64(words+7*16+32+6*16+32+32+16), trafficBytes(b, Float32, 72))
	// float16, 8 tokens a vector: 0-7 mixed, 8-31 none; 32-39 mixed, 40-55
	// none, 56-63 mixed; 64-69 mixed (6 tokens).
	assert.Equal(t, int64(words+32+3*16+32+2*16+32+24), trafficBytes(b, Float16, 70))
	full := mask.NewBitmask(2, 64)
	for i := range full.Words {
		full.Words[i] = ^uint32(0)
	}
	assert.Equal(t, int64(4*4), trafficBytes(full, BFloat16, 64), "everything allowed: only the words")
}
