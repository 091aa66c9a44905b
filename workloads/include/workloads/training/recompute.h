#pragma once
// How backward gets the activations it needs (a scenario's workload.activation_checkpointing):
//  - none: every layer keeps what its backward reads;
//  - full: each checkpoint unit (a transformer block, a ResNet stage's block) keeps only its input and runs
//    its forward again before its backward (Chen et al. 2016; Megatron's --recompute-granularity full with
//    --recompute-method uniform, one layer per unit);
//  - selective: only the core attention is recomputed (Korthikanti et al. 2022, "Reducing Activation
//    Recomputation in Large Transformer Models", section 5; Megatron's --recompute-granularity selective,
//    Megatron-Core's recompute_modules default ["core_attn"]): it drops the attention probabilities (5 a s^2 b
//    bytes per layer unfused) for one core-attention forward per layer in backward.
// In YAML `true` is full and `false` none (the key was a switch first); `full` and `selective` name them.
#include "configs/enum_names.h"

namespace hpcsim {

enum class Recompute { none, full, selective };

inline constexpr EnumNames<Recompute, 3> kRecomputeNames{
    {{{Recompute::none, "false"}, {Recompute::full, "full"}, {Recompute::selective, "selective"}}}};

}  // namespace hpcsim
