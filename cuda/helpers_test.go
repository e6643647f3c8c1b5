package cuda

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/mask"
)

// Helpers shared by the GPU tests (cuda tag) and the kernel's host emulation
// (emu_test.go): inputs, layouts and the CPU reference.

func wordBytes(words []uint32) []byte {
	out := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out
}

// randomLogits returns n elements of dtype d as little-endian bytes: random
// bit patterns, NaNs included (their bits must survive).
func randomLogits(r *rand.Rand, d DType, n int) []byte {
	out := make([]byte, n*d.Size())
	for i := 0; i < n; i++ {
		if d == Float32 {
			binary.LittleEndian.PutUint32(out[4*i:], r.Uint32())
			continue
		}
		binary.LittleEndian.PutUint16(out[2*i:], uint16(r.Uint32()))
	}
	return out
}

// reference masks a host copy of the logits with the CPU mask.Apply,
// mask.ApplyFloat16 or mask.ApplyBFloat16: rows of rowStride elements, of
// which the first width are logits. The elements past width in each row are
// left as they were.
func reference(t testing.TB, d DType, data []byte, rows, width, rowStride int, b *mask.Bitmask, indices []int) []byte {
	t.Helper()
	out := append([]byte(nil), data...)
	if d == Float32 {
		f := make([]float32, rows*width)
		for r := 0; r < rows; r++ {
			for c := 0; c < width; c++ {
				f[r*width+c] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*(r*rowStride+c):]))
			}
		}
		require.NoError(t, mask.Apply(f, width, b, indices))
		for r := 0; r < rows; r++ {
			for c := 0; c < width; c++ {
				binary.LittleEndian.PutUint32(out[4*(r*rowStride+c):], math.Float32bits(f[r*width+c]))
			}
		}
		return out
	}
	h := make([]uint16, rows*width)
	for r := 0; r < rows; r++ {
		for c := 0; c < width; c++ {
			h[r*width+c] = binary.LittleEndian.Uint16(data[2*(r*rowStride+c):])
		}
	}
	apply := mask.ApplyFloat16
	if d == BFloat16 {
		apply = mask.ApplyBFloat16
	}
	require.NoError(t, apply(h, width, b, indices))
	for r := 0; r < rows; r++ {
		for c := 0; c < width; c++ {
			binary.LittleEndian.PutUint16(out[2*(r*rowStride+c):], h[r*width+c])
		}
	}
	return out
}

// requireSameBits compares two logit buffers element by element and names
// the first few differences.
func requireSameBits(t testing.TB, d DType, rowStride int, want, got []byte) {
	t.Helper()
	require.Equal(t, len(want), len(got))
	size := d.Size()
	var diffs []string
	n := 0
	for i := 0; i < len(want); i += size {
		w, g := want[i:i+size], got[i:i+size]
		if string(w) == string(g) {
			continue
		}
		n++
		if len(diffs) < 8 {
			e := i / size
			diffs = append(diffs, fmt.Sprintf("row %d col %d: want %x got %x", e/rowStride, e%rowStride, w, g))
		}
	}
	require.Zerof(t, n, "%d %v logits differ from mask.Apply:\n%v", n, d, diffs)
}

// Mask patterns: each fills a valid bitmask (bits past the vocabulary 0).
var patterns = map[string]func(r *rand.Rand, b *mask.Bitmask){
	"random": func(r *rand.Rand, b *mask.Bitmask) {
		for i := range b.Words {
			b.Words[i] = r.Uint32()
		}
	},
	"none": func(*rand.Rand, *mask.Bitmask) {},
	"all": func(_ *rand.Rand, b *mask.Bitmask) {
		for i := range b.Words {
			b.Words[i] = math.MaxUint32
		}
	},
	"sparse": func(r *rand.Rand, b *mask.Bitmask) {
		for row := 0; row < b.Rows; row++ {
			for k := 0; k < 1+b.VocabSize/100; k++ {
				b.Set(row, r.IntN(b.VocabSize))
			}
		}
	},
	"words": func(r *rand.Rand, b *mask.Bitmask) {
		for i := range b.Words {
			switch r.IntN(4) {
			case 0, 1:
				b.Words[i] = math.MaxUint32
			case 2:
				b.Words[i] = r.Uint32()
			}
		}
	},
}

func fillMask(r *rand.Rand, b *mask.Bitmask, pattern string) {
	patterns[pattern](r, b)
	if tail := b.VocabSize % 32; tail != 0 {
		for row := 0; row < b.Rows; row++ {
			b.Row(row)[b.Stride-1] &= 1<<tail - 1
		}
	}
}

// deviceWords lays b out with maskStride words a row, filling what the
// kernel must ignore with ones: the words past a row and the bits past the
// vocabulary.
func deviceWords(b *mask.Bitmask, maskStride int) []uint32 {
	words := make([]uint32, b.Rows*maskStride)
	for r := 0; r < b.Rows; r++ {
		row := words[r*maskStride : (r+1)*maskStride]
		copy(row, b.Row(r))
		for i := b.Stride; i < maskStride; i++ {
			row[i] = math.MaxUint32
		}
		if tail := b.VocabSize % 32; tail != 0 {
			row[b.Stride-1] |= ^uint32(0) << tail
		}
	}
	return words
}

type applyCase struct {
	name      string
	rows      int // logit rows
	width     int
	vocab     int
	rowStride int   // 0: width
	offset    int   // elements the logits start past an aligned address
	padWords  int   // extra words a bitmask row
	indices   []int // nil: every row
	pattern   string
}

var applyCases = []applyCase{
	{name: "vocab 1", rows: 1, width: 1, vocab: 1, pattern: "random"},
	{name: "vocab 31", rows: 2, width: 31, vocab: 31, pattern: "random"},
	{name: "vocab 33 padded to 64", rows: 2, width: 64, vocab: 33, pattern: "random"},
	{name: "odd vocab", rows: 3, width: 1001, vocab: 1001, pattern: "random"},
	{name: "one span and a bit", rows: 3, width: 1030, vocab: 1027, pattern: "words"},
	{name: "llama3", rows: 2, width: 128256, vocab: 128256, pattern: "random"},
	{name: "qwen2 padded", rows: 2, width: 151936, vocab: 151665, pattern: "sparse"},
	{name: "nothing allowed", rows: 2, width: 5000, vocab: 4999, pattern: "none"},
	{name: "everything allowed", rows: 2, width: 5000, vocab: 4999, pattern: "all"},
	{name: "everything allowed padded", rows: 2, width: 5120, vocab: 4999, pattern: "all"},
	{name: "whole words", rows: 5, width: 40000, vocab: 39999, pattern: "words"},
	{name: "row stride", rows: 4, width: 5003, vocab: 5001, rowStride: 5011, pattern: "random"},
	{name: "aligned row stride", rows: 4, width: 4100, vocab: 4097, rowStride: 4104, pattern: "random"},
	{name: "unaligned start", rows: 3, width: 3000, vocab: 2990, offset: 1, pattern: "random"},
	{name: "bitmask stride", rows: 3, width: 3000, vocab: 2990, padWords: 5, pattern: "words"},
	{name: "indices", rows: 8, width: 2048, vocab: 2000, indices: []int{5, 0, 7}, pattern: "random"},
	{name: "indices with strides", rows: 6, width: 1111, vocab: 1100, rowStride: 1115, padWords: 2, indices: []int{3, 1}, pattern: "words"},
	{name: "empty indices", rows: 4, width: 100, vocab: 100, indices: []int{}, pattern: "none"},
	{name: "more rows than grid y", rows: 70000, width: 40, vocab: 37, pattern: "random"},
}

var dtypes = []DType{Float32, Float16, BFloat16}
