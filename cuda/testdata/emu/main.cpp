// Runs one launch of mask.cu's kernels on the CPU (see shim.h), for
// emu_test.go. Reads from stdin 13 little-endian int64 values -- dtype (0
// float32, 1 float16, 2 bfloat16), logit rows, width, row stride, offset of
// the logits past a 16-byte boundary (elements), bitmask stride, vocabulary
// size, bitmask rows, number of indices (-1: none), rows to apply, grid x,
// grid y, block x -- then the bitmask words, the int32 indices and the
// logits; writes the logits after the launch to stdout.
#include "shim.h"

#include <algorithm>

#include "../../mask.cu"

#include <cstdio>
#include <cstdlib>
#include <vector>

typedef void (*kernel)(char *, i64, i64, i64, const u32 *, i64, i64, const int *, i64);

static void readAll(void *p, size_t n)
{
    if (n != 0 && fread(p, 1, n, stdin) != n) {
        fprintf(stderr, "emu: short input\n");
        exit(2);
    }
}

int main()
{
    i64 h[13];
    readAll(h, sizeof h);
    const i64 dtype = h[0], logitRows = h[1], width = h[2], rowStride = h[3], offset = h[4];
    const i64 bitmaskStride = h[5], vocabSize = h[6], bitmaskRows = h[7], nIndices = h[8];
    const i64 nrows = h[9], gridX = h[10], gridY = h[11], blockX = h[12];
    const kernel kernels[] = {rein_mask_f32, rein_mask_f16, rein_mask_bf16};
    if (dtype < 0 || dtype > 2 || blockX <= 0 || blockX % 32 != 0) {
        fprintf(stderr, "emu: dtype %lld, block %lld\n", dtype, blockX);
        return 2;
    }
    const i64 eb = dtype == 0 ? 4 : 2;

    std::vector<u32> bitmask(bitmaskRows * bitmaskStride);
    readAll(bitmask.data(), bitmask.size() * 4);
    std::vector<int> indices(nIndices > 0 ? nIndices : 1);
    readAll(indices.data(), nIndices > 0 ? nIndices * 4 : 0);
    const size_t bytes = logitRows * rowStride * eb;
    std::vector<char> buf(bytes + offset * eb + 16);
    char *base = buf.data();
    while ((uintptr_t)base & 15) {
        base++;
    }
    char *logits = base + offset * eb;
    readAll(logits, bytes);

    blockDim = {(unsigned)blockX, 1, 1};
    gridDim = {(unsigned)gridX, (unsigned)gridY, 1};
    static kernel run;
    static char *runLogits;
    static const u32 *runBitmask;
    static const int *runIndices;
    static i64 runArgs[6];
    static bool finished[32];
    run = kernels[dtype];
    runLogits = logits;
    runBitmask = bitmask.data();
    runIndices = nIndices >= 0 ? indices.data() : nullptr;
    i64 args[6] = {logitRows, width, rowStride, bitmaskStride, vocabSize, nrows};
    std::copy(args, args + 6, runArgs);
    std::vector<char> stacks(32 * 65536);
    for (unsigned by = 0; by < gridY; by++) {
        for (unsigned bx = 0; bx < gridX; bx++) {
            for (unsigned w = 0; w < blockDim.x / 32; w++) {
                blockIdx = {bx, by, 0};
                for (int l = 0; l < 32; l++) {
                    getcontext(&emuLanes[l]);
                    emuLanes[l].uc_stack.ss_sp = &stacks[l * 65536];
                    emuLanes[l].uc_stack.ss_size = 65536;
                    emuLanes[l].uc_link = &emuScheduler;
                    makecontext(&emuLanes[l], (void (*)())+[] {
                        run(runLogits, runArgs[0], runArgs[1], runArgs[2], runBitmask, runArgs[3], runArgs[4],
                            runIndices, runArgs[5]);
                        finished[threadIdx.x & 31] = true;
                    }, 0);
                    finished[l] = false;
                }
                // Round robin: each lane runs to its next meeting point (or
                // its end), so no lane passes one before all have reached it.
                for (int left = 32; left > 0;) {
                    left = 0;
                    for (unsigned l = 0; l < 32; l++) {
                        if (finished[l]) {
                            continue;
                        }
                        threadIdx = {w * 32 + l, 0, 0};
                        swapcontext(&emuScheduler, &emuLanes[l]);
                        left += !finished[l];
                    }
                }
            }
        }
    }
    fwrite(logits, 1, bytes, stdout);
    return 0;
}
