// Error checking shared by every benchmark: any failed CUDA or cuBLAS call ends the run with one line on stderr
// and exit status 1, so a partial CSV is never mistaken for a complete one by the exit status.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace hcb {

[[noreturn]] inline void fail(const char* call, const char* what) {
  std::fflush(stdout);  // keep whatever CSV was already written ahead of the error in a shared log
  std::fprintf(stderr, "hpcsim-cuda-bench: %s: %s\n", call, what);
  std::exit(1);
}

inline void check_cuda(cudaError_t err, const char* call) {
  if (err != cudaSuccess) fail(call, cudaGetErrorString(err));
}

inline void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) fail(call, cublasGetStatusString(status));
}

}  // namespace hcb

#define CUDA_CHECK(call) ::hcb::check_cuda((call), #call)
#define CUBLAS_CHECK(call) ::hcb::check_cublas((call), #call)
// A launch reports configuration errors only through cudaGetLastError; name the kernel, not that call.
#define CUDA_CHECK_LAUNCH(kernel) ::hcb::check_cuda(cudaGetLastError(), #kernel "<<<>>>")
