// Occupancy: the driver's exact answer to "how many blocks of this kernel fit on one SM", for kernels whose
// register and shared-memory use differ. No timing; the simulator checks its occupancy model against these.
#include "check.h"
#include "csv_writer.h"
#include "context.h"

namespace hcb {
namespace {

// Few registers: occupancy is bounded by threads and blocks per SM.
__global__ void occ_trivial(float* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }

// 8 KiB of static shared memory: shows sharedSizeBytes adding to the dynamic amount.
__global__ void occ_static_smem(const float* in, float* out) {
  __shared__ float tile[2048];
  for (unsigned i = threadIdx.x; i < 2048; i += blockDim.x) tile[i] = in[blockIdx.x * 2048 + i];
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x * 33) % 2048];
}

// A 128-wide accumulator kept live across the loop: every element is read in every iteration, so the compiler
// must hold them all in registers, which limits threads per SM (and may limit threads per block).
constexpr int kAcc = 128;
__global__ void occ_register_heavy(const float* in, float* out, int iters) {
  float acc[kAcc];
#pragma unroll
  for (int j = 0; j < kAcc; ++j) acc[j] = in[j * blockDim.x + threadIdx.x];
  for (int it = 0; it < iters; ++it) {
    const float x = in[it];
#pragma unroll
    for (int j = 0; j < kAcc; ++j) acc[j] = fmaf(acc[j], x, acc[(j + 1) % kAcc]);
  }
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < kAcc; ++j) sum += acc[j] * static_cast<float>(j + 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

struct Kernel {
  const char* name;
  const void* func;
};

}  // namespace

void run_occupancy(Context& ctx) {
  const Kernel kernels[] = {
      {"trivial", reinterpret_cast<const void*>(occ_trivial)},
      {"static_smem", reinterpret_cast<const void*>(occ_static_smem)},
      {"register_heavy", reinterpret_cast<const void*>(occ_register_heavy)},
  };
  const int thread_counts[] = {64, 128, 256, 512, 1024};
  const int dynamic_smem[] = {0, 16384, 49152};

  for (const Kernel& k : kernels) {
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, k.func));
    // 48 KiB of dynamic memory is within the default limit only when the kernel has no static shared memory;
    // raise the limit so every configuration asked about is one that could actually be launched.
    const int max_dynamic = dynamic_smem[2];
    if (static_cast<size_t>(max_dynamic) + attr.sharedSizeBytes > ctx.prop.sharedMemPerBlockOptin) continue;
    CUDA_CHECK(cudaFuncSetAttribute(k.func, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dynamic));

    for (const int threads : thread_counts) {
      if (threads > attr.maxThreadsPerBlock) continue;  // the register count caps the block size
      for (const int smem : dynamic_smem) {
        int blocks = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k.func, threads, smem));
        const Params params = Params()
                                  .add("kernel", k.name)
                                  .add("threads", threads)
                                  .add("regs", attr.numRegs)
                                  .add("smem", static_cast<long long>(smem + attr.sharedSizeBytes));
        ctx.out->row("occupancy", params, "blocks_per_sm", blocks, "blocks");
      }
    }
  }
}

}  // namespace hcb
