// Host stand-ins for the CUDA built-ins mask.cu uses, so that g++ compiles
// the kernel source unchanged and runs it on the CPU, for emu_test.go. The 32
// lanes of a warp are coroutines (ucontext) run in turn, each up to its next
// shuffle or vote: there every lane posts its value and yields, and reads the
// others' once all have posted, as a warp's lanes meet. It models what
// mask.cu needs and nothing more: full warps that leave together, 1-D
// blocks, no shared memory.
#include <cstdint>
#include <ucontext.h>

#define __global__
#define __device__
#define __forceinline__ inline

struct emuDim {
    unsigned x, y, z;
};
struct uint4 {
    unsigned x, y, z, w;
};
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }

static emuDim threadIdx, blockIdx, blockDim, gridDim;

// The warp being run: the scheduler's context, the lanes' and the values
// they post.
static ucontext_t emuScheduler, emuLanes[32];
static unsigned emuPosted[32];

static inline void emuYield()
{
    swapcontext(&emuLanes[threadIdx.x & 31], &emuScheduler);
}

static inline unsigned __shfl_sync(unsigned, unsigned v, int src)
{
    emuPosted[threadIdx.x & 31] = v;
    emuYield(); // every lane has posted
    unsigned got = emuPosted[src & 31];
    emuYield(); // every lane has read
    return got;
}

static inline bool __all_sync(unsigned, bool p)
{
    emuPosted[threadIdx.x & 31] = p;
    emuYield();
    bool all = true;
    for (int i = 0; i < 32; i++) {
        all = all && emuPosted[i];
    }
    emuYield();
    return all;
}
