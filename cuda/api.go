package cuda

import (
	"errors"
	"fmt"

	"github.com/reinlm/rein/mask"
)

//go:generate bash ../scripts/cuda/build-ptx.sh

// ErrUnavailable reports that GPU masking cannot run here: rein was built
// without the cuda build tag (every function of such a build returns it), or
// the device is older than compute capability 8.0. An engine that gets it
// masks on the CPU with mask.Apply instead.
var ErrUnavailable = errors.New("cuda: GPU masking unavailable")

// ErrArgument reports an argument that is invalid on its own: an unknown
// dtype, a null device pointer, a negative count. Shapes that do not fit
// together are reported with mask.ErrShape, as by the CPU mask.Apply.
var ErrArgument = errors.New("cuda: invalid argument")

// DType is the element type of a logit buffer.
type DType int

// The logit dtypes the kernel handles. Disallowed logits become -inf: the bit
// patterns 0xFF800000, 0xFC00 and 0xFF80.
const (
	Float32 DType = iota
	Float16
	BFloat16
)

var dtypeNames = [...]string{Float32: "float32", Float16: "float16", BFloat16: "bfloat16"}

func (d DType) String() string {
	if d < 0 || int(d) >= len(dtypeNames) {
		return fmt.Sprintf("DType(%d)", int(d))
	}
	return dtypeNames[d]
}

// Size returns the bytes of one element, or 0 for an unknown dtype.
func (d DType) Size() int {
	switch d {
	case Float32:
		return 4
	case Float16, BFloat16:
		return 2
	}
	return 0
}

// DevicePtr is a device address, a CUdeviceptr. A gorgonia.org/cu DevicePtr
// converts to it directly: cuda.DevicePtr(p).
type DevicePtr uintptr

// Stream is a raw CUstream handle; 0 is the legacy default stream of the
// context. With the cuda tag, StreamOf converts a gorgonia.org/cu Stream.
type Stream uintptr

// Context is a raw CUcontext handle; 0 means the context current on the
// calling thread. With the cuda tag, ContextOf converts a gorgonia.org/cu
// CUContext.
type Context uintptr

// Logits describes a batch of logit rows in device memory.
type Logits struct {
	Ptr   DevicePtr // element 0 of row 0
	DType DType
	Rows  int // rows in the batch
	// Width is the number of columns of a row. It may exceed the bitmask's
	// VocabSize (padded vocabularies): the extra columns are always set to
	// -inf.
	Width int
	// RowStride is the number of elements from the start of one row to the
	// start of the next; 0 means Width. The elements between Width and
	// RowStride are never touched.
	RowStride int
}

// DeviceBitmask describes a bitmask in device memory, in mask.Bitmask's
// layout: row k is the uint32 words Ptr[k*Stride : k*Stride+ceil(VocabSize/32)],
// and bit j of word i allows token 32*i+j. Bits at or past VocabSize are
// ignored.
type DeviceBitmask struct {
	Ptr       DevicePtr
	Rows      int
	Stride    int // words from one row to the next; 0 means mask.WordsPerRow(VocabSize)
	VocabSize int
}

// launch is a checked Apply call, with the default strides filled in.
type launch struct {
	logits  Logits
	bitmask DeviceBitmask
	rows    int // bitmask rows to apply: the number of indices, or logits.Rows
}

// The launch shape: a warp covers a span of 32 bitmask words (1,024 columns)
// of one row, a block 4 spans; grid y walks the rows, each block looping over
// the rows past the 65,535 that grid y holds.
const (
	blockThreads = 128
	blockColumns = blockThreads / 32 * 32 * 32
	maxGridY     = 65535
)

// maxWidth bounds a row so that the grid's x dimension, one block per
// blockColumns columns, stays far inside its limit of 2^31-1.
const maxWidth = 1 << 40

// grid returns the launch grid's x and y dimensions.
func (l launch) grid() (x, y int) {
	return (l.logits.Width + blockColumns - 1) / blockColumns, min(l.rows, maxGridY)
}

// check validates the shapes of an Apply call and returns its launch, the
// pointers still unset. It reads no device memory: row indices are checked by
// the kernel, which skips the ones outside the batch.
func check(logits Logits, bitmask DeviceBitmask, hasIndices bool, nIndices int) (launch, error) {
	if logits.DType.Size() == 0 {
		return launch{}, fmt.Errorf("%w: unknown dtype %v", ErrArgument, logits.DType)
	}
	if logits.Rows < 0 || nIndices < 0 || bitmask.Rows < 0 {
		return launch{}, fmt.Errorf("%w: negative row count (logits %d, bitmask %d, indices %d)",
			ErrArgument, logits.Rows, bitmask.Rows, nIndices)
	}
	if !hasIndices && nIndices != 0 {
		return launch{}, fmt.Errorf("%w: %d indices at a null pointer", ErrArgument, nIndices)
	}
	if bitmask.VocabSize <= 0 {
		return launch{}, fmt.Errorf("%w: vocabulary size %d", ErrArgument, bitmask.VocabSize)
	}
	if logits.Width <= 0 || int64(logits.Width) > maxWidth {
		return launch{}, fmt.Errorf("%w: logit width %d", mask.ErrShape, logits.Width)
	}
	if logits.Width < bitmask.VocabSize {
		return launch{}, fmt.Errorf("%w: logit width %d is narrower than the vocabulary (%d)",
			mask.ErrShape, logits.Width, bitmask.VocabSize)
	}
	if logits.RowStride == 0 {
		logits.RowStride = logits.Width
	}
	if logits.RowStride < logits.Width {
		return launch{}, fmt.Errorf("%w: logit row stride %d is narrower than the width %d",
			mask.ErrShape, logits.RowStride, logits.Width)
	}
	words := mask.WordsPerRow(bitmask.VocabSize)
	if bitmask.Stride == 0 {
		bitmask.Stride = words
	}
	if bitmask.Stride < words {
		return launch{}, fmt.Errorf("%w: bitmask stride %d is narrower than a row of %d words",
			mask.ErrShape, bitmask.Stride, words)
	}
	rows := logits.Rows
	if hasIndices {
		if nIndices > bitmask.Rows {
			return launch{}, fmt.Errorf("%w: %d indices but %d bitmask rows",
				mask.ErrShape, nIndices, bitmask.Rows)
		}
		rows = nIndices
	} else if logits.Rows > bitmask.Rows {
		return launch{}, fmt.Errorf("%w: %d logit rows but %d bitmask rows",
			mask.ErrShape, logits.Rows, bitmask.Rows)
	}
	return launch{logits: logits, bitmask: bitmask, rows: rows}, nil
}

// checkPointers reports a launch with work to do and a null logits or
// bitmask pointer.
func (l launch) checkPointers() error {
	if l.rows > 0 && (l.logits.Ptr == 0 || l.bitmask.Ptr == 0) {
		return fmt.Errorf("%w: null logits or bitmask pointer", ErrArgument)
	}
	return nil
}

// checkHost validates the host side of ApplyBitmask: the same checks as
// mask.Apply, with the logit rows given by logits.Rows.
func checkHost(logits Logits, b *mask.Bitmask, indices []int) error {
	if b == nil {
		return fmt.Errorf("%w: nil bitmask", ErrArgument)
	}
	if b.Rows < 0 || b.Stride < mask.WordsPerRow(b.VocabSize) || len(b.Words) < b.Rows*b.Stride {
		return fmt.Errorf("%w: bitmask of %d words for %d rows of stride %d",
			mask.ErrShape, len(b.Words), b.Rows, b.Stride)
	}
	if indices == nil {
		return nil
	}
	if len(indices) > b.Rows {
		return fmt.Errorf("%w: %d indices but %d bitmask rows", mask.ErrShape, len(indices), b.Rows)
	}
	for _, r := range indices {
		if r < 0 || r >= logits.Rows {
			return fmt.Errorf("%w: row index %d outside %d logit rows", mask.ErrShape, r, logits.Rows)
		}
	}
	return nil
}
