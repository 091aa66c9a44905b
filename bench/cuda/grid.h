// Launch-shape helpers shared by the benchmarks that must fill the GPU (or one SM) with resident work.
#pragma once

#include "check.h"
#include "context.h"

namespace hcb {

// Blocks of `threads` that fit on one SM at once, as the driver computes it.
template <class Kernel>
int blocks_per_sm(Kernel kernel, int threads, size_t dynamic_smem = 0) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_smem));
  return blocks;
}

// One full wave: every SM holds as many blocks as it can, so a grid-stride kernel has no tail.
template <class Kernel>
int resident_grid(const Context& ctx, Kernel kernel, int threads, size_t dynamic_smem = 0) {
  return blocks_per_sm(kernel, threads, dynamic_smem) * ctx.prop.multiProcessorCount;
}

// A non-blocking stream owned for one benchmark (overlap needs two besides ctx.stream).
class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// A device-side cycle count read back to the host: the SM clock (clock64) that latency benchmarks report in.
class DeviceCycles {
 public:
  explicit DeviceCycles(size_t count) : count_(count) {
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(long long)));
  }
  ~DeviceCycles() { cudaFree(ptr_); }
  DeviceCycles(const DeviceCycles&) = delete;
  DeviceCycles& operator=(const DeviceCycles&) = delete;
  long long* get() const { return ptr_; }
  size_t count() const { return count_; }

 private:
  long long* ptr_ = nullptr;
  size_t count_ = 0;
};

}  // namespace hcb
