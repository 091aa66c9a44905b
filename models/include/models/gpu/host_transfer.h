#pragma once
// Host-device copies and two CUDA streams: a host-to-device copy on one stream beside a kernel on another.
// A copy from page-locked (pinned) host memory is a DMA on a copy engine over the GPU's PCIe link and runs
// while the SMs compute; a copy from pageable memory is staged by the host thread through a pinned buffer,
// and cudaMemcpyAsync returns only once the data is staged (CUDA Runtime API, "API synchronization
// behavior"), so a kernel enqueued after it starts after the copy (CUDA C++ Programming Guide, "Overlap of
// Data Transfer and Kernel Execution": the overlap needs page-locked host memory).
#include "models/network/network_spec.h"

namespace hpcsim {

enum class HostMemory { pinned, pageable };

// Seconds a pinned copy of `bytes` takes over a PCIe link `lanes` wide: its payload bandwidth (the line rate
// after 128b/130b coding, times payload / wire bytes of a max-payload packet) plus the link's per-transfer
// software latency. std::invalid_argument for bytes < 1 or lanes < 1.
double pinned_copy_s(const NetworkSpec& pcie, int lanes, double bytes);

// Seconds a host-to-device copy from pageable memory takes, given how long the host thread takes to copy the
// bytes into pinned memory (staging_s) and the pinned DMA of them (dma_s): the runtime stages the bytes through
// its pinned buffer while the copy engine moves what is staged, and returns once the last of them is staged
// ("the DMA to final destination may not have completed": CUDA Runtime API, "API synchronization behavior"),
// so the slower of the two sets the time. std::invalid_argument for a negative time.
double pageable_copy_s(double staging_s, double dma_s);

// Seconds from enqueuing a host-to-device copy (copy_s alone) and then a kernel (kernel_s alone) on two
// streams to both finished: the longer of the two from pinned memory, their sum from pageable memory.
double copy_then_kernel_s(HostMemory memory, double copy_s, double kernel_s);

// The share of the shorter activity hidden under the longer (the suite's overlap_fraction):
// (copy + kernel - both) / min(copy, kernel); 1 is full overlap, 0 none.
double overlap_fraction(double copy_s, double kernel_s, double both_s);

}  // namespace hpcsim
