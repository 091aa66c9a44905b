#pragma once
// The plan of one training step: what each virtual stage costs, the memory of the GPU that needs the most,
// the step's FLOPs and its execution graph, all fixed before anything runs. Planning needs the cluster and
// the job's nodes but no Platform: tensor- and context-parallel collectives and point-to-point routes are
// timed on idle machines of their own (they stay inside a node or on a stage pair's own links). Running a
// plan on a Platform, where data-parallel collectives share links with other traffic, is
// TrainingStepJob's (training_step_job.h); model_training_step.h says what the step models.
#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/collective_kind.h"
#include "models/platform/cluster_config.h"
#include "models/platform/platform.h"
#include "sim-core/execution_graph.h"
#include "workloads/layers/network.h"
#include "workloads/training/parallel_layout.h"
#include "workloads/training/training_memory.h"
#include "workloads/training/training_step_config.h"

namespace hpcsim {

// One virtual stage (a contiguous run of layers) for one microbatch on one GPU.
struct StageCost {
  std::size_t first = 0, last = 0;  // layers [first, last)
  double forward_s = 0, backward_s = 0, recompute_s = 0;
  double tp_forward_s = 0, tp_backward_s = 0;  // blocking tensor/context-parallel communication
  double params = 0;
  double cast_weights = 0;  // parameters cast to the narrow GEMM format once per step (fp8 training)
  std::int64_t tensors = 0;
  double activations = 0;             // kept per microbatch (with checkpointing: unit inputs only)
  double checkpoint_working_set = 0;  // one unit's activations while it is recomputed
  double send_bytes = 0;              // activations passed to the next virtual stage
  double forward_flops = 0;           // whole layers, all tp ranks
};

struct TrainingStepPlan {
  // The graph's op types (an op's payload indexes `seconds` or `collectives`) and its breakdown tags.
  enum OpKind : OpType { kFixedDuration = 0, kCollective = 1 };
  enum Tag : OpTag { kComputeTag = 0, kCommunicationTag = 1, kOptimizerTag = 2 };
  // A data-parallel collective: every tp x cp rank's group of `stage` runs it on its own shard at once.
  struct Collective {
    CollectiveOp op;
    double bytes;
    int stage;
  };

  JobPlacement placement;     // the job's nodes on the cluster, where its GPUs and routes are
  TrainingStepConfig config;
  ParallelLayout layout;      // dp resolved
  std::vector<StageCost> stages;  // by virtual stage
  // Per pipeline stage, the data-parallel groups (job GPU numbers) of its tp x cp ranks.
  std::vector<std::vector<std::vector<int>>> dp_gpus;

  ExecutionGraph graph;
  std::vector<double> seconds;              // payload of fixed-duration ops
  std::vector<Collective> collectives;      // payload of collective ops, in issue order
  std::vector<std::vector<OpId>> pass_ops;  // per pipeline stage: its forward/backward ops

  TrainingMemory memory;          // of the pipeline stage that needs the most
  double model_flops = 0;         // per GPU per step: 3 x forward FLOPs (backward counted as twice forward)
  double hardware_flops = 0;      // per GPU per step, recomputed forwards included
  double samples_per_step = 0;    // over all replicas (a GAN step's cycle of iterations included)

  // The graph's streams: each pipeline stage's compute, then each stage's data-parallel collectives, then
  // the point-to-point transfers after each virtual stage, forward and backward.
  StreamId compute_stream(int stage) const { return stage; }
  StreamId dp_stream(int stage) const { return layout.pp + stage; }
  StreamId p2p_stream(int v, bool forward) const {
    return 2 * layout.pp + (forward ? 0 : layout.virtual_stages()) + v;
  }
  // The timeline lane of a stream, read back from the numbering above.
  std::string lane(StreamId stream) const;
};

// The plan of one step of `model` for a job placed on `placement`'s nodes. std::invalid_argument as
// simulate_training_step (model_training_step.h). The plan keeps no reference to the model or the config.
TrainingStepPlan plan_training_step(const Model& model, JobPlacement placement, const TrainingStepConfig& config);
// The same, the job holding every node of the cluster.
TrainingStepPlan plan_training_step(const Model& model, const ClusterConfig& cluster, const TrainingStepConfig& config);

}  // namespace hpcsim
