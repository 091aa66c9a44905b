// Predictions for the rows of a hpcsim-cuda-bench CSV, from the GPU spec alone: GEMMs and streaming
// kernels through the kernel model, the launch through the spec's launch overhead, occupancy through the
// CUDA rules; host copies through the GPU's PCIe link spec, and the overlap case's two streams through the
// stream model (models/gpu/host_transfer.h). The launch host time is the framework's, shown unmodelled.
#include "driver/device_comparison.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "configs/config_error.h"
#include "driver/pointer_chase_plateaus.h"
#include "models/gpu/host_transfer.h"
#include "models/gpu/kernel_model.h"
#include "models/gpu/occupancy.h"
#include "models/gpu/ops/attention.h"
#include "models/gpu/ops/elementwise.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/op_kernel.h"
#include "models/gpu/precision.h"

namespace hpcsim {

namespace {

Precision dtype_param(const DeviceMeasurements& file, const DeviceMeasurement& row, const GpuSpec& gpu) {
  const std::string* text = row.param("dtype");
  if (!text) throw device_row_error(file, row, "needs the param dtype");
  const std::optional<Precision> p = parse_precision(*text);
  if (!p) throw device_row_error(file, row, "unknown dtype " + *text);
  if (!gpu.supports(*p)) throw device_row_error(file, row, "the " + gpu.name + " spec has no " + *text + " math units");
  return *p;
}

// The unit each modelled (benchmark, metric) is written in, and whether it is the case's headline.
struct MetricRule {
  const char* benchmark;
  const char* metric;
  const char* unit;
  bool headline;
};
constexpr MetricRule kRules[] = {
    {"launch", "gpu_us", "us", true},      {"launch", "host_us", "us", false},
    {"launch-work", "gpu_us", "us", false},
    {"copy", "gbps", "GB/s", true},        {"copy", "time_us", "us", false},
    {"triad", "gbps", "GB/s", true},       {"triad", "time_us", "us", false},
    {"gemm", "tflops", "TFLOP/s", true},   {"gemm", "time_us", "us", false},   {"gemm", "host_us", "us", false},
    {"pcie", "gbps", "GB/s", true},        {"occupancy", "blocks_per_sm", "blocks", false},
    {"overlap", "both_us", "us", true},    {"overlap", "copy_us", "us", false},
    {"overlap", "compute_us", "us", false}, {"overlap", "overlap_fraction", "fraction", false},
    {"pointer-chase", "latency", "cycles", false},
    {"bank-conflicts", "cycles_per_access", "cycles", false},
    {"special-functions", "results_per_sm_per_clock", "1/cycle", false},
    {"fma-ilp", "tflops", "TFLOP/s", true},         {"fma-ilp", "cycles_per_fma", "cycles", false},
    {"coalescing", "gbps", "GB/s", true},           {"coalescing", "time_us", "us", false},
    {"occupancy-sweep", "gbps", "GB/s", true},      {"occupancy-sweep", "blocks_per_sm", "blocks", false},
    {"gemm-precisions", "tflops", "TFLOP/s", true}, {"gemm-precisions", "time_us", "us", false},
    {"attention-sdpa", "tflops", "TFLOP/s", true},  {"attention-sdpa", "time_us", "us", false},
    {"sustained", "tflops", "TFLOP/s", true},       {"sustained", "gbps", "GB/s", true},
};

const MetricRule* rule_of(const DeviceMeasurement& row) {
  for (const MetricRule& r : kRules) {
    if (row.benchmark == r.benchmark && row.metric == r.metric) return &r;
  }
  return nullptr;
}

// Seconds the model gives a streaming op, and the bytes it moves as the suite counts them.
struct Streamed {
  double seconds;
  double bytes;
};

Streamed copy_time(const GpuSpec& gpu, double bytes) { return {estimate_op(gpu, copy_op(bytes)).time_s, bytes}; }

// a[i] = b[i] + s * c[i]: one op reading two fp32 streams and writing one, 12 bytes per element. The suite's
// triad is STREAM's hand-written kernel (bench/cuda/triad_bench.cu), not a framework's: it streams at the
// spec's measured bandwidth, as a copy does, without the framework-pointwise share.
Streamed triad_time(const GpuSpec& gpu, double n) {
  ElementwiseChain chain;
  chain.elements = n;
  chain.inputs = 2;
  chain.flops_per_op = 2;
  chain.precision = Precision::fp32;
  std::vector<Kernel> kernels = elementwise_chain(chain);
  for (Kernel& k : kernels) k.work.framework_pointwise = false;
  return {estimate_op(gpu, kernels).time_s, 12 * n};
}

// A published plateau names its level (level=l1|l2|hbm); a sweep row's footprint falls in one, or between two.
// The spec's load-to-use latency of that level is the prediction; the L1 band uses the whole unified L1 and
// shared memory, which a kernel without shared memory gets as L1.
void predict_chase_latency(const DeviceMeasurements& file, const GpuSpec& gpu, DeviceComparisonRow& out) {
  const DeviceMeasurement& row = out.measured;
  std::optional<std::string> level;
  if (const std::string* named = row.param("level")) {
    level = *named;
  } else {
    level = pointer_chase_level(static_cast<double>(device_int_param(file, row, "footprint_bytes", 1)),
                                gpu.sm.l1_smem_bytes, gpu.memory.l2_bytes);
    if (!level) {
      out.note = "footprint between two cache levels";
      return;
    }
  }
  const double cycles = *level == "l1"    ? gpu.memory.l1_latency_cycles
                        : *level == "l2"  ? gpu.memory.l2_latency_cycles
                        : *level == "hbm" ? gpu.memory.hbm_latency_cycles
                                          : throw device_row_error(file, row, "level=" + *level + " is not l1, l2 or hbm");
  if (cycles <= 0) {
    out.note = "the " + gpu.name + " spec gives no " + *level + " latency";
    return;
  }
  out.predicted = cycles;
}

// The kernel model's shared-memory rate: banks x bank_bytes per clock per SM, a warp access taking its
// conflict degree times the conflict-free passes. The suite reads 4-byte words; a twin's fp64 sweep says so.
double shared_access_cycles(const DeviceMeasurements& file, const DeviceMeasurement& row, const GpuSpec& gpu) {
  const std::string* dtype = row.param("dtype");
  const std::optional<Precision> precision = dtype ? parse_precision(*dtype) : Precision::fp32;
  if (precision != Precision::fp32 && precision != Precision::fp64) {
    throw device_row_error(file, row, "dtype=" + *dtype + " is not fp32 or fp64");
  }
  const int element_bytes = static_cast<int>(bytes_per_element(*precision));
  const int stride = device_int32_param(file, row, "stride", 0);
  const int banks = gpu.sm.smem_banks, bank_bytes = gpu.sm.smem_bank_bytes;
  return 32.0 * element_bytes * bank_conflict_degree(element_bytes, stride, banks, bank_bytes) / (banks * bank_bytes);
}

// The suite times each op as a batch of back-to-back launches between two events (bench/cuda/timing.h), so
// an op shorter than the host takes to enqueue it is measured at the host's rate: the run's own launch
// host_us (empty kernels, not a CUDA graph). 0 when the file has none.
double host_enqueue_s(const DeviceMeasurements& file) {
  for (const DeviceMeasurement& row : file.rows) {
    const std::string* graph = row.param("graph");
    if (row.benchmark == "launch" && row.metric == "host_us" && (!graph || *graph != "1")) return row.value * 1e-6;
  }
  return 0;
}

// A back-to-back op's time per op in the suite's loop: the model's GPU time, or the host's enqueue when longer.
double looped_s(double gpu_s, double host_s, DeviceComparisonRow& out) {
  if (host_s <= gpu_s) return gpu_s;
  out.note = "host-bound: the run's launch host_us bounds a back-to-back op";
  return host_s;
}

// A GEMM's time (time_us) or rate (tflops) by the kernel model, no faster than the host's enqueue where the
// rows come from a loop of launches (host_s 0: replayed from a CUDA graph).
void predict_gemm(const GpuSpec& gpu, const GemmShape& shape, double host_s, DeviceComparisonRow& out) {
  const double seconds = looped_s(estimate_op(gpu, {gemm(gpu, shape)}).time_s, host_s, out);
  const double flops = 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) * static_cast<double>(shape.k);
  out.predicted = out.measured.metric == "time_us" ? seconds * 1e6 : flops / seconds / 1e12;
}

// PyTorch's products replayed from a CUDA graph (bench/cuda/gemm_precisions.py): GPU time, no host bound.
void predict_gemm_precisions(const DeviceMeasurements& file, const GpuSpec& gpu, DeviceComparisonRow& out) {
  const DeviceMeasurement& row = out.measured;
  const std::string* precision = row.param("precision");
  if (!precision) throw device_row_error(file, row, "needs the param precision");
  const std::optional<Precision> p = parse_precision(*precision);
  if (!p || !gpu.supports(*p)) {
    out.in_mape = false;
    out.note = "no " + *precision + " GEMM in the model";
    return;
  }
  const GemmShape shape{device_int_param(file, row, "m", 1), device_int_param(file, row, "n", 1),
                        device_int_param(file, row, "k", 1), 1, *p};
  predict_gemm(gpu, shape, 0, out);
  if (*p == Precision::int8) {
    // torch._int_mm (int32 results) ran below fp8 on the H200 (912 against 1,453 TFLOP/s at 8192^3): a
    // cuBLASLt path, not the int8 kernels TensorRT's engines use, which the model's int8 rate stands for.
    out.in_mape = false;
    out.note = "torch._int_mm: not TensorRT's int8 kernels";
  }
}

// bench/cuda/sustained_load.py: a product or a 1 GiB copy held for seconds from CUDA graphs (no host bound),
// its first window and its steady state. The model has one clock for both, so they get one prediction; the
// steady state is the case's headline and the first window is shown beside it.
void predict_sustained(const DeviceMeasurements& file, const GpuSpec& gpu, DeviceComparisonRow& out) {
  const DeviceMeasurement& row = out.measured;
  const std::string* op = row.param("op");
  const std::string* phase = row.param("phase");
  if (!op || !phase) throw device_row_error(file, row, "needs the params op and phase");
  if (*phase != "steady" && *phase != "first") {
    throw device_row_error(file, row, "phase=" + *phase + " is not first or steady");
  }
  if (*op == "gemm") {
    predict_gemm_precisions(file, gpu, out);
  } else if (*op == "copy") {
    const Streamed s = copy_time(gpu, static_cast<double>(device_int_param(file, row, "bytes", 1)));
    out.predicted = s.bytes / s.seconds / 1e9;
  } else {
    throw device_row_error(file, row, "op=" + *op + " is not gemm or copy");
  }
  if (*phase == "first") {
    out.in_mape = false;
    if (out.note.empty()) out.note = "first window: shown beside the steady state";
  }
}

// scaled_dot_product_attention forward (bench/cuda/attention_sdpa.py), timed in a loop of calls long enough to
// be GPU-bound. The model's fused kernel is a Hopper-native one that waits on its softmax (FlashAttention-3
// without its overlaps, docs/inference.md pass 9): PyTorch's cuDNN backend is that kind of kernel;
// FlashAttention-2 (`flash`) and the memory-efficient kernel are slower designs, shown and not counted.
void predict_attention_sdpa(const DeviceMeasurements& file, const GpuSpec& gpu, DeviceComparisonRow& out) {
  const DeviceMeasurement& row = out.measured;
  const std::string* pass = row.param("pass");
  const std::string* backend = row.param("backend");
  if (!pass || !backend) throw device_row_error(file, row, "needs the params pass and backend");
  if (*pass != "fwd") {
    out.in_mape = false;
    out.note = "backward: `hpcsim kernel attention` times the forward";
    return;
  }
  const std::string* dtype = row.param("dtype");
  const std::optional<Precision> p = dtype ? parse_precision(*dtype) : std::nullopt;
  if (!p) throw device_row_error(file, row, "needs a known dtype");
  const std::string* causal = row.param("causal");
  const AttentionShape shape{device_int_param(file, row, "batch", 1), device_int_param(file, row, "heads", 1),
                             device_int_param(file, row, "seq", 1), device_int_param(file, row, "head_dim", 1),
                             causal && *causal == "1", *p};
  const double seconds = estimate_op(gpu, attention(gpu, shape, true)).time_s;
  const double flops = 4.0 * static_cast<double>(shape.batch * shape.heads) * static_cast<double>(shape.seq) *
                       static_cast<double>(shape.seq) * static_cast<double>(shape.head_dim) * (shape.causal ? 0.5 : 1.0);
  out.predicted = row.metric == "time_us" ? seconds * 1e6 : flops / seconds / 1e12;
  if (*backend != "cudnn") {
    out.in_mape = false;
    out.note = *backend + ": not the kernel design the model times (cudnn is)";
  }
}

// Results per SM per clock: the exponential and reciprocal on the special-function lanes, FP32 multiplies on
// the FP32 lanes; the conversions' rates are not in the GPU spec.
void predict_special_function(const DeviceMeasurements& file, const GpuSpec& gpu, DeviceComparisonRow& out) {
  const std::string* op = out.measured.param("op");
  if (!op) throw device_row_error(file, out.measured, "needs the param op");
  if (*op == "ex2" || *op == "rcp") {
    out.predicted = gpu.sfu_lanes_per_sm;
  } else if (*op == "fmul") {
    out.predicted = gpu.peak(Precision::fp32, MathUnit::vector) / 2 / gpu.sm_count / gpu.boost_clock_hz;
  } else {
    out.note = "conversion: its rate is not in the GPU spec";
  }
}

// Resident blocks per SM by the CUDA occupancy rules, an exact answer (occupancy rows, the occupancy sweep's
// blocks_per_sm): 0 for a launch that cannot run, as the driver reports it.
void predict_resident_blocks(const GpuSpec& gpu, const LaunchResources& launch, DeviceComparisonRow& out) {
  if (gpu.compute_capability.empty()) {
    out.note = "no CUDA occupancy rules for a " + gpu.vendor + " GPU";
    return;
  }
  out.exact = true;
  try {
    out.predicted = compute_occupancy(gpu.sm, launch).active_blocks_per_sm;
  } catch (const InvalidLaunch& e) {
    out.predicted = 0;
    out.note = e.what();
  }
}

// A size param of a row (the suite writes it since the thirty-fourth session), or the full run's size for
// rows written before (a --quick run's then read as the full run's).
double size_param(const DeviceMeasurements& file, const DeviceMeasurement& row, const char* key, double full_run) {
  return row.param(key) ? static_cast<double>(device_int_param(file, row, key, 1)) : full_run;
}

// bench/cuda/fma_ilp_bench.cu: one block of 4 warps per SM (one per scheduler), each thread `chains`
// independent chains of dependent fp32 FMAs, `iters` loop trips of 8 FMAs a chain. The kernel model's latency
// hiding (resident warps x ILP against the dependent-issue cycles) gives the cycles per warp-wide FMA between
// the bench's two clock reads (the launch outside them); the FLOP rate is the same kernel over the whole GPU,
// launch included (the full run's 16,384 trips: 0.6 % of it at 4 chains).
void predict_fma_ilp(const DeviceMeasurements& file, const GpuSpec& gpu, double host_s, DeviceComparisonRow& out) {
  const DeviceMeasurement& row = out.measured;
  const double chains = static_cast<double>(device_int_param(file, row, "chains", 1));
  constexpr int kThreadsPerBlock = 128;
  const double fmas_per_thread = size_param(file, row, "iters", 16384) * 8 * chains;
  KernelLaunch launch;
  launch.blocks = gpu.sm_count;
  launch.threads_per_block = kThreadsPerBlock;
  KernelWork work;
  work.precision = Precision::fp32;
  work.ilp = chains;
  work.flops = 2 * fmas_per_thread * kThreadsPerBlock * gpu.sm_count;
  const KernelTime t = estimate_kernel(gpu, launch, work);
  if (row.metric == "cycles_per_fma") {
    out.predicted = (t.time_s - t.launch_s) * gpu.boost_clock_hz / fmas_per_thread;
  } else {
    out.predicted = work.flops / looped_s(t.time_s, host_s, out) / 1e12;
  }
}

// The suite's streaming reads (bench/cuda/coalescing_bench.cu, occupancy_sweep_bench.cu): a grid-stride loop
// summing n floats `stride` elements apart over one full wave of resident blocks. Each trip is one load and an
// add that waits on it (nvcc 13.0's PTX for sm_90: ld.global.nc.f32, add.f32, branch; no unrolling), so a warp
// keeps one request in flight. The kernel model gives the sectors each request moves and, by Little's law,
// the bandwidth that many requests in flight reach; the row's figure is the threads' 4n bytes over its time.
double streaming_read_s(const GpuSpec& gpu, double n, int stride, int threads, int registers, double host_s,
                        DeviceComparisonRow& out) {
  LaunchResources resources;
  resources.threads_per_block = threads;
  resources.registers_per_thread = registers;
  KernelLaunch launch;
  launch.threads_per_block = threads;
  launch.registers_per_thread = registers;
  launch.blocks = static_cast<std::int64_t>(compute_occupancy(gpu.sm, resources).active_blocks_per_sm) * gpu.sm_count;
  KernelWork work;
  work.precision = Precision::fp32;
  work.flops = n;
  work.add({4 * n, -1, 4, stride, false});
  work.requests_in_flight = 1;
  return looped_s(estimate_kernel(gpu, launch, work).time_s, host_s, out);
}

// Coalescing: n useful floats (the full run's 2^25) in 256-thread blocks of a kernel with few registers (the
// occupancy rules give 8 blocks a SM for up to 32).
void predict_coalescing(const DeviceMeasurements& file, const GpuSpec& gpu, double host_s, DeviceComparisonRow& out) {
  const int stride = device_int32_param(file, out.measured, "stride", 1);
  const double n = size_param(file, out.measured, "n", 33554432.0);
  const double seconds = streaming_read_s(gpu, n, stride, 256, 32, host_s, out);
  out.predicted = out.measured.metric == "time_us" ? seconds * 1e6 : 4 * n / seconds / 1e9;
}

// The occupancy sweep: n floats (the full run's 2^26) read at each block size and register count the row gives;
// its blocks_per_sm is the CUDA occupancy rules' exact answer, its bandwidth the streaming read's.
void predict_occupancy_sweep(const DeviceMeasurements& file, const GpuSpec& gpu, double host_s, DeviceComparisonRow& out) {
  const DeviceMeasurement& row = out.measured;
  const int threads = device_int32_param(file, row, "block", 1);
  const int registers = device_int32_param(file, row, "regs", 1);
  if (row.metric == "blocks_per_sm") {
    LaunchResources resources;
    resources.threads_per_block = threads;
    resources.registers_per_thread = registers;
    predict_resident_blocks(gpu, resources, out);
    return;
  }
  const double n = size_param(file, row, "n", 67108864.0);
  try {
    out.predicted = 4 * n / streaming_read_s(gpu, n, 1, threads, registers, host_s, out) / 1e9;
  } catch (const InvalidLaunch& e) {
    throw device_row_error(file, row, std::string("a launch the ") + gpu.name + " cannot run: " + e.what());
  }
}

// The bytes a host copy row moves: its param, or for an overlap row written before the suite named it, the
// full run's 256 MiB (bench/cuda/overlap_bench.cu; --quick runs 64 MiB and names it).
double host_copy_bytes(const DeviceMeasurements& file, const DeviceMeasurement& row) {
  if (row.param("bytes") || row.benchmark != "overlap") return static_cast<double>(device_int_param(file, row, "bytes", 1));
  return 256.0 * (1 << 20);
}

// The same case's measured value of another metric (an overlap row's copy_us beside its both_us), if any.
std::optional<double> case_metric(const DeviceMeasurements& file, const DeviceMeasurement& row, const char* metric) {
  for (const DeviceMeasurement& other : file.rows) {
    if (other.benchmark == row.benchmark && other.params == row.params && other.metric == metric) return other.value;
  }
  return std::nullopt;
}

// Host-to-device copies over the GPU's PCIe link (pinned memory, the `pcie` rows and the overlap case's pinned
// copy), and the overlap case's two streams: its both_us from its own copy and kernel times by the stream
// model (the longer from pinned memory, the sum from pageable). A pageable copy's time is the host thread's
// staging rate, a property of the host, and the kernel is sized by the bench to the pinned copy: neither is
// predicted from the GPU spec.
void predict_host_copy(const DeviceMeasurements& file, const GpuSpec& gpu, const NetworkSpec* link, DeviceComparisonRow& out) {
  const DeviceMeasurement& row = out.measured;
  const std::string* memory = row.benchmark == "overlap" ? row.param("memory") : nullptr;
  if (row.benchmark == "overlap" && (!memory || (*memory != "pinned" && *memory != "pageable"))) {
    throw device_row_error(file, row, "needs the param memory=pinned or memory=pageable");
  }
  const bool pinned = !memory || *memory == "pinned";
  if (row.metric == "both_us" || row.metric == "overlap_fraction") {
    const std::optional<double> copy = case_metric(file, row, "copy_us"), kernel = case_metric(file, row, "compute_us");
    if (!copy || !kernel) {
      out.note = "needs the case's copy_us and compute_us";
      return;
    }
    const double both = copy_then_kernel_s(pinned ? HostMemory::pinned : HostMemory::pageable, *copy, *kernel);
    out.predicted = row.metric == "both_us" ? both : overlap_fraction(*copy, *kernel, both);
    out.note = "the case's measured copy and kernel, composed by the stream model";
    return;
  }
  if (row.metric == "compute_us") {
    out.note = "the bench sizes the kernel to the pinned copy";
    return;
  }
  // A pageable copy is staged at the host's own copy rate, which no spec gives: the run's memcpy of the same
  // bytes into pinned memory (staging_memcpy_us, written since the thirty-third session) stands for it.
  const std::optional<double> staging = pinned ? std::nullopt : case_metric(file, row, "staging_memcpy_us");
  if (!pinned && !staging) {
    out.note = "pageable: staged at the host's copy rate, not in a spec (no staging_memcpy_us in the run)";
    return;
  }
  if (!link || gpu.pcie_lanes < 1) {
    out.note = "the " + gpu.name + " spec gives no PCIe link";
    return;
  }
  const double bytes = host_copy_bytes(file, row);
  double seconds = pinned_copy_s(*link, gpu.pcie_lanes, bytes);
  if (!pinned) {
    seconds = pageable_copy_s(*staging * 1e-6, seconds);
    out.note = "staged by the host at the run's own memcpy rate, the DMA under it";
  }
  out.predicted = row.metric == "gbps" ? bytes / seconds / 1e9 : seconds * 1e6;
}

void predict(const DeviceMeasurements& file, const GpuSpec& gpu, double host_s, const NetworkSpec* link, DeviceComparisonRow& out) {
  const DeviceMeasurement& row = out.measured;
  const MetricRule* rule = rule_of(row);
  if (!rule) {
    if (row.benchmark == "sustained") {
      out.note = "sampled beside the rate: the model has one clock, no power limit";
    } else if (row.metric == "staging_memcpy_us") {
      out.note = "the host's staging rate: an input of the pageable copy";
    } else if (row.benchmark == "l2-fetch") {
      out.note = "L2 fetch granularity probe: read beside the coalescing rows, no spec field";
    } else {
      out.note = "not modelled";
    }
    return;
  }
  if (row.unit != rule->unit) throw device_row_error(file, row, row.metric + " is given in " + rule->unit + ", not " + row.unit);
  out.in_mape = rule->headline;
  const std::string& b = row.benchmark;
  const bool time = row.metric == "time_us";
  // A row replayed from a CUDA graph (graph=1: the suite's copies and GEMMs since the thirty-third session) has
  // no host enqueue between its calls, so the host's rate does not bound it.
  if (const std::string* graph = row.param("graph"); graph && *graph == "1") host_s = 0;
  if (b == "launch") {
    if (row.metric == "host_us") {
      out.note = "host time: the framework's dispatch cost, not the GPU spec's";
      return;
    }
    if (const std::string* graph = row.param("graph"); graph && *graph == "1") {
      out.in_mape = false;  // the spec's launch overhead is one launch from the host; a graph submits many at once
      out.note = "CUDA graph launches: not modelled";
      return;
    }
    out.predicted = gpu.launch_overhead_s * 1e6;
  } else if (b == "launch-work") {
    // One warp spinning spin_cycles SM cycles, no memory traffic, back to back: the kernel model's time for
    // it, the spin counted at the spec's boost clock as serial block latency, after the launch latency. These
    // rows test that launch and work add (they did on an H200: docs/validation.md, "First device run").
    KernelLaunch launch;
    launch.threads_per_block = 32;
    KernelWork work;
    work.flops = 1;
    work.precision = Precision::fp32;
    work.block_latency_cycles = static_cast<double>(device_int_param(file, row, "spin_cycles", 0));
    out.note = "spin at the spec's boost clock";
    out.predicted = looped_s(estimate_kernel(gpu, launch, work).time_s, host_s, out) * 1e6;
  } else if (b == "copy" || b == "triad") {
    const Streamed s = b == "copy" ? copy_time(gpu, static_cast<double>(device_int_param(file, row, "bytes", 1)))
                                   : triad_time(gpu, static_cast<double>(device_int_param(file, row, "n", 1)));
    const double seconds = looped_s(s.seconds, host_s, out);
    out.predicted = time ? seconds * 1e6 : s.bytes / seconds / 1e9;
  } else if (b == "gemm") {
    if (row.metric == "host_us") {
      out.note = "host time: cuBLAS's cost per call, not the GPU spec's";
      return;
    }
    // A loop of cuBLAS calls runs no faster than the host submits them: the case's own host cost per call
    // where the run measured it (since the thirty-third session), else the run's empty-launch enqueue. A
    // graph=1 row has its own params, so no host_us of its own.
    if (const std::optional<double> own = case_metric(file, row, "host_us")) host_s = *own * 1e-6;
    const GemmShape shape{device_int_param(file, row, "m", 1), device_int_param(file, row, "n", 1),
                          device_int_param(file, row, "k", 1), 1,
                          dtype_param(file, row, gpu)};
    predict_gemm(gpu, shape, host_s, out);
  } else if (b == "gemm-precisions") {
    predict_gemm_precisions(file, gpu, out);
  } else if (b == "attention-sdpa") {
    predict_attention_sdpa(file, gpu, out);
  } else if (b == "sustained") {
    predict_sustained(file, gpu, out);
  } else if (b == "special-functions") {
    predict_special_function(file, gpu, out);
  } else if (b == "fma-ilp") {
    predict_fma_ilp(file, gpu, host_s, out);
  } else if (b == "coalescing") {
    predict_coalescing(file, gpu, host_s, out);
  } else if (b == "occupancy-sweep") {
    predict_occupancy_sweep(file, gpu, host_s, out);
  } else if (b == "pointer-chase") {
    predict_chase_latency(file, gpu, out);
  } else if (b == "bank-conflicts") {
    out.predicted = shared_access_cycles(file, row, gpu);
  } else if (b == "pcie" || b == "overlap") {
    predict_host_copy(file, gpu, link, out);
  } else {  // occupancy
    LaunchResources launch;
    launch.threads_per_block = device_int32_param(file, row, "threads", 1);
    launch.registers_per_thread = device_int32_param(file, row, "regs", 0);
    launch.smem_per_block = device_int32_param(file, row, "smem", 0);
    predict_resident_blocks(gpu, launch, out);
  }
  if (out.predicted && row.value != 0) out.error = (*out.predicted - row.value) / row.value;
}

// The spec must describe the GPU the CSV was measured on: same compute capability and SM count.
void check_same_gpu(const DeviceMeasurements& m, const GpuSpec& gpu) {
  const std::string measured = m.header_value("gpu").value_or("an unnamed GPU");
  if (const auto cc = m.header_value("compute_capability"); cc && !gpu.compute_capability.empty() && *cc != gpu.compute_capability) {
    throw std::invalid_argument("--gpu " + gpu.name + ": compute capability " + gpu.compute_capability + ", but " + m.file +
                                " was measured on " + measured + " (" + *cc + ")");
  }
  if (const auto sms = m.header_value("sm_count"); sms && *sms != std::to_string(gpu.sm_count)) {
    throw std::invalid_argument("--gpu " + gpu.name + ": " + std::to_string(gpu.sm_count) + " SMs, but " + m.file +
                                " was measured on " + measured + " with " + *sms);
  }
}

}  // namespace

DeviceComparison compare_device_measurements(const DeviceMeasurements& measured, const GpuSpec& gpu, const NetworkSpec* host_link) {
  check_same_gpu(measured, gpu);
  DeviceComparison c;
  c.gpu_spec = gpu.name;
  c.measured_gpu = measured.header_value("gpu").value_or("");
  double sum = 0;
  const double host_s = host_enqueue_s(measured);
  for (const DeviceMeasurement& row : measured.rows) {
    DeviceComparisonRow out;
    out.measured = row;
    predict(measured, gpu, host_s, host_link, out);
    if (out.exact) {
      ++c.occupancy_rows;
      if (out.predicted && *out.predicted == row.value) ++c.occupancy_matches;
    } else if (out.in_mape && out.predicted) {
      sum += std::abs(out.error);
      ++c.mape_rows;
      if (c.worst < 0 || std::abs(out.error) > std::abs(c.rows[c.worst].error)) c.worst = static_cast<int>(c.rows.size());
      auto cls = std::find_if(c.by_benchmark.begin(), c.by_benchmark.end(),
                              [&](const DeviceClassError& e) { return e.benchmark == row.benchmark; });
      if (cls == c.by_benchmark.end()) cls = c.by_benchmark.insert(cls, DeviceClassError{row.benchmark});
      cls->mape += std::abs(out.error);  // a sum until the loop ends
      if (++cls->rows == 1 || std::abs(out.error) > std::abs(cls->worst)) cls->worst = out.error;
    }
    c.rows.push_back(std::move(out));
  }
  if (c.mape_rows > 0) c.mape = sum / c.mape_rows;
  for (DeviceClassError& e : c.by_benchmark) e.mape /= e.rows;
  return c;
}

}  // namespace hpcsim
