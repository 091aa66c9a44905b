#pragma once
// The training step's builder: per-stage costs, the execution graph, memory. Private to the training step;
// model_training_step.h says what the step models.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gan_kernels.h"
#include "models/collectives/isolated_collectives.h"
#include "layer_costs.h"
#include "sm_contention.h"
#include "models/collectives/collective_group.h"
#include "models/collectives/collective_runner.h"
#include "models/network/cluster_fabric.h"
#include "models/platform/platform.h"
#include "sim-core/execution_graph.h"
#include "sim-core/executor.h"
#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"
#include "workloads/training/model_training_step.h"

namespace hpcsim::training_detail {

enum OpKind : OpType { kFixedDuration = 0, kCollective = 1 };
enum Tag : OpTag { kComputeTag = 0, kCommunicationTag = 1, kOptimizerTag = 2 };

// The run's layout with dp resolved (0: every GPU the model-parallel degrees leave); std::invalid_argument
// for degrees below 1 or more GPUs than the cluster has.
ParallelLayout make_layout(const ClusterConfig& cluster, const TrainingRun& run);

// Contiguous cut of the layers into `parts` runs of about equal forward + backward time (cut points, parts + 1).
std::vector<std::size_t> partition_by_time(const std::vector<LayerCost>& costs, int parts);

// One virtual stage (a contiguous run of layers) for one microbatch on one GPU.
struct StageCost {
  std::size_t first = 0, last = 0;  // layers [first, last)
  double forward_s = 0, backward_s = 0, recompute_s = 0;
  double tp_forward_s = 0, tp_backward_s = 0;  // blocking tensor/context-parallel communication
  double params = 0;
  std::int64_t tensors = 0;
  double activations = 0;             // kept per microbatch (with checkpointing: unit inputs only)
  double checkpoint_working_set = 0;  // one unit's activations while it is recomputed
  double send_bytes = 0;              // activations passed to the next virtual stage
  double forward_flops = 0;           // whole layers, all tp ranks
};

// A run of layers whose parameters are gathered (ZeRO-3) or whose gradients are reduced together.
struct Bucket {
  std::size_t first, last;  // layers
  double params;
};

// Iterations in one step of a GAN recipe: the lazy-regularization cycle (both regularizers fall on the
// same iteration once per cycle), one without regularization.
int gan_iterations(const GanRecipe& g);

class StepBuilder {
 public:
  // GPU numbers are the job's; `placement` maps them to the platform's, where every fabric is built.
  StepBuilder(const Model& model, JobPlacement placement, const TrainingRun& run)
      : model_(model), placement_(std::move(placement)), cluster_(placement_.job_view()), run_(run),
        layout_(make_layout(cluster_, run)), gpu_(cluster_.node.gpu) {}
  StepBuilder(const StepBuilder&) = delete;
  StepBuilder& operator=(const StepBuilder&) = delete;

  // Costs, memory and the execution graph: everything that does not depend on other traffic.
  void prepare();
  // Instead of prepare(): the layer costs and the stage cut only, and the memory of the stage that needs
  // the most (what report() gives), without the fabric or the graph.
  TrainingMemory estimate_memory();
  // Runs the graph on the platform from now; the data-parallel collectives use the job's GPUs there.
  void start(Platform& platform, JobId job);
  bool finished() const;
  Executor* executor() const { return executor_.get(); }
  ModelStepReport report() const;  // once finished (std::logic_error before)

 private:
  const Model& model_;
  const JobPlacement placement_;
  const ClusterConfig cluster_;  // the job's view: its node count, for the layout (no fabric from it)
  const TrainingRun& run_;
  ParallelLayout layout_;
  const GpuSpec& gpu_;
  std::vector<LayerCost> costs_;
  std::vector<StageCost> stages_;  // by virtual stage
  std::optional<IsolatedCollectives> tp_, cp_;

  ExecutionGraph graph_;
  std::vector<double> seconds_;  // payload of fixed-duration ops
  struct Call {
    CollectiveOp op;
    double bytes;
    int stage;
  };
  std::vector<Call> calls_;  // payload of collective ops
  // Per pipeline stage, the data-parallel groups of its tp x cp ranks (they reduce at the same time).
  std::vector<std::vector<std::vector<int>>> dp_gpus_;
  std::vector<std::vector<OpId>> pass_ops_;  // per pipeline stage: its forward/backward ops
  int collectives_issued_ = 0;

  // While running on a platform.
  Platform* platform_ = nullptr;
  std::vector<std::vector<CollectiveGroup>> groups_;  // per pipeline stage, on the platform's fabric
  bool replay_ = false;
  bool by_symmetry_ = false;
  // With symmetry classes (the job alone on its platform): the links each running collective holds, so a
  // stage's collective replays repeated ring steps while no other stage's crosses its links.
  LinkLedger ledger_;
  std::unique_ptr<Executor> executor_;
  std::unique_ptr<SmContention> contention_;

  StreamId compute_stream(int stage) const { return stage; }
  StreamId dp_stream(int stage) const { return layout_.pp + stage; }
  StreamId p2p_stream(int v, bool forward) const {
    return 2 * layout_.pp + (forward ? 0 : layout_.virtual_stages()) + v;
  }
  // The timeline lane of a stream, read back from the numbering above.
  std::string lane(StreamId stream) const;

  OpId fixed(std::string name, double seconds, StreamId stream, OpTag tag) {
    seconds_.push_back(seconds);
    return graph_.add_op(OpSpec{std::move(name), kFixedDuration, stream, seconds_.size() - 1, tag, {}});
  }
  OpId collective(std::string name, CollectiveOp op, double bytes, int stage) {
    calls_.push_back({op, bytes, stage});
    ++collectives_issued_;
    return graph_.add_op(OpSpec{std::move(name), kCollective, dp_stream(stage), calls_.size() - 1,
                                kCommunicationTag, {}});
  }

  void cost_layers();  // costs_; std::invalid_argument for tp > 1 on a model with no tensor-parallel layer
  void cost_stages();
  void plan_groups();
  // Seconds to pass virtual stage v's output to stage v + 1 (the same back for its gradient), per v.
  std::vector<double> p2p_seconds();
  std::vector<Bucket> buckets(const StageCost& s, double bucket_bytes, bool by_unit) const;
  void build();
  void build_gan();
  bool is_gan() const { return model_.adversarial; }
  double optimizer_seconds(double params, std::int64_t tensors) const;
  TrainingMemory stage_memory(int stage) const;
  TrainingMemory peak_memory() const;  // the stage that needs the most
};

}  // namespace hpcsim::training_detail
