// cuBLAS GEMM throughput per dtype: the dense-layer rates the simulator's kernel model is calibrated against.
// Column-major C[m,n] = A[m,k] * B[k,n], no transposes, alpha 1, beta 0, via cublasGemmEx; each shape timed as a
// loop of calls and (graph=1) replayed from a CUDA graph, with the host's cost per call (host_us) beside.
#include "check.h"
#include "device_buffer.h"
#include "fill.h"
#include "timing.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace hcb {
namespace {

struct Shape {
  int m, n, k;
};

struct Dtype {
  const char* name;
  cudaDataType_t storage;     // A, B and C
  cublasComputeType_t compute;
  size_t element_bytes;
};

// fp32 is CUBLAS_COMPUTE_32F under CUBLAS_DEFAULT_MATH, i.e. true fp32 FMA (no TF32); tf32 keeps fp32 storage
// and lets cuBLAS round inputs to TF32 for the tensor cores; fp16/bf16 accumulate in fp32, as training does.
const Dtype kDtypes[] = {
    {"fp32", CUDA_R_32F, CUBLAS_COMPUTE_32F, 4},
    {"tf32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4},
    {"fp16", CUDA_R_16F, CUBLAS_COMPUTE_32F, 2},
    {"bf16", CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2},
};

// Fills with the element type the dtype stores, so half-precision inputs are real fp16/bf16 values.
void fill_matrix(void* data, size_t count, const Dtype& dt, uint32_t seed, cudaStream_t stream) {
  switch (dt.storage) {
    case CUDA_R_16F: fill_uniform(static_cast<__half*>(data), count, seed, stream); break;
    case CUDA_R_16BF: fill_uniform(static_cast<__nv_bfloat16*>(data), count, seed, stream); break;
    default: fill_uniform(static_cast<float*>(data), count, seed, stream); break;
  }
}

}  // namespace

void run_gemm(Context& ctx) {
  // (16384,1024,4096) is a BERT-large FFN GEMM at 16k tokens; (3456,4096,8192) a non-power-of-two M.
  const std::vector<Shape> shapes =
      ctx.quick ? std::vector<Shape>{{4096, 4096, 4096}, {8192, 8192, 8192}}
                : std::vector<Shape>{{4096, 4096, 4096}, {8192, 8192, 8192}, {3456, 4096, 8192},
                                     {16384, 1024, 4096}, {1024, 1024, 1024}};

  // 32 MiB workspace: what cuBLAS recommends on Hopper, so the fastest kernels are eligible.
  constexpr size_t kWorkspaceBytes = size_t{32} << 20;
  DeviceBuffer<unsigned char> workspace(kWorkspaceBytes);
  CUBLAS_CHECK(cublasSetStream(ctx.cublas, ctx.stream));
  CUBLAS_CHECK(cublasSetWorkspace(ctx.cublas, workspace.get(), kWorkspaceBytes));
  CUBLAS_CHECK(cublasSetMathMode(ctx.cublas, CUBLAS_DEFAULT_MATH));  // TF32 only where the compute type asks

  const float alpha = 1.0f;
  const float beta = 0.0f;
  for (const Dtype& dt : kDtypes) {
    for (const Shape& s : shapes) {
      // Slow fp32 (no tensor cores) is measured on the smaller shapes only, to keep the run short.
      if (dt.storage == CUDA_R_32F && dt.compute == CUBLAS_COMPUTE_32F && std::max({s.m, s.n, s.k}) > 4096) continue;

      const size_t a_count = static_cast<size_t>(s.m) * s.k;
      const size_t b_count = static_cast<size_t>(s.k) * s.n;
      const size_t c_count = static_cast<size_t>(s.m) * s.n;
      DeviceBuffer<unsigned char> a(a_count * dt.element_bytes);
      DeviceBuffer<unsigned char> b(b_count * dt.element_bytes);
      DeviceBuffer<unsigned char> c(c_count * dt.element_bytes);
      fill_matrix(a.get(), a_count, dt, 1, ctx.stream);
      fill_matrix(b.get(), b_count, dt, 2, ctx.stream);
      CUDA_CHECK(cudaMemsetAsync(c.get(), 0, c.bytes(), ctx.stream));

      auto call = [&] {
        CUBLAS_CHECK(cublasGemmEx(ctx.cublas, CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, &alpha, a.get(), dt.storage,
                                  s.m, b.get(), dt.storage, s.k, &beta, c.get(), dt.storage, s.m, dt.compute,
                                  CUBLAS_GEMM_DEFAULT));
      };
      const double us = time_op_us(ctx, call);
      // The same call replayed from a CUDA graph: the kernel's GPU time where the loop above may read the host's
      // cost per cuBLAS call instead (small shapes).
      const double graph_us = time_graph_us(ctx, graph_calls(us), call);
      // The host's own cost per call (cuBLAS's heuristics lookup and launch): calls submitted right after the
      // stream drained, timed on the host clock; too few to fill the launch queue, so the host never waits.
      std::vector<double> host_trials;
      for (int t = 0; t < ctx.trials; ++t) {
        constexpr int kHostCalls = 64;
        CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
        const auto t0 = std::chrono::steady_clock::now();
        for (int c = 0; c < kHostCalls; ++c) call();
        const auto t1 = std::chrono::steady_clock::now();
        host_trials.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kHostCalls);
      }
      CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
      const double host_us = median(host_trials);

      const double flops = 2.0 * s.m * s.n * s.k;
      const Params params = Params().add("m", s.m).add("n", s.n).add("k", s.k).add("dtype", dt.name);
      ctx.out->row("gemm", params, "time_us", us, "us");
      ctx.out->row("gemm", params, "tflops", flops / (us * 1e-6) / 1e12, "TFLOP/s");
      ctx.out->row("gemm", params, "host_us", host_us, "us");
      const Params graph_params = Params(params).add("graph", 1);
      ctx.out->row("gemm", graph_params, "time_us", graph_us, "us");
      ctx.out->row("gemm", graph_params, "tflops", flops / (graph_us * 1e-6) / 1e12, "TFLOP/s");
    }
  }
}

}  // namespace hcb
