#pragma once
// The one layer interface. A layer holds only its own configuration; the shapes of its inputs come with
// every call, so one layer object serves any input it accepts (Keras-style inference of input sizes).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/cpu/cpu_op_class.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/ops/fp8_cast.h"
#include "models/gpu/ops/op_kernel.h"
#include "models/gpu/precision.h"
#include "workloads/layers/shape.h"

namespace hpcsim {

// The kernels one layer launches in a training step, through GPU model I's op kernels.
struct LayerKernels {
  std::vector<Kernel> forward, backward_data, backward_weight;
};

// What a cost question is about: `batch` samples with tensors stored in `precision`, on one of `tp`
// tensor-parallel GPUs (Megatron-style: layers that split do their share, the others are replicated).
struct LayerRun {
  std::int64_t batch = 1;
  Precision precision = Precision::bf16;
  int tp = 1;
  // Image tensors stored channels-last (NHWC). Channels-first (NCHW, PyTorch's default) makes each
  // tensor-core convolution transpose its operands and result (cuDNN's nchwToNhwc / nhwcToNchw kernels).
  bool channels_last = true;
  // 16-bit self-attention as one fused kernel each way (FlashAttention, 2022 on); else scores through HBM.
  bool flash_attention = true;
  // A dense layer adds its bias in the GEMM epilogue; else with a pass of its own over the output.
  bool bias_epilogue = true;
  // Op-by-op execution (eager, no fusing compiler): small elementwise steps inside a layer are kernels of
  // their own, e.g. unfused attention's score scaling and masking and its head-merging copy.
  bool op_by_op = false;
  // The sequence is split over this many ranks outside tensor-parallel layers (Megatron's sequence
  // parallelism: tp, else 1). A tensor-parallel layer all-gathers its input for the forward GEMM but keeps
  // only its rank's share for backward, gathering it again there.
  int sequence_shards = 1;
  // > 0: the kernels were chosen once, for this batch, and run every batch (an inference engine built for
  // one optimization profile: conv2d_tuned_for); 0: chosen for the batch that runs.
  std::int64_t tuned_batch = 0;
  // Training under a narrow GEMM format (fp8, mxfp8, nvfp4, mxfp4) with Transformer Engine: each fp8 GEMM
  // layer casts its bf16 input and output gradient (layer_support's add_gemm_casts). Off for inference,
  // whose engines quantize inside the producing kernel.
  bool gemm_casts = false;
  // The layer's input is a normalization's output: Transformer Engine runs the pair as one LayerNormLinear
  // (Megatron-Core's TELayerNormColumnParallelLinear for QKV and fc1), whose norm writes fp8 itself.
  bool input_from_norm = false;
  // How an fp8 GEMM's per-tensor scales are found (Transformer Engine's recipe): delayed scaling (TE's
  // default, its amax recorded inside the cast) or current scaling (an amax pass before each cast).
  Fp8Scaling fp8_scaling = Fp8Scaling::delayed;
};

// What tensors between GEMMs are kept in: fp8 training (NVIDIA Transformer Engine's recipe) runs only the
// GEMMs in fp8 and everything else (attention's core, norms, activations, the values layers pass on) in bf16;
// its block-scaled recipes (mxfp8, nvfp4) likewise.
inline Precision between_gemms(Precision p) { return is_narrow_gemm_format(p) ? Precision::bf16 : p; }
// Activations a tensor-parallel layer all-reduces over its tp group per pass (bytes per GPU).
struct TensorParallelTraffic {
  double forward_bytes = 0;   // the output, summed over the group (row-parallel layers)
  double backward_bytes = 0;  // the input gradient, summed over the group (column-parallel layers)
};

// What selective activation recomputation (Megatron's --recompute-granularity selective, Korthikanti et al.
// 2022, section 5: "recompute the core attention", Megatron-Core's recompute_modules default core_attn) drops
// from a layer and redoes in backward: the core attention's kept activations and its forward kernels.
struct CoreRecompute {
  double activation_bytes = 0;  // per GPU, no longer kept between forward and backward
  std::vector<Kernel> forward;  // run again just before the layer's backward
  double forward_flops = 0;     // of the whole layer (all tp ranks), for hardware FLOPs
};

// How a layer splits over tensor-parallel GPUs: column-parallel layers shard their outputs (the next
// layers see a last dimension divided by tp), row-parallel layers consume a sharded input and all-reduce
// their output.
enum class TensorSplit { none, column, row };

// What the simulator asks of a layer besides its costs, declared by the layer itself: type() is only the
// name YAML and output spell, and nothing compares it.
struct LayerTraits {
  // What a compiler's fusion pass (torch.compile, XLA) needs to know.
  bool elementwise_forward = false;   // forward is one elementwise kernel over its input
  bool elementwise_backward = false;  // backward-data is one elementwise kernel reading the output gradient first
  bool normalization = false;         // a reduction over its input then a scale (norms, softmax)
  bool passes_gradient = false;       // backward hands the output gradient to every input unchanged (residual add)
  int input_parts = 1;                // streams its elementwise kernels read of its input (swiglu: [gate, up])
  // The tensor autograd saves for backward (PyTorch's tools/autograd/derivatives.yaml): it must reach HBM
  // even when the layer is fused into its producer.
  enum class Saves { nothing, input, output } saves = Saves::nothing;

  // What the layer is, for the questions a scenario or a model family asks.
  bool self_attention = false;  // dot-product self-attention: context parallelism's ring, flash or unfused kernels
  bool convolution = false;     // over image tensors, whose memory format (NCHW or NHWC) it is sensitive to
  bool recurrent = false;       // steps through its sequence (RNN cells, a decoder's additive attention)
  bool gathers_rows = false;    // reads rows of a table by index (embeddings): an embedding's rows by token id
  bool loss = false;            // the training loss: no part of a forward pass at inference
  // Transformer Engine provides fp8 for dense layers and attention projections only: under fp8 training every
  // other layer (convolutions and recurrent layers included) runs in bf16.
  bool fp8_gemms = false;
  // Normalizes with statistics over the batch and positions (batch norm): not token by token, and at eval a
  // fixed scale and shift that a frozen graph folds into the convolution before it.
  bool batch_statistics = false;

  // Activation memory.
  bool keeps_input = false;  // keeps its input for backward (weights' and max-pool's gradients read it)
  bool in_place = false;     // runs in place (torchvision's inplace=True ReLU): its output is its input's buffer
  // PyTorch parameter tensors when not a weight and a bias (a modulated convolution's five, a learned
  // constant's one), and buffers (tensors that are not trained).
  std::optional<int> parameter_tensors = std::nullopt;
  int buffer_tensors = 0;

  // Inference (eval mode) and its cost on CPU cores.
  bool eval_identity = false;  // hands its input on unchanged at eval (dropout)
  bool view = false;           // a view of its input: no data moves (flatten, first token)
  CpuOpClass cpu_op_class = CpuOpClass::streaming;
  // Framework ops one forward is, eager and compiled (before a compiler fuses elementwise layers away).
  int eager_ops = 1;
  int compiled_ops = 1;
};

// The precision a layer runs at under a step's `precision` (fp8 only where it has fp8 GEMMs).
inline Precision layer_precision(const LayerTraits& traits, Precision precision) {
  return traits.fp8_gemms ? precision : between_gemms(precision);
}

class Layer {
 public:
  virtual ~Layer() = default;
  virtual std::string type() const = 0;
  // Throws ShapeError when the inputs do not fit this layer.
  virtual Shape output_shape(const Shapes& in) const = 0;
  // Trainable parameters (batch-norm running statistics are buffers, not parameters).
  virtual std::int64_t params(const Shapes& in) const { (void)in; return 0; }
  // Weight elements one forward reads: its parameters, and weights it shares with another layer that counts
  // them (a dense layer tied to an embedding).
  virtual std::int64_t weights_read(const Shapes& in) const { return params(in); }
  // Forward FLOPs: 2 per multiply-add of a matrix product, 1 per elementwise operation.
  virtual double forward_flops(const Shapes& in, const LayerRun& run) const = 0;
  // Bytes of forward results this layer keeps until its backward pass.
  virtual double activation_bytes(const Shapes& in, const LayerRun& run) const = 0;
  virtual LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const = 0;

  // Tensor parallelism. `in` are the shapes this GPU sees (a row-parallel layer's input is already
  // sharded). Layers that do not split are replicated: every GPU of the group does all their work.
  virtual TensorSplit tensor_split() const { return TensorSplit::none; }
  virtual LayerTraits traits() const { return {}; }
  virtual std::int64_t params_per_rank(const Shapes& in, int tp) const { (void)tp; return params(in); }
  virtual TensorParallelTraffic tp_traffic(const Shapes& in, const LayerRun& run) const {
    (void)in, (void)run;
    return {};
  }
  // Layers without a core attention have nothing selective recomputation drops.
  virtual CoreRecompute core_recompute(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const {
    (void)gpu, (void)in, (void)run;
    return {};
  }
};

}  // namespace hpcsim
