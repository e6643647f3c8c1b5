package cuda

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/mask"
)

// TestKernelEmulated checks the kernel's source on hosts without a GPU: g++
// compiles mask.cu unchanged against testdata/emu's stand-ins for the CUDA
// built-ins (each warp 32 threads in lockstep), and every applyCase small
// enough to emulate, in every dtype, must match the CPU mask (mask.Apply,
// ApplyFloat16, ApplyBFloat16) bit for bit, with
// the launch grid the Go side computes. Grid y is cut to 3 so that each block
// walks several rows, as it does past 65,535 rows on a GPU. The GPU tests
// (cuda tag) check the PTX itself.
func TestKernelEmulated(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs a C++ emulator")
	}
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not installed")
	}
	// Read here so that go test's cache notices a change to any of them.
	for _, f := range []string{"mask.cu", "testdata/emu/shim.h", "testdata/emu/main.cpp"} {
		_, err := os.ReadFile(f)
		require.NoError(t, err)
	}
	emu := filepath.Join(t.TempDir(), "emu")
	out, err := exec.Command(gxx, "-std=c++20", "-O2", "-pthread", "-Wall", "-Wno-unknown-pragmas",
		"-o", emu, filepath.Join("testdata", "emu", "main.cpp")).CombinedOutput()
	require.NoErrorf(t, err, "compiling the emulator:\n%s", out)

	for _, c := range applyCases {
		if c.rows*c.width > 1<<20 {
			continue
		}
		for _, d := range dtypes {
			t.Run(fmt.Sprintf("%s/%v", c.name, d), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(len(c.name)), uint64(d)+10))
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

				logits := Logits{Ptr: 1, DType: d, Rows: c.rows, Width: c.width, RowStride: c.rowStride}
				dev := DeviceBitmask{Ptr: 1, Rows: brows, Stride: maskStride, VocabSize: c.vocab}
				l, err := check(logits, dev, c.indices != nil, len(c.indices))
				require.NoError(t, err)
				gx, gy := l.grid()
				nIndices := int64(-1)
				if c.indices != nil {
					nIndices = int64(len(c.indices))
				}
				var in bytes.Buffer
				for _, v := range []int64{int64(d), int64(c.rows), int64(c.width), int64(l.logits.RowStride),
					int64(c.offset), int64(maskStride), int64(c.vocab), int64(brows), nIndices, int64(l.rows),
					int64(gx), int64(min(gy, 3)), blockThreads} {
					require.NoError(t, binary.Write(&in, binary.LittleEndian, v))
				}
				in.Write(wordBytes(deviceWords(b, maskStride)))
				for _, v := range c.indices {
					require.NoError(t, binary.Write(&in, binary.LittleEndian, int32(v)))
				}
				in.Write(data)
				cmd := exec.Command(emu)
				cmd.Stdin = &in
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				got, err := cmd.Output()
				require.NoErrorf(t, err, "emulator: %s", stderr.String())
				requireSameBits(t, d, stride, want, got)
			})
		}
	}
}
