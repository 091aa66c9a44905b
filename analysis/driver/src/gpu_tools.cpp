#include "driver/gpu_tools.h"

#include <algorithm>
#include <initializer_list>
#include <utility>

#include <cmath>

#include "configs/config_node.h"
#include "configs/count_limits.h"
#include "configs/units.h"
#include "models/gpu/occupancy_limits.h"
#include "models/gpu/ops/normalization.h"
#include "models/gpu/warp_sim/kernel_program.h"

namespace hpcsim {

namespace {

std::string flag_of(LaunchField field) {
  switch (field) {
    case LaunchField::threads: return "--threads";
    case LaunchField::registers: return "--regs";
    case LaunchField::shared_memory: return "--smem";
  }
  return "--threads";
}

}  // namespace

GpuSpec gpu_from_flag(const SpecCatalog& catalog, const std::string& name) {
  const ConfigNode node = ConfigNode::make_scalar(name, SourceLoc{"--gpu " + name});
  return parse_gpu_spec(catalog.load("gpus", node, "GPU"), name);
}

Occupancy occupancy_of(const std::string& config_root, const std::string& gpu_name, const std::string& cc, int threads,
                       int regs, const std::string& smem_text) {
  if (gpu_name.empty() == cc.empty()) throw ToolInputError("give exactly one of --gpu NAME or --cc X.Y");
  SmLimits sm;
  if (!gpu_name.empty()) {
    const GpuSpec gpu = gpu_from_flag(SpecCatalog(config_root), gpu_name);
    if (gpu.compute_capability.empty()) {
      throw ToolInputError("--gpu " + gpu_name + ": the CUDA occupancy rules do not apply to a " + gpu.vendor +
                           " GPU (no compute capability)");
    }
    sm = gpu.sm;
  } else {
    const SmLimits* limits = sm_limits_for_cc(cc);
    if (limits == nullptr) {
      std::string known;
      for (const std::string& c : supported_compute_capabilities()) known += (known.empty() ? "" : ", ") + c;
      throw ToolInputError("--cc " + cc + ": unsupported compute capability (supported: " + known + ")");
    }
    sm = *limits;
  }
  double smem = 0;
  try {
    smem = parse_quantity(smem_text, Dimension::bytes, "B");
  } catch (const UnitError& e) {
    throw ToolInputError("--smem " + smem_text + ": " + e.what());
  }
  if (smem < 0 || smem != std::floor(smem) || smem > 1e9) {
    throw ToolInputError("--smem " + smem_text + ": must be a whole number of bytes, 0 or more");
  }
  try {
    return compute_occupancy(sm, {threads, regs, static_cast<int>(smem), std::nullopt});
  } catch (const InvalidLaunch& e) {
    throw ToolInputError(flag_of(e.field()) + ": " + e.what());
  }
}

namespace {

// cuBLAS and cuDNN take 32-bit dimensions, and no GPU holds a tensor of 2^48 elements: sizes past either are
// refused here, in double, before the models multiply them in 64-bit integers.
constexpr double kMaxDimension = 2147483647.0;
constexpr double kMaxElements = 281474976710656.0;  // 2^48

using SizeFlag = std::pair<const char*, double>;

void check_tensor(std::initializer_list<SizeFlag> sizes) {
  double elements = 1;
  std::string flags;
  for (const auto& [flag, value] : sizes) {
    if (value > kMaxDimension) {
      throw ToolInputError(std::string(flag) + ": at most 2147483647 (cuBLAS and cuDNN take 32-bit dimensions)");
    }
    elements *= std::max(value, 1.0);
    flags += (flags.empty() ? "" : " x ") + std::string(flag);
  }
  if (elements > kMaxElements) {
    throw ToolInputError(flags + ": a tensor of more than 2^48 elements, which no GPU holds");
  }
}

}  // namespace

const std::vector<std::string>& kernel_op_names() {
  static const std::vector<std::string> names = {"gemm",      "copy",      "lstm",      "gru",       "conv",       "softmax",
                                                 "layernorm", "attention", "optimizer", "embedding", "elementwise"};
  return names;
}

std::vector<Kernel> kernel_op(const std::string& op, const KernelOpShape& shape, const GpuSpec& gpu, Precision p) {
  if (op == "gemm") {
    GemmShape s = shape.gemm;
    s.precision = p;
    return {gemm(gpu, s)};
  }
  if (op == "copy") {
    double b = 0;
    try {
      b = parse_quantity(shape.copy_bytes, Dimension::bytes, "B");
    } catch (const UnitError& e) {
      throw ToolInputError("--bytes " + shape.copy_bytes + ": " + e.what());
    }
    if (!(b >= 1)) throw ToolInputError("--bytes " + shape.copy_bytes + ": a copy needs at least one byte");
    return copy_op(b);
  }
  if (op == "lstm" || op == "gru") {
    RecurrentShape s = shape.recurrent;
    const double gates = op == "lstm" ? 4 : 3, input = s.input > 0 ? s.input : s.hidden;
    check_tensor({{"--hidden", s.hidden}, {"--input", input}});  // the weights, gates x hidden x (input + hidden)
    check_tensor({{"--steps", s.steps}, {"--batch", s.batch}, {"--hidden", gates * (input + s.hidden)}});
    s.cell = op == "lstm" ? RecurrentCell::lstm : RecurrentCell::gru;
    s.precision = p;
    return recurrent_layer(gpu, s);
  }
  if (op == "conv") {
    ConvShape s = shape.conv;
    s.precision = p;
    if (shape.conv_pass != "fprop" && shape.conv_pass != "dgrad" && shape.conv_pass != "wgrad") {
      throw ToolInputError("--pass " + shape.conv_pass + ": give fprop, dgrad or wgrad");
    }
    const ConvPass cp = shape.conv_pass == "fprop"   ? ConvPass::forward
                        : shape.conv_pass == "dgrad" ? ConvPass::backward_data
                                                     : ConvPass::backward_weight;
    if (s.pad > 1073741823) throw ToolInputError("--pad: at most 1073741823 (twice it must be a 32-bit size)");
    check_tensor({{"--batch", s.n}, {"--c", s.c}, {"--h", s.h}, {"--w", s.w}});
    check_tensor({{"--k", s.k}, {"--c", s.c}, {"--r", s.r}, {"--s", s.s}});
    if (s.out_h() < 1 || s.out_w() < 1) throw ToolInputError("--r/--s: the filter is larger than the padded input");
    check_tensor({{"--batch", s.n}, {"--k", s.k}, {"--h", s.out_h()}, {"--w", s.out_w()}});
    return {conv2d(gpu, s, cp)};
  }
  if (op == "softmax") return softmax(shape.rows, shape.cols, p, shape.backward);
  if (op == "layernorm") return layer_norm(shape.rows, shape.cols, p, shape.backward);
  if (op == "attention") {
    AttentionShape s = shape.attention;
    s.precision = p;
    return attention(gpu, s, !shape.unfused);
  }
  if (op == "optimizer") {
    OptimizerStep s = shape.optimizer;
    const auto kind = kOptimizerKindNames.parse(shape.optimizer_kind);
    if (!kind) throw ToolInputError("--kind " + shape.optimizer_kind + ": give one of sgd, momentum, adam, adamw, lamb");
    const auto impl = kOptimizerImplNames.parse(shape.optimizer_impl);
    if (!impl) throw ToolInputError("--impl " + shape.optimizer_impl + ": give one of unfused, foreach, fused");
    s.kind = *kind;
    s.impl = *impl;
    if (s.tensors > s.parameters) throw ToolInputError("--tensors: more tensors than --params");
    return optimizer_step(s);
  }
  if (op == "embedding") {
    EmbeddingShape s = shape.embedding;
    s.precision = p;
    return shape.backward ? embedding_scatter_add(s) : embedding_gather(s);
  }
  if (op == "elementwise") {
    ElementwiseChain s = shape.chain;
    s.precision = p;
    return elementwise_chain(s);
  }
  std::string known;
  for (const std::string& name : kernel_op_names()) known += " " + name;
  throw ToolInputError("unknown op '" + op + "' (known:" + known + ")");
}

std::vector<KernelTwin> kernel_op_twins(const std::string& op, const KernelOpShape& shape, const GpuSpec& gpu,
                                        Precision precision, const std::vector<Kernel>& kernels) {
  if (op == "gemm") {
    GemmShape s = shape.gemm;
    s.precision = precision;
    return {gemm_twin(gpu, s)};
  }
  std::vector<KernelTwin> twins;
  if (op == "copy" || op == "elementwise") {  // streaming kernels: a twin launch for launch
    for (const Kernel& k : kernels) twins.push_back(streaming_twin(k));
  }
  return twins;
}

std::string kernel_ops_with_twins() { return "copy, elementwise, gemm"; }

void check_twin_limits(const std::vector<KernelTwin>& twins, const SourceLoc& where, const std::string& what) {
  for (const KernelTwin& t : twins) {
    if (!t.available) continue;
    const KernelLaunch& launch = t.program.launch;
    check_count(CountLimit::blocks, static_cast<double>(launch.blocks), where, what);
    if (t.options.all_sms) {
      const double warps = static_cast<double>(launch.blocks) * std::ceil(launch.threads_per_block / 32.0);
      check_count(CountLimit::warp_instructions, warps * issued_per_warp(t.program), where, what);
    }
  }
}

}  // namespace hpcsim
