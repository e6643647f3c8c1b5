//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gorgonia.org/cu"

	"github.com/reinlm/rein/mask"
)

// BenchmarkApply masks batches of 1, 64, 256 and 1,024 rows of Llama-3's
// (128,256) and Qwen2's (151,936) logit widths with random bitmasks, on a
// stream whose context is current, as in an engine's decoding loop. It
// reports:
//
//   - us/launch: wall time per Apply, launch included (the stream is
//     synchronized before the clock stops);
//   - gpu-us/launch: device time per launch, between two events;
//   - GB/s: the bytes the kernel must move, over the device time: the bitmask
//     words, plus for each 16-byte vector of logits 16 bytes written when it
//     allows no token, 32 read and written when it allows some, none when it
//     allows all;
//   - copy-GB/s: cuMemcpyDtoD of a buffer as large as the logits, counting
//     its bytes read and written, on the same stream;
//   - %copy-bw: GB/s over copy-GB/s.
func BenchmarkApply(b *testing.B) {
	copyBW := map[int64]float64{}
	for _, d := range dtypes {
		for _, cols := range []int{128256, 151936} {
			for _, rows := range []int{1, 64, 256, 1024} {
				b.Run(fmt.Sprintf("%v/cols=%d/rows=%d", d, cols, rows), func(b *testing.B) {
					benchApply(b, d, rows, cols, copyBW)
				})
			}
		}
	}
}

func benchApply(b *testing.B, d DType, rows, cols int, copyBW map[int64]float64) {
	r := rand.New(rand.NewPCG(uint64(rows), uint64(cols)))
	bm := mask.NewBitmask(rows, cols)
	fillMask(r, bm, "random")
	traffic := float64(trafficBytes(bm, d, cols))

	size := int64(rows) * int64(cols) * int64(d.Size())
	var logits, dst cu.DevicePtr
	var stream cu.Stream
	var start, end cu.Event
	gpu(b, func() (err error) {
		if logits, err = cu.MemAlloc(size); err != nil {
			return err
		}
		if dst, err = cu.MemAlloc(size); err != nil {
			return err
		}
		if err = cu.MemsetD8(logits, 0x3c, size); err != nil {
			return err
		}
		if stream, err = cu.MakeStream(cu.NonBlocking); err != nil {
			return err
		}
		if start, err = cu.MakeEvent(cu.DefaultEvent); err != nil {
			return err
		}
		end, err = cu.MakeEvent(cu.DefaultEvent)
		return err
	})
	b.Cleanup(func() {
		gpu(b, func() error {
			return errors.Join(cu.MemFree(logits), cu.MemFree(dst), stream.Destroy(),
				cu.DestroyEvent(&start), cu.DestroyEvent(&end))
		})
	})
	dev := DeviceBitmask{Ptr: DevicePtr(upload(b, wordBytes(bm.Words))), Rows: rows, VocabSize: cols}
	l := Logits{Ptr: DevicePtr(logits), DType: d, Rows: rows, Width: cols}
	s := StreamOf(stream)

	if _, ok := copyBW[size]; !ok {
		copyBW[size] = measureCopy(b, dst, logits, size, stream, start, end)
	}

	var gpuMs float64
	gpu(b, func() error {
		if err := gpuMasker.Apply(s, l, dev, 0, 0); err != nil { // warm-up
			return err
		}
		if err := stream.Synchronize(); err != nil {
			return err
		}
		b.ResetTimer()
		if err := start.Record(stream); err != nil {
			return err
		}
		for i := 0; i < b.N; i++ {
			if err := gpuMasker.Apply(s, l, dev, 0, 0); err != nil {
				return err
			}
		}
		if err := end.Record(stream); err != nil {
			return err
		}
		if err := end.Synchronize(); err != nil {
			return err
		}
		b.StopTimer()
		var err error
		gpuMs, err = start.Elapsed(end)
		return err
	})
	wall := b.Elapsed().Seconds() / float64(b.N)
	device := gpuMs / 1e3 / float64(b.N)
	gbps := traffic / device / 1e9
	b.ReportMetric(wall*1e6, "us/launch")
	b.ReportMetric(device*1e6, "gpu-us/launch")
	b.ReportMetric(gbps, "GB/s")
	b.ReportMetric(copyBW[size], "copy-GB/s")
	b.ReportMetric(100*gbps/copyBW[size], "%copy-bw")
}

// measureCopy returns the device-to-device copy bandwidth for buffers of
// size bytes, counting the bytes read and written, timed with events over
// about 50 ms of copies.
func measureCopy(b *testing.B, dst, src cu.DevicePtr, size int64, stream cu.Stream, start, end cu.Event) float64 {
	var gbps float64
	gpu(b, func() error {
		timed := func(n int) (time.Duration, error) {
			if err := start.Record(stream); err != nil {
				return 0, err
			}
			for i := 0; i < n; i++ {
				if err := cu.MemcpyDtoDAsync(dst, src, size, stream); err != nil {
					return 0, err
				}
			}
			if err := end.Record(stream); err != nil {
				return 0, err
			}
			if err := end.Synchronize(); err != nil {
				return 0, err
			}
			ms, err := start.Elapsed(end)
			return time.Duration(ms * float64(time.Millisecond)), err
		}
		one, err := timed(3) // warm-up and first estimate
		if err != nil {
			return err
		}
		n := int(min(10000, max(10, 50*time.Millisecond*3/max(one, time.Microsecond))))
		total, err := timed(n)
		if err != nil {
			return err
		}
		gbps = 2 * float64(size) * float64(n) / total.Seconds() / 1e9
		return nil
	})
	require.Positive(b, gbps)
	return gbps
}
