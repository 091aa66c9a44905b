#pragma once
// Compile-mode fusion (torch.compile, XLA, MXNet hybridize, Megatron's hand-fused kernels): a pass over a
// model's layer kernels in network order that folds elementwise-only layers (activations, dropout,
// residual and position adds) into a neighbouring kernel. A fused-away kernel's launches disappear and the
// intermediate tensor no longer crosses HBM (its read always, its write unless something still needs it
// there: another consumer, or a backward pass that saves it); its math stays.
#include <cstdint>
#include <string>
#include <vector>

#include "configs/enum_names.h"
#include "workloads/layers/layer.h"

namespace hpcsim {

struct Model;

// Where fused elementwise work may go.
//  none:     nothing fuses (eager PyTorch, TF, MXNet, JAX op-by-op).
//  chains:   into other elementwise or normalization kernels only (epilogue of an elementwise/norm
//            producer, or prologue of a norm consumer, as Inductor's pointwise+reduction fusion or
//            Megatron's bias-dropout-add and fused add+layernorm); GEMMs and convolutions stay library calls.
//  epilogue: also into the epilogue of the producing GEMM or convolution (XLA's cuBLASLt/Triton epilogues).
enum class FusionScope { none, chains, epilogue };
inline constexpr EnumNames<FusionScope, 3> kFusionScopeNames{
    {{{FusionScope::none, "none"}, {FusionScope::chains, "chains"}, {FusionScope::epilogue, "epilogue"}}}};
inline std::string to_string(FusionScope scope) { return std::string(kFusionScopeNames.name(scope)); }

// One layer as the pass sees it: its Layer::type() and the layers feeding it.
struct FusionLayer {
  std::string type;
  LayerTraits traits;
  std::vector<int> inputs;  // indices into the same list, in input order; -1 for a network input
};

// The layers of every network of `model`, each network's layers in node order (the order the training
// step lists them), with their inputs as indices into that list.
std::vector<FusionLayer> fusion_layers(const Model& model);

struct FusionStats {
  std::int64_t launches_removed = 0;
  double bytes_removed = 0;  // global-memory bytes the kernels no longer request
  int forward_fused = 0;     // layers whose forward kernel was folded into another
  int backward_fused = 0;    // layers whose backward-data kernel was folded into another
};

// Fuses in place. `per_layer[i]` are the kernels of `layers[i]`; a fused-away phase becomes empty (the host
// kernel carries its work). Forward: an elementwise layer folds into the kernel that writes its input
// (epilogue), else into the first kernel of a normalization layer that reads its output (prologue).
// Backward: an activation's or dropout's backward kernel folds into the kernel that writes the gradient
// it reads (the epilogue of its consumer's input-gradient kernel), when that gradient has no other reader.
// Throws std::invalid_argument when the two lists differ in length or an input index is out of range.
FusionStats fuse_elementwise_chains(std::vector<LayerKernels>& per_layer, const std::vector<FusionLayer>& layers,
                                    FusionScope scope);

}  // namespace hpcsim
