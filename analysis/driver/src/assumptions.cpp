// Unstated settings that move a training prediction, and the interval that covers them.
#include "driver/assumptions.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "workloads/scenario/simulate_scenario.h"

namespace hpcsim {

namespace {

bool has_layer(const Model& model, bool LayerTraits::*trait) {
  for (const Network& net : model.networks) {
    for (const LayerNode& node : net.nodes()) {
      if (node.layer && node.layer->traits().*trait) return true;
    }
  }
  return false;
}

bool stated(const ConfigNode& root, const char* section, const char* key) {
  const ConfigNode* s = root.find(section);
  return s != nullptr && s->find(key) != nullptr;
}

// One data-parallel replica of the run (dp 1, on the nodes its tp x pp x cp GPUs need), without the input
// pipeline: what a setting that changes only a replica's compute is screened on.
TrainingScenario replica_of(const TrainingScenario& s) {
  TrainingScenario r = s;
  const int gpus = s.parallelism.layout.model_parallel();
  r.parallelism.layout.dp = 1;
  r.cluster.gpus_per_node = std::min(s.cluster.gpus_per_node, gpus);
  r.cluster.nodes = (gpus + r.cluster.gpus_per_node - 1) / r.cluster.gpus_per_node;
  r.dataset.reset();
  return r;
}

struct Candidate {
  std::string setting, assumed, default_of, alternative;
  std::function<void(TrainingScenario&)> apply;  // sets the alternative
  bool compute_only = true;                      // changes a replica's compute alone (screened on a replica)
};

std::optional<double> step_time(const TrainingScenario& s) {
  try {
    return simulate_scenario(s).result.step_time_s;
  } catch (const std::exception&) {
    return std::nullopt;  // an alternative the simulator refuses is not one the run could have taken
  }
}

}  // namespace

// Sources (each profile's own file names its defaults' sources):
// [CL]   PyTorch tutorial "Channels Last Memory Format in PyTorch" (1.5+): channels_last is the user's opt-in;
//        NVIDIA DLE ConvNets turn it on under AMP.
// [SDPA] whether attention calls torch.nn.functional.scaled_dot_product_attention or matmul-softmax-matmul
//        is the model code's choice (e.g. Hugging Face attn_implementation "sdpa" / "eager").
// [DDP]  Li et al., "PyTorch Distributed", VLDB 2020: DistributedDataParallel always reduces its buckets
//        during backward; there is no switch to reduce after it.
// [TPSP] torch.distributed.tensor.parallel.SequenceParallel: opt-in with tensor parallelism.
// [MLM]  Megatron-LM arguments.py: --overlap-grad-reduce and --sequence-parallel are opt-in flags;
//        Megatron-Core and NeMo run attention through Transformer Engine's fused / flash kernels (no eager
//        attention path to choose); the 2021 code's unfused attention is a stated setting.
//        --overlap-param-gather (with --use-distributed-optimizer) is opt-in too. DeepSpeed's ZeRO-1/2 and
//        PyTorch's ZeroRedundancyOptimizer gather the parameters after the step: nothing to choose.
// [KDF]  tf.keras.layers.Conv2D data_format, MXNet Convolution layout: the user's argument (tf_cnn_benchmarks
//        and NVIDIA's MXNet ResNet set it). Neither has a fused attention kernel to choose (Keras
//        MultiHeadAttention, MXNet interleaved_matmul). MXNet's KVStore / Horovod push gradients during
//        backward; TensorFlow's training loop decides: Horovod's DistributedOptimizer reduces during
//        backward, DLE TF2 BERT's model_training_utils.py all-reduces after the last accumulation step.
// [JAX]  flax.linen.Conv takes NHWC only; jax.nn.dot_product_attention(implementation="cudnn") or plain
//        XLA is the model's choice; XLA schedules the gradient all-reduce asynchronously; MaxText / Praxis
//        shard activations by sequence through their logical axis rules.
// [TPO]  Megatron-LM arguments.py: --tp-comm-overlap is opt-in and asserts --sequence-parallel; NeMo's
//        large-model recipes set tp_comm_overlap (MegatronCommOverlapCallback). The other profiles have no
//        userbuffers-style overlap a scenario could mean (PyTorch's async tensor parallelism is an
//        experimental inductor pass; XLA's collective matmul is not modelled): fixed off.
OpenSettings open_settings(const std::string& framework) {
  //                   memory_format attention overlap sequence_parallel param_gather tp_comm_overlap
  if (framework == "pytorch") return {true, true, false, true, false, false};     // [CL] [SDPA] [DDP] [TPSP] [TPO]
  if (framework == "pytorch1") return {true, false, false, false, false, false};  // [CL]; no SDPA before 2.0; [DDP]; no TP API
  if (framework == "megatron") return {false, false, true, true, true, true};     // no convolutions; [MLM] [TPO]
  if (framework == "tensorflow" || framework == "tensorflow1") return {true, false, true, false, false, false};  // [KDF]
  if (framework == "mxnet") return {true, false, false, false, false, false};     // [KDF]
  if (framework == "jax") return {false, true, false, true, false, false};        // [JAX] [TPO]
  return {};
}

std::vector<Assumption> unstated_assumptions(const TrainingScenario& s, const ConfigNode& root,
                                             const TrainingStepReport& step, int full_simulation_gpus) {
  const WorkloadConfig& w = s.workload;
  const ParallelLayout& layout = s.parallelism.layout;
  const std::string framework = "framework " + s.framework.name;
  const OpenSettings open = open_settings(s.framework.name);
  std::vector<Candidate> candidates;
  if (open.memory_format && !w.memory_format && has_layer(w.built, &LayerTraits::convolution)) {
    const MemoryFormat f = s.framework.memory_format;
    const MemoryFormat other = f == MemoryFormat::nchw ? MemoryFormat::nhwc : MemoryFormat::nchw;
    candidates.push_back({"workload.memory_format", std::string(kMemoryFormatNames.name(f)), framework,
                          std::string(kMemoryFormatNames.name(other)), [other](TrainingScenario& t) { t.workload.memory_format = other; }});
  }
  if (open.attention && !w.attention && has_layer(w.built, &LayerTraits::self_attention)) {
    const AttentionKernel k = s.framework.attention;
    const AttentionKernel other = k == AttentionKernel::flash ? AttentionKernel::unfused : AttentionKernel::flash;
    candidates.push_back({"workload.attention", std::string(kAttentionKernelNames.name(k)), framework,
                          std::string(kAttentionKernelNames.name(other)), [other](TrainingScenario& t) { t.workload.attention = other; }});
  }
  if (open.sequence_parallel && !stated(root, "parallelism", "sequence_parallel") && layout.tp > 1 && !s.parallelism.sequence_parallel) {
    candidates.push_back({"parallelism.sequence_parallel", "false", "hpcsim's default", "true",
                          [](TrainingScenario& t) { t.parallelism.sequence_parallel = true; }});
  }
  // Only where sequence parallelism is on (Megatron asserts it); the collectives are the replica's own.
  if (open.tp_comm_overlap && !w.tp_comm_overlap && layout.tp > 1 && s.parallelism.sequence_parallel) {
    candidates.push_back({"workload.tp_comm_overlap", "false", framework, "true",
                          [](TrainingScenario& t) { t.workload.tp_comm_overlap = true; }});
  }
  // The data-parallel collectives' summed durations bound what overlapping them can hide or expose.
  if (open.overlap_gradient_reduce && !w.overlap_gradient_reduce && layout.replicas() > 1 && step.allreduce_time_s >= kAssumptionScreen * step.result.step_time_s) {
    const bool d = s.framework.overlaps_gradient_reduce;
    candidates.push_back({"workload.overlap_gradient_reduce", d ? "true" : "false", framework, d ? "false" : "true",
                          [d](TrainingScenario& t) { t.workload.overlap_gradient_reduce = !d; }, false});
  }
  const bool sharded_optimizer = s.parallelism.zero == 1 || s.parallelism.zero == 2;
  if (open.overlap_param_gather && sharded_optimizer && !stated(root, "workload", "overlap_param_gather") && layout.replicas() > 1 &&
      step.allreduce_time_s >= kAssumptionScreen * step.result.step_time_s) {
    candidates.push_back({"workload.overlap_param_gather", "false", framework, "true",
                          [](TrainingScenario& t) { t.workload.overlap_param_gather = true; }, false});
  }

  const double predicted = step.result.step_time_s;
  const bool replicated = layout.dp > 1 || s.dataset.has_value();  // else the replica is the run itself
  const bool estimate = step.result.gpus > full_simulation_gpus;
  std::optional<TrainingScenario> replica;
  std::optional<double> replica_step;
  std::vector<Assumption> out;
  const auto list = [&](const Candidate& c, double t, bool estimated) {
    const double change = t / predicted - 1;
    if (std::abs(change) > kAssumptionThreshold) out.push_back({c.setting, c.assumed, c.default_of, {{c.alternative, t, change, estimated}}});
  };
  for (const Candidate& c : candidates) {
    if (c.compute_only && replicated) {
      if (!replica) {
        replica = replica_of(s);
        replica_step = step_time(*replica);
      }
      TrainingScenario alt = *replica;
      c.apply(alt);
      const std::optional<double> t = step_time(alt);
      if (replica_step && t) {
        const double moved = *t - *replica_step;
        if (std::abs(moved) < kAssumptionScreen * predicted) continue;
        if (estimate) {
          list(c, predicted + moved, true);
          continue;
        }
      }
    }
    TrainingScenario alt = s;
    c.apply(alt);
    if (const std::optional<double> t = step_time(alt)) list(c, *t, false);
  }
  return out;
}

PredictionInterval cover_assumptions(PredictionInterval interval, const std::vector<Assumption>& assumptions) {
  double low = 1, high = 1;  // the alternatives' predictions over the run's
  for (const Assumption& a : assumptions) {
    for (const AssumptionAlternative& alt : a.alternatives) {
      low = std::min(low, 1 + alt.change), high = std::max(high, 1 + alt.change);
    }
  }
  interval.low_s *= low;
  interval.high_s *= high;
  return interval;
}

}  // namespace hpcsim
