#pragma once
// Optimizer steps over `parameters` values held in `tensors` tensors, as PyTorch implements them:
// unfused (a loop over tensors, several elementwise kernels each), foreach (the same kernels, each over
// many tensors per multi-tensor-apply launch) and fused (one pass per launch).
#include <cstdint>
#include <vector>

#include "configs/enum_names.h"
#include "models/gpu/ops/op_kernel.h"

namespace hpcsim {

// lamb: AdamW's moments plus a per-tensor trust ratio ||w|| / ||update|| (You et al. 2020, algorithm 2).
enum class OptimizerKind { sgd, momentum, adam, adamw, lamb };
enum class OptimizerImpl { unfused, foreach, fused };

inline constexpr EnumNames<OptimizerKind, 5> kOptimizerKindNames{{{{OptimizerKind::sgd, "sgd"},
                                                                    {OptimizerKind::momentum, "momentum"},
                                                                    {OptimizerKind::adam, "adam"},
                                                                    {OptimizerKind::adamw, "adamw"},
                                                                    {OptimizerKind::lamb, "lamb"}}}};
inline constexpr EnumNames<OptimizerImpl, 3> kOptimizerImplNames{
    {{{OptimizerImpl::unfused, "unfused"}, {OptimizerImpl::foreach, "foreach"}, {OptimizerImpl::fused, "fused"}}}};

struct OptimizerStep {
  OptimizerKind kind = OptimizerKind::adamw;
  OptimizerImpl impl = OptimizerImpl::fused;
  double parameters = 0;
  std::int64_t tensors = 1;
  Precision precision = Precision::fp32;  // of parameters, gradients and state
};

std::vector<Kernel> optimizer_step(const OptimizerStep& step);

}  // namespace hpcsim
