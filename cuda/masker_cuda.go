//go:build cuda

package cuda

import (
	_ "embed"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/reinlm/rein/mask"
)

//go:embed mask.ptx
var ptx string

var kernelNames = [...]string{Float32: "rein_mask_f32", Float16: "rein_mask_f16", BFloat16: "rein_mask_bf16"}

// cu.Stream and cu.CUContext each hold one C pointer, so a raw handle is
// converted to and from them in place. These fail to compile if that changes.
var (
	_ [unsafe.Sizeof(cu.Stream{}) - unsafe.Sizeof(Stream(0))]struct{}
	_ [unsafe.Sizeof(Stream(0)) - unsafe.Sizeof(cu.Stream{})]struct{}
	_ [unsafe.Sizeof(cu.CUContext{}) - unsafe.Sizeof(Context(0))]struct{}
	_ [unsafe.Sizeof(Context(0)) - unsafe.Sizeof(cu.CUContext{})]struct{}
)

// StreamOf returns the raw handle of a gorgonia.org/cu stream. It exists only
// with the cuda tag.
func StreamOf(s cu.Stream) Stream { return *(*Stream)(unsafe.Pointer(&s)) }

// ContextOf returns the raw handle of a gorgonia.org/cu context (for a
// *cu.Ctx, pass its CUContext). It exists only with the cuda tag.
func ContextOf(c cu.CUContext) Context { return *(*Context)(unsafe.Pointer(&c)) }

func (s Stream) handle() cu.Stream     { return *(*cu.Stream)(unsafe.Pointer(&s)) }
func (c Context) handle() cu.CUContext { return *(*cu.CUContext)(unsafe.Pointer(&c)) }

// Masker applies bitmasks to logits on the GPU. It holds rein's kernels,
// loaded into one CUDA context: create one per context and keep it. A Masker
// is safe for concurrent use; each call makes its context current on the
// calling thread for its duration (and restores the one that was current), so
// the caller need not.
type Masker struct {
	ctx    cu.CUContext
	mod    cu.Module
	fns    [len(kernelNames)]cu.Function
	closed atomic.Bool

	mu    sync.Mutex   // guards the device copy that ApplyBitmask fills
	buf   cu.DevicePtr // bitmask words, then int32 row indices
	size  int64        // bytes at buf
	idx   []int32      // host staging for the row indices
	ready cu.Event     // recorded after the last launch that read buf
}

// NewMasker loads rein's kernels into the context ctx (0: the context current
// on the calling thread). The device must have compute capability 8.0 or newer
// (Ampere, Hopper and later); an older one gives ErrUnavailable. The PTX is
// compiled for the device by the driver, once.
func NewMasker(ctx Context) (*Masker, error) {
	m := &Masker{ctx: ctx.handle()}
	if ctx == 0 {
		runtime.LockOSThread()
		cur, err := cu.CurrentContext()
		runtime.UnlockOSThread()
		if err != nil {
			return nil, fmt.Errorf("cuda: current context: %w", err)
		}
		if cur == (cu.CUContext{}) {
			return nil, fmt.Errorf("%w: no CUDA context is current on the calling thread", ErrArgument)
		}
		m.ctx = cur
	}
	err := m.in(func() error {
		dev, err := cu.CurrentDevice()
		if err != nil {
			return fmt.Errorf("cuda: context device: %w", err)
		}
		major, err := dev.Attribute(cu.ComputeCapabilityMajor)
		if err != nil {
			return fmt.Errorf("cuda: compute capability: %w", err)
		}
		if major < 8 {
			minor, _ := dev.Attribute(cu.ComputeCapabilityMinor)
			return fmt.Errorf("%w: compute capability %d.%d, the kernel needs 8.0 or newer", ErrUnavailable, major, minor)
		}
		if m.mod, err = cu.LoadData(ptx); err != nil {
			return fmt.Errorf("cuda: loading the kernel module: %w", err)
		}
		for i, name := range kernelNames {
			if m.fns[i], err = m.mod.Function(name); err != nil {
				return errors.Join(fmt.Errorf("cuda: kernel %s: %w", name, err), m.mod.Unload())
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// in runs f with the masker's context current on the calling thread, and the
// goroutine locked to that thread.
func (m *Masker) in(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cur, err := cu.CurrentContext()
	if err != nil {
		return fmt.Errorf("cuda: current context: %w", err)
	}
	if cur == m.ctx {
		return f()
	}
	if err := cu.PushCurrentCtx(m.ctx); err != nil {
		return fmt.Errorf("cuda: making the masker's context current: %w", err)
	}
	err = f()
	if _, perr := cu.PopCurrentCtx(); perr != nil {
		err = errors.Join(err, fmt.Errorf("cuda: restoring the current context: %w", perr))
	}
	return err
}

var errClosed = fmt.Errorf("%w: the masker is closed", ErrArgument)

// Apply sets to -inf, in place and asynchronously on stream, every logit whose
// token the bitmask does not allow, with mask.Apply's semantics: with indices
// 0, logits row r is masked by bitmask row r (Logits.Rows may not exceed the
// bitmask's rows); otherwise indices points to nIndices distinct int32 row
// numbers and logits row indices[k] is masked by bitmask row k, the other rows
// left untouched. Columns at or past the bitmask's VocabSize are set to -inf.
//
// Apply checks the shapes and returns mask.ErrShape or ErrArgument before
// launching anything. It cannot read the indices: one outside the batch is
// skipped. Faults while the kernel runs surface, as for any kernel, at the
// stream's next synchronization.
func (m *Masker) Apply(stream Stream, logits Logits, bitmask DeviceBitmask, indices DevicePtr, nIndices int) error {
	if m == nil || m.closed.Load() {
		return errClosed
	}
	l, err := check(logits, bitmask, indices != 0, nIndices)
	if err != nil {
		return err
	}
	l.logits.Ptr, l.bitmask.Ptr = logits.Ptr, bitmask.Ptr
	if err := l.checkPointers(); err != nil {
		return err
	}
	if l.rows == 0 {
		return nil
	}
	return m.in(func() error { return m.launch(stream.handle(), l, indices) })
}

// launch enqueues the kernel; the masker's context is current.
func (m *Masker) launch(stream cu.Stream, l launch, indices DevicePtr) error {
	args := [...]uint64{
		uint64(l.logits.Ptr), uint64(l.logits.Rows), uint64(l.logits.Width), uint64(l.logits.RowStride),
		uint64(l.bitmask.Ptr), uint64(l.bitmask.Stride), uint64(l.bitmask.VocabSize),
		uint64(indices), uint64(l.rows),
	}
	var params [len(args)]unsafe.Pointer
	for i := range args {
		params[i] = unsafe.Pointer(&args[i])
	}
	gridX, gridY := l.grid()
	err := m.fns[l.logits.DType].Launch(gridX, gridY, 1, blockThreads, 1, 1, 0, stream, params[:])
	if err != nil {
		return fmt.Errorf("cuda: launching %s: %w", kernelNames[l.logits.DType], err)
	}
	return nil
}

// ApplyBitmask is Apply for a bitmask in host memory, as mask.Matcher fills
// it: it copies the rows it needs (and indices, when not nil) to device memory
// that the masker owns, then launches, all on stream. It checks what mask.Apply
// checks, indices included. The host memory may be reused as soon as it
// returns. Calls on different streams are ordered by the masker, so that one
// never overwrites the device copy another's kernel still reads.
func (m *Masker) ApplyBitmask(stream Stream, logits Logits, b *mask.Bitmask, indices []int) error {
	if m == nil || m.closed.Load() {
		return errClosed
	}
	if err := checkHost(logits, b, indices); err != nil {
		return err
	}
	dev := DeviceBitmask{Rows: b.Rows, Stride: b.Stride, VocabSize: b.VocabSize}
	l, err := check(logits, dev, indices != nil, len(indices))
	if err != nil {
		return err
	}
	if l.rows == 0 {
		return nil
	}
	if logits.Ptr == 0 {
		return fmt.Errorf("%w: null logits pointer", ErrArgument)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.in(func() error {
		s := stream.handle()
		words := int64(l.rows) * int64(b.Stride) * 4
		if err := m.reserve(words + int64(len(indices))*4); err != nil {
			return err
		}
		if err := s.Wait(m.ready, 0); err != nil {
			return fmt.Errorf("cuda: ordering after the previous launch: %w", err)
		}
		if err := cu.MemcpyHtoDAsync(m.buf, unsafe.Pointer(&b.Words[0]), words, s); err != nil {
			return fmt.Errorf("cuda: copying the bitmask: %w", err)
		}
		l.bitmask.Ptr = DevicePtr(m.buf)
		var idx DevicePtr
		if len(indices) > 0 {
			m.idx = m.idx[:0]
			for _, r := range indices {
				m.idx = append(m.idx, int32(r))
			}
			at := m.buf + cu.DevicePtr(words)
			if err := cu.MemcpyHtoDAsync(at, unsafe.Pointer(&m.idx[0]), int64(len(m.idx))*4, s); err != nil {
				return fmt.Errorf("cuda: copying the row indices: %w", err)
			}
			idx = DevicePtr(at)
		}
		if err := m.launch(s, l, idx); err != nil {
			return err
		}
		if err := m.ready.Record(s); err != nil {
			return fmt.Errorf("cuda: recording the launch: %w", err)
		}
		return nil
	})
}

// reserve makes buf hold at least n bytes; m.mu is held and the context is
// current.
func (m *Masker) reserve(n int64) error {
	if m.ready == (cu.Event{}) {
		ev, err := cu.MakeEvent(cu.DisableTiming)
		if err != nil {
			return fmt.Errorf("cuda: creating an event: %w", err)
		}
		m.ready = ev
	}
	if n <= m.size {
		return nil
	}
	n = max(n, 2*m.size, 64<<10)
	if m.buf != 0 {
		if err := m.ready.Synchronize(); err != nil {
			return fmt.Errorf("cuda: waiting for the previous launch: %w", err)
		}
		if err := cu.MemFree(m.buf); err != nil {
			return fmt.Errorf("cuda: freeing the bitmask copy: %w", err)
		}
		m.buf, m.size = 0, 0
	}
	buf, err := cu.MemAlloc(n)
	if err != nil {
		return fmt.Errorf("cuda: allocating %d bytes for the bitmask copy: %w", n, err)
	}
	m.buf, m.size = buf, n
	return nil
}

// Close waits for the masker's last ApplyBitmask launch, frees its device
// memory and unloads its kernels. Launches enqueued by Apply must have
// finished, and no call may run concurrently with Close. Closing twice is a
// no-op.
func (m *Masker) Close() error {
	if m == nil {
		return errClosed
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed.Swap(true) {
		return nil
	}
	return m.in(func() error {
		var errs []error
		if m.ready != (cu.Event{}) {
			errs = append(errs, m.ready.Synchronize(), cu.DestroyEvent(&m.ready))
		}
		if m.buf != 0 {
			errs = append(errs, cu.MemFree(m.buf))
			m.buf, m.size = 0, 0
		}
		errs = append(errs, m.mod.Unload())
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("cuda: closing the masker: %w", err)
		}
		return nil
	})
}
