#include "models/gpu/ops/optimizer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hpcsim {

namespace {

// One elementwise kernel of an optimizer: tensors read and written per parameter, FLOPs per parameter.
struct Pass {
  int reads, writes;
  double flops;
};

// The kernels PyTorch's torch.optim launches per tensor in the single-tensor (for-loop) path
// (torch/optim/sgd.py, adam.py, adamw.py): e.g. Adam's exp_avg.lerp_, exp_avg_sq.mul_, .addcmul_,
// sqrt, div, add_(eps), param.addcdiv_; AdamW first decays the parameter (param.mul_).
std::vector<Pass> unfused_passes(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::sgd: return {{2, 1, 2}};
    case OptimizerKind::momentum: return {{2, 1, 2}, {2, 1, 2}};
    case OptimizerKind::adam: return {{2, 1, 3}, {1, 1, 1}, {2, 1, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {3, 1, 3}};
    case OptimizerKind::adamw:
      return {{1, 1, 1}, {2, 1, 3}, {1, 1, 1}, {2, 1, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {3, 1, 3}};
    // Adam's moment updates, the update tensor, two norm reductions (read-only passes) and the scaled step.
    case OptimizerKind::lamb:
      return {{2, 1, 3}, {2, 1, 3}, {3, 1, 5}, {1, 0, 2}, {1, 0, 2}, {2, 1, 2}};
  }
  return {};
}

// The single fused pass: parameters, gradients and each state tensor read; parameters and state written.
Pass fused_pass(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::sgd: return {2, 1, 2};
    case OptimizerKind::momentum: return {3, 2, 4};
    case OptimizerKind::adam: return {4, 3, 16};
    case OptimizerKind::adamw: return {4, 3, 18};
    // NVIDIA's FusedLAMB: a fused moment/update pass that stores the update, the norms, then the step.
    case OptimizerKind::lamb: return {4, 3, 22};
  }
  return {};
}

// PyTorch's multi_tensor_apply (aten/src/ATen/native/cuda/MultiTensorApply.cuh) packs at most
// depth_to_max_tensors[depth-1] = {110, 64, 48, 36, 30} tensors and 320 blocks of 65536-element
// chunks into one launch.
double multi_tensor_launches(const OptimizerStep& s, int depth) {
  static constexpr int kMaxTensors[] = {110, 64, 48, 36, 30};
  const double per_launch = kMaxTensors[std::clamp(depth, 1, 5) - 1];
  const double chunks = s.parameters / 65536.0 + static_cast<double>(s.tensors);
  return std::max({1.0, std::ceil(static_cast<double>(s.tensors) / per_launch), std::ceil(chunks / 320)});
}

Kernel pass_kernel(const char* name, const Pass& p, double elements, double e, std::int64_t count) {
  std::vector<ElementStream> streams(static_cast<std::size_t>(p.reads), ElementStream{e, false});
  for (int i = 0; i < p.writes; ++i) streams.push_back({e, true});
  Kernel k = elementwise_kernel(name, elements, p.flops, streams);
  k.count = count;
  return k;
}

}  // namespace

std::vector<Kernel> optimizer_step(const OptimizerStep& s) {
  if (!(s.parameters >= 1) || s.tensors < 1 || s.tensors > s.parameters) {
    throw std::invalid_argument("an optimizer step needs parameters >= tensors >= 1");
  }
  const double e = bytes_per_element(s.precision);
  std::vector<Kernel> out;
  if (s.impl == OptimizerImpl::fused) {
    const Pass p = fused_pass(s.kind);
    const double launches = multi_tensor_launches(s, p.reads);
    out.push_back(pass_kernel("optimizer_fused", p, s.parameters / launches, e, static_cast<std::int64_t>(launches)));
    return out;
  }
  for (const Pass& p : unfused_passes(s.kind)) {
    if (s.impl == OptimizerImpl::foreach) {
      const double launches = multi_tensor_launches(s, p.reads + p.writes - 1);
      out.push_back(pass_kernel("optimizer_foreach", p, s.parameters / launches, e, static_cast<std::int64_t>(launches)));
    } else {
      const double per_tensor = s.parameters / static_cast<double>(s.tensors);
      out.push_back(pass_kernel("optimizer_per_tensor", p, per_tensor, e, s.tensors));
    }
  }
  return out;
}

}  // namespace hpcsim
