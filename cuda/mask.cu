// rein's logit-masking kernels: one entry point per logit dtype, each setting
// to -inf, in place, every logit whose token the bitmask does not allow.
//
// Compiled to PTX (target sm_80) by scripts/cuda/build-ptx.sh; the PTX is
// committed as mask.ptx and embedded by the Go package. Edit this file, then
// run the script: a test fails while the two disagree.
//
// Layout (the same as rein's mask.Bitmask and XGrammar's): bitmask row k is
// bitmask[k*bitmaskStride : k*bitmaskStride + ceil(vocabSize/32)], and bit j
// of word i allows token 32*i+j. Bits at or past vocabSize are ignored, and
// columns at or past vocabSize (the padding of a wider logit row) are always
// set to -inf.
//
// Work split: a warp owns a span of 32 consecutive bitmask words (1,024
// columns) of one row. Each lane loads one whole word; a span whose 32 words
// all allow every token is skipped without touching its logits. Otherwise the
// warp walks the span in 16-byte vectors (4 float32 or 8 16-bit logits), lane
// l taking vectors l, l+32, l+64, ..., so every store instruction of the warp
// covers 512 contiguous bytes. A lane gets the bits of its vector from the
// word's owner with a shuffle: a vector whose tokens are all allowed is
// skipped, one whose tokens are all disallowed is stored as -inf without a
// load, and a mixed one is loaded, merged and stored. Rows whose start is not
// 16-byte aligned, and the last partial vector of a row, take a scalar path
// that writes only the disallowed logits.
//
// Only bit patterns are moved, never arithmetic: allowed logits keep their
// exact bits (NaN payloads included), and -inf is 0xFF800000 (float32),
// 0xFC00 (float16) or 0xFF80 (bfloat16).
//
// Every parameter is 64 bits wide, so the Go side passes each in one 8-byte
// slot.

typedef unsigned int u32;
typedef long long i64;

#define FULL_WARP 0xffffffffu

// Merges -inf into the disallowed elements of the 32-bit lane j of a 16-byte
// vector. bits holds the vector's allow bits, one per element, element 0 in
// bit 0. EB is the element size in bytes; neg holds -inf replicated over 32
// bits.
template <int EB>
__device__ __forceinline__ u32 merge(u32 v, u32 bits, int j, u32 neg)
{
    u32 sel;
    if (EB == 4) {
        sel = ((bits >> j) & 1u) ? 0u : 0xffffffffu;
    } else {
        sel = (((bits >> (2 * j)) & 1u) ? 0u : 0x0000ffffu) |
              (((bits >> (2 * j + 1)) & 1u) ? 0u : 0xffff0000u);
    }
    return (v & ~sel) | (neg & sel);
}

template <int EB>
__device__ __forceinline__ void maskRows(
    char *logits, i64 logitRows, i64 width, i64 rowStride,
    const u32 *__restrict__ bitmask, i64 bitmaskStride, i64 vocabSize,
    const int *__restrict__ indices, i64 nrows, u32 neg)
{
    const int E = 16 / EB;        // elements per 16-byte vector
    const int V = 32 / E;         // vectors per bitmask word
    const u32 all = (1u << E) - 1u;

    const int lane = threadIdx.x & 31;
    const i64 span = (i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const i64 rowWords = (width + 31) >> 5;
    const i64 first = span * 32;  // first word of this warp's span
    if (first >= rowWords) {
        return;                   // the whole warp leaves together
    }
    const i64 w = first + lane;
    const i64 maskWords = (vocabSize + 31) >> 5;
    const u32 lastBits = (vocabSize & 31) ? ((1u << (vocabSize & 31)) - 1u) : 0xffffffffu;
    const i64 col0 = first * 32;

    for (i64 k = blockIdx.y; k < nrows; k += gridDim.y) {
        const i64 row = indices ? (i64)indices[k] : k;
        if (row < 0 || row >= logitRows) {
            continue;             // the same for the whole block
        }
        u32 word;
        if (w < maskWords) {
            word = bitmask[k * bitmaskStride + w];
            if (w == maskWords - 1) {
                word &= lastBits;
            }
        } else if (w < rowWords) {
            word = 0u;            // padding columns are never allowed
        } else {
            word = 0xffffffffu;   // past the row: nothing to do
        }
        if (__all_sync(FULL_WARP, word == 0xffffffffu)) {
            continue;
        }
        char *rowp = logits + row * rowStride * EB;
        const bool vec = (((unsigned long long)rowp) & 15ull) == 0;
#pragma unroll
        for (int c = 0; c < V; c++) {
            const int q = c * 32 + lane;  // vector index inside the span
            const u32 owner = __shfl_sync(FULL_WARP, word, q / V);
            const u32 bits = (owner >> ((q % V) * E)) & all;
            const i64 col = col0 + (i64)q * E;
            if (bits == all || col >= width) {
                continue;
            }
            if (vec && col + E <= width) {
                uint4 *p = (uint4 *)(rowp + col * EB);
                uint4 v;
                if (bits == 0u) {
                    v = make_uint4(neg, neg, neg, neg);
                } else {
                    v = *p;
                    v.x = merge<EB>(v.x, bits, 0, neg);
                    v.y = merge<EB>(v.y, bits, 1, neg);
                    v.z = merge<EB>(v.z, bits, 2, neg);
                    v.w = merge<EB>(v.w, bits, 3, neg);
                }
                *p = v;
            } else {
#pragma unroll 1
                for (int i = 0; i < E && col + i < width; i++) {
                    if (((bits >> i) & 1u) == 0u) {
                        if (EB == 4) {
                            ((u32 *)rowp)[col + i] = neg;
                        } else {
                            ((unsigned short *)rowp)[col + i] = (unsigned short)neg;
                        }
                    }
                }
            }
        }
    }
}

#define REIN_MASK_ENTRY(name, EB, NEG)                                              \
    extern "C" __global__ void name(                                                \
        char *logits, i64 logitRows, i64 width, i64 rowStride,                      \
        const u32 *__restrict__ bitmask, i64 bitmaskStride, i64 vocabSize,          \
        const int *__restrict__ indices, i64 nrows)                                 \
    {                                                                               \
        maskRows<EB>(logits, logitRows, width, rowStride, bitmask, bitmaskStride,   \
                     vocabSize, indices, nrows, NEG);                               \
    }

REIN_MASK_ENTRY(rein_mask_f32, 4, 0xff800000u)
REIN_MASK_ENTRY(rein_mask_f16, 2, 0xfc00fc00u)
REIN_MASK_ENTRY(rein_mask_bf16, 2, 0xff80ff80u)
