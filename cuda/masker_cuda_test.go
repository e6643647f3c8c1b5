//go:build cuda

package cuda

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/cu"

	"github.com/reinlm/rein/mask"
)

// The tests run on device 0's primary context. gorgonia.org/cu's package
// init has already ended the process when the host has no GPU.
var (
	gpuCtx    cu.CUContext
	gpuMasker *Masker
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dev, err := cu.GetDevice(0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cuda tests: device 0:", err)
		return 1
	}
	if gpuCtx, err = dev.RetainPrimaryCtx(); err != nil {
		fmt.Fprintln(os.Stderr, "cuda tests: primary context:", err)
		return 1
	}
	defer func() { _ = dev.ReleasePrimaryCtx() }()
	if gpuMasker, err = NewMasker(ContextOf(gpuCtx)); err != nil {
		fmt.Fprintln(os.Stderr, "cuda tests: NewMasker:", err)
		return 1
	}
	defer func() { _ = gpuMasker.Close() }()
	return m.Run()
}

// gpu runs f with the test context current.
func gpu(t testing.TB, f func() error) {
	t.Helper()
	require.NoError(t, gpuMasker.in(f))
}

// upload copies data to new device memory, freed when the test ends.
func upload(t testing.TB, data []byte) cu.DevicePtr {
	t.Helper()
	var p cu.DevicePtr
	gpu(t, func() (err error) {
		if p, err = cu.MemAlloc(int64(max(len(data), 1))); err != nil {
			return err
		}
		if len(data) == 0 {
			return nil
		}
		return cu.MemcpyHtoD(p, unsafe.Pointer(&data[0]), int64(len(data)))
	})
	t.Cleanup(func() { gpu(t, func() error { return cu.MemFree(p) }) })
	return p
}

func download(t testing.TB, p cu.DevicePtr, n int) []byte {
	t.Helper()
	out := make([]byte, n)
	if n > 0 {
		gpu(t, func() error { return cu.MemcpyDtoH(unsafe.Pointer(&out[0]), p, int64(n)) })
	}
	return out
}

func syncStream(t testing.TB, s Stream) {
	t.Helper()
	gpu(t, func() error { return s.handle().Synchronize() })
}

// TestApplyMatchesCPU checks Apply against mask.Apply bit for bit, for every
// dtype, shape and mask pattern in applyCases.
func TestApplyMatchesCPU(t *testing.T) {
	for _, c := range applyCases {
		for _, d := range dtypes {
			t.Run(fmt.Sprintf("%s/%v", c.name, d), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(len(c.name)), uint64(d)))
				stride := max(c.rowStride, c.width)
				brows := c.rows
				if c.indices != nil {
					brows = len(c.indices)
				}
				b := mask.NewBitmask(brows, c.vocab)
				fillMask(r, b, c.pattern)
				maskStride := b.Stride + c.padWords

				data := randomLogits(r, d, c.rows*stride)
				want := reference(t, d, data, c.rows, c.width, stride, b, c.indices)

				pad := make([]byte, c.offset*d.Size())
				base := upload(t, append(pad, data...))
				logits := Logits{Ptr: DevicePtr(base) + DevicePtr(len(pad)), DType: d, Rows: c.rows, Width: c.width, RowStride: c.rowStride}
				dev := DeviceBitmask{Ptr: DevicePtr(upload(t, wordBytes(deviceWords(b, maskStride)))), Rows: brows, Stride: maskStride, VocabSize: c.vocab}
				var idx DevicePtr
				if c.indices != nil {
					i32 := make([]uint32, len(c.indices))
					for k, v := range c.indices {
						i32[k] = uint32(v)
					}
					idx = DevicePtr(upload(t, wordBytes(i32)))
				}
				require.NoError(t, gpuMasker.Apply(0, logits, dev, idx, len(c.indices)))
				syncStream(t, 0)
				got := download(t, base, len(pad)+len(data))[len(pad):]
				requireSameBits(t, d, stride, want, got)
			})
		}
	}
}

// TestApplyBitmaskMatchesCPU checks the host-bitmask path, on a stream of
// its own, including growth of the masker's device copy.
func TestApplyBitmaskMatchesCPU(t *testing.T) {
	var s cu.Stream
	gpu(t, func() (err error) { s, err = cu.MakeStream(cu.NonBlocking); return err })
	t.Cleanup(func() { gpu(t, s.Destroy) })
	stream := StreamOf(s)
	for _, c := range applyCases {
		if c.padWords != 0 || c.offset != 0 {
			continue // the host bitmask is compact; the offset is Apply's test
		}
		d := dtypes[len(c.name)%len(dtypes)]
		t.Run(fmt.Sprintf("%s/%v", c.name, d), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(c.name)), 99))
			stride := max(c.rowStride, c.width)
			brows := c.rows + 1 // more bitmask rows than needed
			b := mask.NewBitmask(brows, c.vocab)
			fillMask(r, b, c.pattern)
			data := randomLogits(r, d, c.rows*stride)
			want := reference(t, d, data, c.rows, c.width, stride, b, c.indices)
			base := upload(t, data)
			logits := Logits{Ptr: DevicePtr(base), DType: d, Rows: c.rows, Width: c.width, RowStride: c.rowStride}
			require.NoError(t, gpuMasker.ApplyBitmask(stream, logits, b, c.indices))
			clear(b.Words) // the host memory is free once ApplyBitmask returns
			syncStream(t, stream)
			requireSameBits(t, d, stride, want, download(t, base, len(data)))
		})
	}
}

// TestApplyBitmaskConcurrentStreams runs ApplyBitmask from several goroutines,
// each on a stream of its own, all sharing the masker's device copy of the
// bitmask; the bitmasks grow from round to round.
func TestApplyBitmaskConcurrentStreams(t *testing.T) {
	const workers, rounds, rows = 4, 8, 3
	type round struct {
		b          *mask.Bitmask
		data, want []byte
	}
	work := make([][]round, workers)
	bufs := make([]cu.DevicePtr, workers)
	for w := range work {
		r := rand.New(rand.NewPCG(uint64(w), 7))
		for i := 0; i < rounds; i++ {
			vocab := 1000 << i
			b := mask.NewBitmask(rows, vocab)
			fillMask(r, b, "random")
			data := randomLogits(r, Float32, rows*vocab)
			work[w] = append(work[w], round{b, data, reference(t, Float32, data, rows, vocab, vocab, b, nil)})
		}
		bufs[w] = upload(t, make([]byte, len(work[w][rounds-1].data)))
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range work {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = gpuMasker.in(func() error {
				s, err := cu.MakeStream(cu.NonBlocking)
				if err != nil {
					return err
				}
				defer func() { _ = s.Destroy() }()
				for i, rd := range work[w] {
					n := int64(len(rd.data))
					if err := cu.MemcpyHtoD(bufs[w], unsafe.Pointer(&rd.data[0]), n); err != nil {
						return err
					}
					logits := Logits{Ptr: DevicePtr(bufs[w]), DType: Float32, Rows: rows, Width: rd.b.VocabSize}
					if err := gpuMasker.ApplyBitmask(StreamOf(s), logits, rd.b, nil); err != nil {
						return err
					}
					got := make([]byte, n)
					if err := cu.MemcpyDtoHAsync(unsafe.Pointer(&got[0]), bufs[w], n, s); err != nil {
						return err
					}
					if err := s.Synchronize(); err != nil {
						return err
					}
					if string(got) != string(rd.want) {
						return fmt.Errorf("worker %d round %d: logits differ from mask.Apply", w, i)
					}
				}
				return nil
			})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		assert.NoError(t, err)
	}
}

func TestApplyChecksBeforeLaunch(t *testing.T) {
	logits := Logits{Ptr: 0x1000, DType: Float32, Rows: 2, Width: 100}
	bitmask := DeviceBitmask{Ptr: 0x2000, Rows: 2, VocabSize: 101}
	assert.ErrorIs(t, gpuMasker.Apply(0, logits, bitmask, 0, 0), mask.ErrShape)
	bitmask.VocabSize = 100
	logits.DType = 9
	assert.ErrorIs(t, gpuMasker.Apply(0, logits, bitmask, 0, 0), ErrArgument)
	logits.DType = Float32
	logits.Ptr = 0
	assert.ErrorIs(t, gpuMasker.Apply(0, logits, bitmask, 0, 0), ErrArgument)
	assert.ErrorIs(t, gpuMasker.ApplyBitmask(0, logits, mask.NewBitmask(2, 100), []int{2}), mask.ErrShape)
	assert.ErrorIs(t, gpuMasker.ApplyBitmask(0, logits, nil, nil), ErrArgument)
	var closed *Masker
	assert.ErrorIs(t, closed.Apply(0, logits, bitmask, 0, 0), ErrArgument)
}

// TestContexts checks that the masker makes its own context current for a
// call and restores the caller's, and that NewMasker(0) needs a current one.
func TestContexts(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cur, err := cu.CurrentContext()
	require.NoError(t, err)
	if cur != (cu.CUContext{}) {
		t.Skip("this thread already has a current context")
	}
	_, err = NewMasker(0)
	assert.ErrorIs(t, err, ErrArgument, "no current context")

	data := randomLogits(rand.New(rand.NewPCG(1, 2)), Float32, 64)
	base := upload(t, data)
	b := mask.NewBitmask(1, 64)
	logits := Logits{Ptr: DevicePtr(base), DType: Float32, Rows: 1, Width: 64}
	require.NoError(t, gpuMasker.ApplyBitmask(0, logits, b, nil))
	cur, err = cu.CurrentContext()
	require.NoError(t, err)
	assert.Equal(t, cu.CUContext{}, cur, "the caller's (empty) context is restored")

	require.NoError(t, cu.PushCurrentCtx(gpuCtx))
	defer func() { _, _ = cu.PopCurrentCtx() }()
	m, err := NewMasker(0)
	require.NoError(t, err, "the current context")
	require.NoError(t, m.ApplyBitmask(0, logits, b, nil))
	require.NoError(t, cu.Synchronize())
	require.NoError(t, m.Close())
	assert.NoError(t, m.Close(), "closing twice")
	assert.ErrorIs(t, m.ApplyBitmask(0, logits, b, nil), ErrArgument, "closed")
	cur, err = cu.CurrentContext()
	require.NoError(t, err)
	assert.Equal(t, gpuCtx, cur)
}

func TestStreamAndContextHandles(t *testing.T) {
	var s cu.Stream
	gpu(t, func() (err error) { s, err = cu.MakeStream(cu.NonBlocking); return err })
	defer gpu(t, s.Destroy)
	assert.NotZero(t, StreamOf(s))
	assert.Equal(t, s, StreamOf(s).handle())
	assert.Equal(t, cu.Stream{}, Stream(0).handle())
	assert.Equal(t, gpuCtx, ContextOf(gpuCtx).handle())
	assert.Equal(t, fmt.Sprintf("0x%x", uintptr(ContextOf(gpuCtx))), gpuCtx.String())
}

func TestEmbeddedPTX(t *testing.T) {
	file, err := os.ReadFile("mask.ptx")
	require.NoError(t, err)
	assert.Equal(t, string(file), ptx)
}
