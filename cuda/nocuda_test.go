//go:build !cuda

package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reinlm/rein/mask"
)

func TestUnavailableWithoutTag(t *testing.T) {
	m, err := NewMasker(0)
	assert.Nil(t, m)
	assert.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "cuda build tag")

	var zero Masker
	logits := Logits{Ptr: 0x1000, DType: Float32, Rows: 1, Width: 32}
	bitmask := DeviceBitmask{Ptr: 0x2000, Rows: 1, VocabSize: 32}
	assert.ErrorIs(t, zero.Apply(0, logits, bitmask, 0, 0), ErrUnavailable)
	assert.ErrorIs(t, zero.ApplyBitmask(0, logits, mask.NewBitmask(1, 32), nil), ErrUnavailable)
	assert.ErrorIs(t, zero.Close(), ErrUnavailable)
	assert.ErrorIs(t, m.Close(), ErrUnavailable, "a nil masker does not panic")
}
