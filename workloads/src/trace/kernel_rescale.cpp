#include "workloads/trace/kernel_rescale.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "models/gpu/kernel_model.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/op_kernel.h"

namespace hpcsim {

namespace {

std::string lower(std::string_view s) {
  std::string out(s.substr(0, 200));
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool has(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

bool gemm_name(const std::string& n) {
  return has(n, "gemm") || has(n, "cutlass") || n.rfind("cijk_", 0) == 0 || has(n, "matmul");
}
bool compute_name(const std::string& n) {
  return gemm_name(n) || has(n, "conv") || has(n, "cudnn") || has(n, "winograd") || has(n, "fprop") || has(n, "dgrad") ||
         has(n, "wgrad") || has(n, "flash") || has(n, "fmha") || has(n, "attention");
}

Precision precision_of_type(const std::string& type) {
  if (has(type, "BFloat16")) return Precision::bf16;
  if (has(type, "Half")) return Precision::fp16;
  if (has(type, "double")) return Precision::fp64;
  return Precision::fp32;
}

// The GEMM an op's input shapes describe, when they describe one.
std::optional<GemmShape> gemm_shape(const KinetoCpuOp& op) {
  const auto& d = op.input_dims;
  auto dims = [&](std::size_t i) -> const std::vector<std::int64_t>* { return i < d.size() ? &d[i] : nullptr; };
  GemmShape s;
  s.precision = op.input_types.empty() ? Precision::fp32 : precision_of_type(op.input_types[op.input_types.size() > 1 ? 1 : 0]);
  const std::string& n = op.name;
  const std::vector<std::int64_t>*a = nullptr, *b = nullptr;
  bool b_transposed = false;
  if (n == "aten::mm" || n == "aten::matmul" || n == "aten::bmm") a = dims(0), b = dims(1);
  else if (n == "aten::addmm" || n == "aten::baddbmm") a = dims(1), b = dims(2);
  else if (n == "aten::linear") a = dims(0), b = dims(1), b_transposed = true;
  if (!a || !b || a->size() < 2 || b->size() < 2) return std::nullopt;
  std::int64_t batch = 1;
  for (std::size_t i = 0; i + 2 < a->size(); ++i) batch *= (*a)[i];
  s.m = (*a)[a->size() - 2];
  s.k = a->back();
  s.n = b_transposed ? (*b)[b->size() - 2] : b->back();
  const std::int64_t kb = b_transposed ? b->back() : (*b)[b->size() - 2];
  if (n == "aten::linear" || (n == "aten::matmul" && b->size() == 2)) {
    s.m *= batch;  // a weight shared by every row
  } else {
    s.batch = batch;
  }
  if (kb != s.k || s.m < 1 || s.n < 1 || s.k < 1 || s.batch < 1) return std::nullopt;
  return s;
}

// The precision and unit a compute kernel's name tells (cuBLAS/cuDNN/CUTLASS naming); fp32 SIMT otherwise.
std::pair<Precision, MathUnit> compute_precision(const std::string& n) {
  if (has(n, "bf16")) return {Precision::bf16, MathUnit::tensor};
  if (has(n, "tf32")) return {Precision::tf32, MathUnit::tensor};
  if (has(n, "fp16") || has(n, "f16") || has(n, "hgemm") || has(n, "h1688") || has(n, "h884") || has(n, "_hb") ||
      has(n, "half"))
    return {Precision::fp16, MathUnit::tensor};
  if (has(n, "i8") || has(n, "int8")) return {Precision::int8, MathUnit::tensor};
  return {Precision::fp32, MathUnit::vector};
}

KernelLaunch launch_of(const GpuActivity& a) {
  KernelLaunch l;
  const double blocks = static_cast<double>(std::max(1, a.grid[0])) * std::max(1, a.grid[1]) * std::max(1, a.grid[2]);
  l.blocks = static_cast<std::int64_t>(blocks);
  const int threads = std::max(1, a.block[0]) * std::max(1, a.block[1]) * std::max(1, a.block[2]);
  if (a.grid[0] > 0 && a.block[0] > 0) l.threads_per_block = threads;
  else l.blocks = 1024;  // no launch recorded (AMD traces): a full-device grid of the default block
  l.registers_per_thread = std::clamp(a.registers_per_thread.value_or(32), 1, 255);
  l.smem_per_block = a.smem_per_block.value_or(0);
  return l;
}

// A kernel's time on one GPU for work given per unit of the source GPU's rate: the work is what the recorded
// time implies on the source; the launch is tried as recorded, then with hpcsim's default launch.
double model_time(const GpuSpec& gpu, const KernelLaunch& recorded, const KernelWork& work) {
  try {
    return estimate_kernel(gpu, recorded, work).time_s;
  } catch (const std::invalid_argument&) {
    KernelLaunch fallback;
    fallback.blocks = recorded.blocks;
    return estimate_kernel(gpu, fallback, work).time_s;
  }
}

double pcie_rate(const GpuSpec& g) {
  const int gen = std::max(3, g.pcie_generation);
  return std::ldexp(1.0, gen - 3) * std::max(1, g.pcie_lanes);
}

}  // namespace

std::string_view to_string(KernelClass c) {
  switch (c) {
    case KernelClass::gemm_shaped: return "gemm_shaped";
    case KernelClass::compute: return "compute";
    case KernelClass::memory: return "memory";
    case KernelClass::host_copy: return "host_copy";
    case KernelClass::collective: return "collective";
  }
  return "compute";
}

KernelClass classify_activity(const KinetoTrace& t, const GpuActivity& a) {
  if (a.kind == GpuActivityKind::memset) return KernelClass::memory;
  if (a.kind == GpuActivityKind::memcpy) {
    return a.copy_kind == "DtoD" ? KernelClass::memory : KernelClass::host_copy;
  }
  if (a.nccl) return KernelClass::collective;
  const std::string n = lower(a.name);
  if (gemm_name(n) && a.cpu_op >= 0 && gemm_shape(t.cpu_ops[static_cast<std::size_t>(a.cpu_op)])) return KernelClass::gemm_shaped;
  return compute_name(n) ? KernelClass::compute : KernelClass::memory;
}

Rescaled rescale_to_gpu(const KinetoTrace& t, const GpuSpec& from, const GpuSpec& to) {
  Rescaled r;
  r.durations_s.reserve(t.activities.size());
  for (const GpuActivity& a : t.activities) {
    const KernelClass c = classify_activity(t, a);
    const double rec = a.duration_s;
    double ratio = 1;
    switch (c) {
      case KernelClass::gemm_shaped: {
        GemmShape shape = *gemm_shape(t.cpu_ops[static_cast<std::size_t>(a.cpu_op)]);
        if (!from.supports(shape.precision) || !to.supports(shape.precision)) shape.precision = Precision::fp32;
        ratio = estimate_op(to, {gemm(to, shape)}).time_s / estimate_op(from, {gemm(from, shape)}).time_s;
        break;
      }
      case KernelClass::compute: {
        auto [p, unit] = compute_precision(lower(a.name));
        if (!from.supports(p) || !to.supports(p)) p = Precision::fp32, unit = MathUnit::vector;
        KernelWork w;
        w.precision = p;
        w.unit = unit;
        const double rate = unit == MathUnit::tensor ? from.achievable_matmul_flops(p) : from.peak(p, MathUnit::vector) * from.simt_matmul_fraction;
        w.flops = rec * rate;
        const KernelLaunch l = launch_of(a);
        ratio = model_time(to, l, w) / model_time(from, l, w);
        break;
      }
      case KernelClass::memory: {
        KernelWork w;
        const double bytes = rec * from.achievable_memory_bandwidth();
        w.add(GlobalAccess{bytes / 2, -1, 16, 1, false});
        w.add(GlobalAccess{bytes / 2, -1, 16, 1, true});
        const KernelLaunch l = launch_of(a);
        ratio = model_time(to, l, w) / model_time(from, l, w);
        break;
      }
      case KernelClass::host_copy: ratio = pcie_rate(from) / pcie_rate(to); break;
      case KernelClass::collective: ratio = 1; break;
    }
    const double d = rec * (std::isfinite(ratio) && ratio > 0 ? ratio : 1.0);
    r.durations_s.push_back(d);
    const auto i = static_cast<std::size_t>(c);
    ++r.counts[i];
    r.recorded_s[i] += rec;
    r.rescaled_s[i] += d;
  }
  return r;
}

}  // namespace hpcsim
