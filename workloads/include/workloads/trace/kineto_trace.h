#pragma once
// A PyTorch profiler (Kineto) trace as hpcsim reads it: the Chrome-trace JSON (.json or .json.gz) that
// torch.profiler's export_chrome_trace writes. What is kept: the GPU activities of one device (kernels with
// their launch shape and resources, memcpys, memsets; NCCL kernels marked), the host call that launched
// each (by correlation id), the CPU op each belongs to (by external id, with its input shapes and types when
// the trace recorded shapes), cross-stream waits (cudaStreamWaitEvent, `cuda_sync` events) and the device's
// properties. Everything else (Python frames, annotations, other devices) is skipped.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hpcsim {

// deviceProperties of the device the activities ran on (fields absent from the trace stay 0).
struct KinetoDevice {
  int id = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int registers_per_sm = 0;      // regsPerMultiprocessor (or regsPerBlock where the trace lacks it)
  int registers_per_block = 0;
  int smem_per_sm = 0;           // sharedMemPerMultiprocessor (AMD: maxSharedMemoryPerMultiProcessor)
  int smem_per_block_optin = 0;  // sharedMemPerBlockOptin
  double memory_bytes = 0;
};

enum class GpuActivityKind : std::uint8_t { kernel, memcpy, memset };

struct GpuActivity {
  GpuActivityKind kind = GpuActivityKind::kernel;
  std::string name;
  int stream = 0;
  double start_s = 0;  // from the trace's first GPU activity
  double duration_s = 0;
  std::int64_t correlation = -1;  // links to the launching host call
  std::int64_t external_id = -1;  // links to the CPU op
  // Kernels (NVIDIA traces; AMD traces leave these empty).
  std::array<int, 3> grid{0, 0, 0}, block{0, 0, 0};
  std::optional<int> registers_per_thread;
  std::optional<int> smem_per_block;             // bytes, static plus dynamic
  std::optional<double> est_occupancy_percent;  // "est. achieved occupancy %"
  bool nccl = false;                              // an NCCL collective kernel
  double bytes = 0;                               // memcpy / memset bytes (0 when not recorded)
  std::string copy_kind;                          // memcpy: HtoD, DtoH, DtoD, ...
  // NCCL kernels: what the trace says of the collective (PyTorch's record_param_comms metadata, on the
  // kernel or its CPU op): its name ("allreduce", ...), the message size in bytes (input elements times the
  // element size; all-gather: output elements, the nccl-tests convention) and the group size; 0 / empty
  // when not recorded.
  std::string collective_name;
  double collective_bytes = 0;
  int collective_group = 0;
  // Index into KinetoTrace::cpu_ops: the op with this external id, else (older traces, whose kernels carry
  // their launch's correlation id there) the innermost op on the launching thread around the launch call.
  std::int64_t cpu_op = -1;
  std::optional<double> launch_s;  // the launching host call's start, same origin as start_s (may be < 0)
};

// A CPU op (aten::mm, ...) with the shapes the trace recorded (record_shapes=True), else empty.
struct KinetoCpuOp {
  std::string name;
  std::int64_t external_id = -1;
  std::vector<std::vector<std::int64_t>> input_dims;
  std::vector<std::string> input_types;
  // record_param_comms / nccl:* ops: the collective's metadata (see GpuActivity).
  std::string collective_name;
  double collective_bytes = 0;
  int collective_group = 0;
};

// "Stream Wait Event": work issued to `stream` after this wait waits for the work issued to `on_stream`
// before it (both ordered by correlation id, which follows host issue order).
struct StreamWait {
  int stream = 0;
  int on_stream = 0;
  std::int64_t correlation = 0;
};

struct KinetoTrace {
  std::string file;
  KinetoDevice device;   // the device whose activities were kept
  int device_count = 0;  // deviceProperties entries
  std::vector<GpuActivity> activities;  // ordered by start (ties: correlation)
  std::vector<KinetoCpuOp> cpu_ops;
  std::vector<StreamWait> waits;        // ordered by correlation
  int rank = -1;                        // distributedInfo.rank, -1 when absent
  std::int64_t events = 0;              // traceEvents read
};

// Reads a .json or gzip-compressed trace (told by its content, not its name). `device`: which device's
// activities to keep; empty = the one with the most. Malformed, truncated or unusable files are a
// ConfigError naming the file and, for JSON errors, the line, column and byte offset (of the decompressed
// text for .gz files).
KinetoTrace read_kineto_trace(const std::string& path, std::optional<int> device = std::nullopt);

// True for an NCCL (or RCCL) kernel name.
bool is_nccl_kernel(const std::string& name);

}  // namespace hpcsim
