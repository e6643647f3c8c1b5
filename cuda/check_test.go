package cuda

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/mask"
)

func TestDType(t *testing.T) {
	assert.Equal(t, 4, Float32.Size())
	assert.Equal(t, 2, Float16.Size())
	assert.Equal(t, 2, BFloat16.Size())
	assert.Equal(t, 0, DType(3).Size())
	assert.Equal(t, 0, DType(-1).Size())
	assert.Equal(t, "bfloat16", BFloat16.String())
	assert.Equal(t, "DType(7)", DType(7).String())
}

func TestCheck(t *testing.T) {
	logits := Logits{Ptr: 0x1000, DType: Float16, Rows: 4, Width: 160}
	bitmask := DeviceBitmask{Ptr: 0x2000, Rows: 4, VocabSize: 151}
	for _, c := range []struct {
		name       string
		edit       func(*Logits, *DeviceBitmask)
		hasIndices bool
		nIndices   int
		err        error
		rows       int
	}{
		{name: "all rows", rows: 4},
		{name: "fewer logit rows", edit: func(l *Logits, _ *DeviceBitmask) { l.Rows = 2 }, rows: 2},
		{name: "no rows", edit: func(l *Logits, _ *DeviceBitmask) { l.Rows = 0 }, rows: 0},
		{name: "indices", hasIndices: true, nIndices: 3, rows: 3},
		{name: "indices beyond the logit rows", edit: func(l *Logits, _ *DeviceBitmask) { l.Rows = 1 }, hasIndices: true, nIndices: 4, rows: 4},
		{name: "empty indices", hasIndices: true, rows: 0},
		{name: "width equals vocabulary", edit: func(l *Logits, _ *DeviceBitmask) { l.Width = 151 }, rows: 4},
		{name: "row stride", edit: func(l *Logits, _ *DeviceBitmask) { l.RowStride = 163 }, rows: 4},
		{name: "bitmask stride", edit: func(_ *Logits, b *DeviceBitmask) { b.Stride = 9 }, rows: 4},
		{name: "unknown dtype", edit: func(l *Logits, _ *DeviceBitmask) { l.DType = 3 }, err: ErrArgument},
		{name: "negative rows", edit: func(l *Logits, _ *DeviceBitmask) { l.Rows = -1 }, err: ErrArgument},
		{name: "negative indices", hasIndices: true, nIndices: -1, err: ErrArgument},
		{name: "indices without pointer", nIndices: 2, err: ErrArgument},
		{name: "no vocabulary", edit: func(_ *Logits, b *DeviceBitmask) { b.VocabSize = 0 }, err: ErrArgument},
		{name: "zero width", edit: func(l *Logits, _ *DeviceBitmask) { l.Width = 0 }, err: mask.ErrShape},
		{name: "narrower than vocabulary", edit: func(l *Logits, _ *DeviceBitmask) { l.Width = 150 }, err: mask.ErrShape},
		{name: "stride narrower than width", edit: func(l *Logits, _ *DeviceBitmask) { l.RowStride = 159 }, err: mask.ErrShape},
		{name: "bitmask stride too small", edit: func(_ *Logits, b *DeviceBitmask) { b.Stride = 4 }, err: mask.ErrShape},
		{name: "more logit rows than bitmask rows", edit: func(l *Logits, _ *DeviceBitmask) { l.Rows = 5 }, err: mask.ErrShape},
		{name: "more indices than bitmask rows", hasIndices: true, nIndices: 5, err: mask.ErrShape},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, b := logits, bitmask
			if c.edit != nil {
				c.edit(&l, &b)
			}
			got, err := check(l, b, c.hasIndices, c.nIndices)
			if c.err != nil {
				require.Error(t, err)
				assert.Truef(t, errors.Is(err, c.err), "%v is not %v", err, c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.rows, got.rows)
			assert.GreaterOrEqual(t, got.logits.RowStride, got.logits.Width)
			assert.GreaterOrEqual(t, got.bitmask.Stride, mask.WordsPerRow(b.VocabSize))
		})
	}
}

func TestCheckDefaults(t *testing.T) {
	got, err := check(Logits{DType: Float32, Rows: 1, Width: 100}, DeviceBitmask{Rows: 1, VocabSize: 65}, false, 0)
	require.NoError(t, err)
	assert.Equal(t, 100, got.logits.RowStride)
	assert.Equal(t, 3, got.bitmask.Stride)
	assert.ErrorIs(t, got.checkPointers(), ErrArgument, "rows to mask at null pointers")
	got.logits.Ptr, got.bitmask.Ptr = 0x100, 0x200
	assert.NoError(t, got.checkPointers())
	got.rows = 0
	got.logits.Ptr = 0
	assert.NoError(t, got.checkPointers(), "nothing to do needs no pointers")
}

func TestCheckHost(t *testing.T) {
	b := mask.NewBitmask(3, 100)
	logits := Logits{DType: Float32, Rows: 5, Width: 128}
	assert.NoError(t, checkHost(logits, b, nil))
	assert.NoError(t, checkHost(logits, b, []int{4, 0}))
	assert.NoError(t, checkHost(logits, b, []int{}))
	assert.ErrorIs(t, checkHost(logits, nil, nil), ErrArgument)
	assert.ErrorIs(t, checkHost(logits, b, []int{5}), mask.ErrShape, "index past the logit rows")
	assert.ErrorIs(t, checkHost(logits, b, []int{-1}), mask.ErrShape)
	assert.ErrorIs(t, checkHost(logits, b, []int{0, 1, 2, 3}), mask.ErrShape, "more indices than bitmask rows")
	short := *b
	short.Words = short.Words[:len(short.Words)-1]
	assert.ErrorIs(t, checkHost(logits, &short, nil), mask.ErrShape)
	narrow := *b
	narrow.Stride = 3
	assert.ErrorIs(t, checkHost(logits, &narrow, nil), mask.ErrShape)
}
