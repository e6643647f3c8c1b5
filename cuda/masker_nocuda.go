//go:build !cuda

package cuda

import (
	"fmt"

	"github.com/reinlm/rein/mask"
)

var errNoTag = fmt.Errorf("%w: rein was built without the cuda build tag", ErrUnavailable)

// Masker applies bitmasks to logits on the GPU. This build has no GPU
// support: every method returns ErrUnavailable.
type Masker struct{}

// NewMasker returns ErrUnavailable: rein was built without the cuda tag.
func NewMasker(ctx Context) (*Masker, error) { return nil, errNoTag }

// Apply returns ErrUnavailable: rein was built without the cuda tag.
func (m *Masker) Apply(stream Stream, logits Logits, bitmask DeviceBitmask, indices DevicePtr, nIndices int) error {
	return errNoTag
}

// ApplyBitmask returns ErrUnavailable: rein was built without the cuda tag.
func (m *Masker) ApplyBitmask(stream Stream, logits Logits, b *mask.Bitmask, indices []int) error {
	return errNoTag
}

// Close returns ErrUnavailable: rein was built without the cuda tag.
func (m *Masker) Close() error { return errNoTag }
