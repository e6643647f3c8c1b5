//go:build !cuda

package cuda_test

import (
	"errors"
	"fmt"

	"github.com/reinlm/rein/cuda"
	"github.com/reinlm/rein/mask"
)

// An engine tries the GPU and falls back to the CPU reference where rein was
// built without the cuda tag (as here) or the GPU is too old. On a GPU host,
// logits and the bitmask would be device memory, and the stream the engine's.
func ExampleNewMasker() {
	const vocab, width = 40, 64 // the model's logit rows are padded to 64
	b := mask.NewBitmask(1, vocab)
	b.Set(0, 7)
	b.Set(0, 39)

	m, err := cuda.NewMasker(0) // the context current on this thread
	if errors.Is(err, cuda.ErrUnavailable) {
		logits := make([]float32, width)
		if err := mask.Apply(logits, width, b, nil); err != nil {
			panic(err)
		}
		fmt.Println("on the CPU:", logits[7], logits[39], logits[8], logits[63])
		return
	}
	if err != nil {
		panic(err)
	}
	defer m.Close()
	var logits cuda.DevicePtr // the engine's float16 logits on the device
	var stream cuda.Stream    // and its stream
	if err := m.ApplyBitmask(stream, cuda.Logits{Ptr: logits, DType: cuda.Float16, Rows: 1, Width: width}, b, nil); err != nil {
		panic(err)
	}
	// Output: on the CPU: 0 0 -Inf -Inf
}
