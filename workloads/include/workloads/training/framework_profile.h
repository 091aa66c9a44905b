#pragma once
// A deep-learning framework as configs/frameworks/<name>.yaml describes it: one global software profile
// that holds for every run with it (how it dispatches kernels, what it fuses, whether it replays CUDA
// graphs, its data-loader and optimizer defaults), never a per-case constant.
#include <cstdint>
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/enum_names.h"
#include "configs/schema.h"
#include "models/gpu/ops/optimizer.h"
#include "workloads/training/compile_fusion.h"
#include "workloads/training/kernel_issue.h"

namespace hpcsim {

// The layout of image tensors: channels-first (NCHW, PyTorch's default) or channels-last (NHWC).
enum class MemoryFormat { nchw, nhwc };
inline constexpr EnumNames<MemoryFormat, 2> kMemoryFormatNames{{{{MemoryFormat::nchw, "nchw"}, {MemoryFormat::nhwc, "nhwc"}}}};

// Self-attention's kernels: one fused kernel each way (FlashAttention), or one per step, scores through HBM.
enum class AttentionKernel { flash, unfused };
inline constexpr EnumNames<AttentionKernel, 2> kAttentionKernelNames{
    {{{AttentionKernel::flash, "flash"}, {AttentionKernel::unfused, "unfused"}}}};

// How the framework runs a training step in one mode.
struct ExecutionMode {
  double dispatch_s = 0;  // host time per kernel launch, over a training step's mix of forward and backward
  // Host time per op when every op is called from Python, as in an eager forward pass (inference): no
  // backward ops launched by the C++ autograd engine to average with. dispatch_s unless the profile says.
  double forward_dispatch_s = 0;
  // Host time per op to record its autograd node when a forward pass runs with grad mode on (no
  // torch.no_grad / inference_mode): an inference setup with workload.no_grad false adds it to
  // forward_dispatch_s in eager mode. 0: the framework records nothing per op.
  double autograd_record_s = 0;
  FusionScope fusion = FusionScope::none;
  bool cuda_graphs = false;

  IssueMode issue() const { return {dispatch_s, cuda_graphs}; }
  IssueMode forward_issue() const { return {forward_dispatch_s, cuda_graphs}; }
};

struct FrameworkProfile {
  std::string name;
  // false: an inference runtime (TensorRT, ONNX Runtime), which a training workload refuses.
  bool trains = true;
  // Inference runtimes that hold the weights as constants of their graph (TensorRT engines, ONNX Runtime's
  // initializers): an eval-mode batch norm folds into the preceding convolution's weights and bias (no
  // kernel runs for it) and the math library packs each weight once, at load. PyTorch does so only when a
  // compiled graph is frozen (workload.freeze).
  bool freezes_weights = false;
  // Inference engines with variable-length kernels (TensorRT's BERT plugins) concatenate a batch's
  // sequences and run their real tokens: no padding to the longest or to seq_len.
  bool packs_sequences = false;
  // Inference engines whose kernels are chosen once, for the largest batch they have run, and then serve
  // every batch (ONNX Runtime's TensorRT provider rebuilds its engine with the optimization profile's
  // optimum set to the largest shape seen; TensorRT picks the fastest kernels at the optimum). A serving
  // endpoint's largest batch is its max_batch.
  bool tunes_for_largest_batch = false;
  ExecutionMode eager;     // the framework's ordinary execution (op by op)
  ExecutionMode compiled;  // its compiler: torch.compile, XLA (jax.jit, jit_compile=True), hybridize
  bool has_compiled = true;  // false: the framework has no compiler (compile: true is an error)
  bool compiled_by_default = false;  // jax: a training step is a jitted function
  int loader_workers_per_gpu = 0;    // 0: samples are loaded by the training process itself
  OptimizerImpl optimizer = OptimizerImpl::foreach;
  MemoryFormat memory_format = MemoryFormat::nchw;  // default image layout
  bool overlaps_gradient_reduce = true;  // data-parallel gradients reduced during backward (DDP buckets)
  // Gradient buckets of max(bucket_params, bucket_params_per_replica x replicas) parameters; 0: DDP's 25 MB.
  std::int64_t bucket_params = 0, bucket_params_per_replica = 0;
  AttentionKernel attention = AttentionKernel::flash;  // for 16-bit self-attention
  // A dense layer's bias added in the GEMM's epilogue (cuBLASLt) rather than by a pass of its own over the
  // output (PyTorch before 1.12 copies the bias into the output and runs the GEMM with beta = 1).
  bool linear_bias_epilogue = true;

  // The mode a run gets: compiled when asked for (compile: true) or when the framework always compiles.
  const ExecutionMode& mode(bool compile) const { return compile || compiled_by_default ? compiled : eager; }
};

const Schema& framework_profile_schema();
// Validates and parses one profile; ConfigError at the offending node.
FrameworkProfile parse_framework_profile(const ConfigNode& node, std::string name);
// configs/frameworks/<name>.yaml through the catalog; an unknown name is a ConfigError at `name_node`.
FrameworkProfile load_framework_profile(const SpecCatalog& catalog, const ConfigNode& name_node);

}  // namespace hpcsim
