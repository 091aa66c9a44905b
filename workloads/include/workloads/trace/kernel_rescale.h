#pragma once
// A recorded step moved to another GPU: each activity's recorded duration times the ratio of its modelled
// time on the target GPU to its modelled time on the GPU it was recorded on (models/gpu/kernel_model.h),
// so the kernel model supplies only the change and the recording keeps what the model does not know.
// The model used depends on the kernel's class:
//   gemm with shapes: the CPU op that launched it (aten::mm, addmm, bmm, matmul, linear) recorded its
//     input shapes (record_shapes=True): the GEMM op model (models/gpu/ops/gemm.h) on both GPUs;
//   compute (GEMMs without shapes, convolutions, attention): the recorded launch with the work the recorded
//     time implies at the source GPU's achievable math rate, in the precision the kernel name tells;
//   memory (every other kernel, memsets, device-to-device copies): the recorded launch with the bytes the
//     recorded time implies at the source GPU's streaming bandwidth;
//   host copies: the ratio of the two GPUs' PCIe links (each generation from 3 on doubles the per-lane rate);
//   collectives (NCCL kernels): unchanged (one GPU's step; the network is replayed under data parallelism).
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "models/gpu/gpu_spec.h"
#include "workloads/trace/kineto_trace.h"

namespace hpcsim {

enum class KernelClass : std::uint8_t { gemm_shaped, compute, memory, host_copy, collective };
inline constexpr int kKernelClassCount = 5;
std::string_view to_string(KernelClass c);

// The class by kernel name and, for GEMMs, whether the launching CPU op recorded usable shapes.
KernelClass classify_activity(const KinetoTrace& trace, const GpuActivity& activity);

struct Rescaled {
  std::vector<double> durations_s;                       // per activity
  std::array<std::int64_t, kKernelClassCount> counts{};  // activities per class
  std::array<double, kKernelClassCount> recorded_s{}, rescaled_s{};  // summed durations per class
};

// Every activity gets a duration: a launch the target cannot run (more shared memory than it has) is timed
// with hpcsim's default launch of the same grid instead, and a precision either GPU lacks falls back to fp32.
Rescaled rescale_to_gpu(const KinetoTrace& trace, const GpuSpec& recorded_on, const GpuSpec& target);

}  // namespace hpcsim
