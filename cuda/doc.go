// Package cuda applies rein's token bitmasks to logits on an NVIDIA GPU, in
// place, on the engine's own device pointers and stream.
//
// Built with the cuda tag it launches a kernel through gorgonia.org/cu.
// Without the tag the same API returns ErrUnavailable, so one engine binary
// can serve hosts with and without a GPU. gorgonia.org/cu exits the process at
// start-up when no GPU is present: build with the tag for GPU hosts only.
//
// # Use
//
// An engine creates one Masker per CUDA context, once (NewMasker loads the
// kernels, and the driver compiles them for the device), and at every
// decoding step calls Apply with its logits and a bitmask already in device
// memory, or ApplyBitmask with the host *mask.Bitmask that mask.Matcher
// filled. Both enqueue the work on the engine's stream and return; nothing is
// copied besides ApplyBitmask's upload of the bitmask. Handles are plain
// integers (DevicePtr, Stream, Context), so the API is the same with and
// without the tag; a gorgonia.org/cu DevicePtr converts directly, and, with
// the tag, StreamOf and ContextOf convert a cu.Stream and a cu.CUContext.
//
// # Semantics
//
// The CPU mask.Apply (mask.ApplyFloat16, mask.ApplyBFloat16 for 16-bit
// logits) is the reference, and the results are the same bit for bit: a logit whose token the bitmask does not allow becomes -inf (float32
// 0xFF800000, float16 0xFC00, bfloat16 0xFF80) and every other logit keeps its
// exact bits. Logits are a batch of rows with a row stride; a row may be wider
// than the bitmask's vocabulary (padded vocabularies), and the extra columns
// are always set to -inf. With row indices only the listed rows are masked,
// row indices[k] by bitmask row k; the indices must be distinct. The bitmask
// has mask.Bitmask's layout, which is XGrammar's.
//
// # Kernel
//
// The kernel is CUDA C in mask.cu, compiled to PTX for sm_80 by
// scripts/cuda/build-ptx.sh (nvcc from Debian's nvidia-cuda-toolkit) and
// committed as mask.ptx, which the tagged build embeds; the driver compiles
// the PTX for Ampere, Hopper and newer GPUs. A warp covers 32 bitmask words
// (1,024 columns) of a row: each lane loads one whole word, a warp whose words
// all allow every token skips its logits, and the warp then walks its columns
// in 16-byte vectors, so that its loads and stores are contiguous; a vector
// that allows no token is stored without being loaded. A test keeps mask.ptx
// in step with mask.cu, and another runs mask.cu itself on the CPU (through
// the stand-ins in testdata/emu) against the CPU masks, so hosts without a GPU
// check the kernel's logic; the tests with the tag check the PTX on a GPU.
package cuda
