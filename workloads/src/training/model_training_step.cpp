#include "workloads/training/model_training_step.h"

#include "workloads/training/training_step_job.h"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gan_kernels.h"
#include "layer_costs.h"
#include "models/collectives/collective_group.h"
#include "models/collectives/collective_runner.h"
#include "models/gpu/ops/op_kernel.h"
#include "models/network/cluster_fabric.h"
#include "sim-core/critical_path.h"
#include "sim-core/execution_graph.h"
#include "sim-core/executor.h"
#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"

#include "sm_contention.h"
#include "step_rates.h"
#include "step_builder.h"

namespace hpcsim {

namespace training_detail {

void StepBuilder::cost_layers() {
  costs_ = training_detail::layer_costs(model_, gpu_, run_);
  if (layout_.tp > 1) {
    bool splits = false;
    for (const LayerCost& c : costs_) splits |= c.node->layer->tensor_split() != TensorSplit::none;
    if (!splits) {
      throw std::invalid_argument("tp " + std::to_string(layout_.tp) + ": " + model_.name +
                                  " has no tensor-parallel layers (Megatron splits attention and MLP blocks)");
    }
  }
}

TrainingMemory StepBuilder::estimate_memory() {
  cost_layers();
  cost_stages();  // without tp_ and cp_: their communication times are zero, the cut and the memory are the same
  return peak_memory();
}

TrainingMemory StepBuilder::peak_memory() const {
  TrainingMemory peak;
  for (int s = 0; s < layout_.pp; ++s) {
    const TrainingMemory mem = stage_memory(s);
    if (mem.total() > peak.total()) peak = mem;
  }
  return peak;
}

void StepBuilder::prepare() {
  cost_layers();
  if (layout_.tp > 1) {
    std::vector<int> gpus;
    for (int r = 0; r < layout_.tp; ++r) gpus.push_back(layout_.gpu(0, 0, r, 0));
    tp_.emplace(placement_.platform, placement_.gpus(gpus));
  }
  if (layout_.cp > 1) {
    std::vector<int> gpus;
    for (int c = 0; c < layout_.cp; ++c) gpus.push_back(layout_.gpu(0, 0, 0, c));
    cp_.emplace(placement_.platform, placement_.gpus(gpus));
  }
  cost_stages();
  plan_groups();
  build();
}

void StepBuilder::start(Platform& platform, JobId job) {
  platform_ = &platform;
  Simulator& sim = platform.sim();
  groups_.assign(dp_gpus_.size(), {});
  for (std::size_t s = 0; s < dp_gpus_.size(); ++s) {
    for (const std::vector<int>& gpus : dp_gpus_[s]) {
      groups_[s].push_back(CollectiveGroup::of(platform.fabric(), placement_.gpus(gpus)));
    }
  }
  // Repeated steps replay only while one collective has the fabric to itself: the platform knows no other
  // job shares it, and this step runs one data-parallel collective at a time.
  const bool one_collective_at_a_time = layout_.pp == 1 && run_.zero < 3 && layout_.tp * layout_.cp == 1;
  replay_ = platform.alone(job) && one_collective_at_a_time;
  // Symmetric groups run as one representative (exact, collective_runner.h) unless the run asks for every
  // group, or other jobs' traffic could meet the representative's links where it does not stand for them.
  by_symmetry_ = platform.alone(job) && !run_.exact;
  executor_ = std::make_unique<Executor>(sim, graph_);
  // Compute overlapped with a data-parallel collective gets the SMs NCCL leaves it, for as long as they overlap.
  const double sms = gpu_.sm_count;
  contention_ = std::make_unique<SmContention>(sim, layout_.pp, (sms - cluster_.node.collective_sms) / sms);
  executor_->set_handler(kFixedDuration, [this](OpId op, Completion done) {
    const double t = seconds_[graph_.payload(op)];
    const StreamId stream = graph_.stream(op);
    if (graph_.tag(op) == kComputeTag && stream < static_cast<StreamId>(layout_.pp)) {
      contention_->start(static_cast<int>(stream), t, done);
    } else {
      platform_->sim().schedule_in(Time::seconds(t), [done] { done(); });
    }
  });
  executor_->set_handler(kCollective, [this](OpId op, Completion done) {
    const Call& call = calls_[graph_.payload(op)];
    CollectiveRequest request;
    request.op = call.op;
    request.bytes = call.bytes;
    // Only this job's collectives cross the fabric (by_symmetry_ needs the platform to itself), and a stage
    // issues one at a time: the ledger sees all traffic, so steps on links no one else holds replay.
    request.replay_repeated_steps = replay_ || by_symmetry_;
    if (by_symmetry_) request.ledger = &ledger_;
    // Every tp x cp rank's group reduces its own shard at once; the op ends with the last of them.
    const int stage = call.stage;
    SmContention* contention = contention_.get();
    contention->collective_started(stage);
    start_collectives(platform_->sim(), platform_->fair_share(), platform_->fabric(), groups_[stage], request,
                      by_symmetry_, [done, stage, contention](const CollectiveStats&) {
                        contention->collective_ended(stage);
                        done();
                      });
  });
  executor_->start();
}

bool StepBuilder::finished() const { return executor_ && executor_->finished(); }

ModelStepReport StepBuilder::report() const {
  if (!finished()) throw std::logic_error("the training step has not finished: no report yet");
  const Executor& executor = *executor_;
  const Time makespan = executor.makespan();
  const CriticalPath path = critical_path(executor);

  ModelStepReport report;
  report.stages = layout_.pp;
  report.gradient_buckets = collectives_issued_;
  for (OpId op = 0; op < graph_.size(); ++op) {
    if (graph_.type(op) == kCollective) report.allreduce_time_s += (executor.op_end(op) - executor.op_start(op)).to_seconds();
  }
  double forward_flops = 0;
  for (const StageCost& s : stages_) forward_flops += s.forward_flops;
  const double model_parallel = layout_.model_parallel();
  report.model_flops = 3 * forward_flops * run_.microbatches / model_parallel;
  double samples_per_step = static_cast<double>(run_.micro_batch) * run_.microbatches * layout_.dp;
  if (is_gan()) {
    // Forward-FLOP units per microbatch and iteration: each discriminator update G_f + 2 (D_f + 2 D_f),
    // the generator update G_f + D_f + D_f (input gradient) + 2 G_f; path length (at the shrunk batch)
    // and R1 each a forward, a data gradient and a double backward, 2 (F + 2F). A step is a cycle of
    // gan_iterations(), each consuming d_steps batches of real images.
    double gf = 0, df = 0;
    for (const LayerCost& c : costs_) (c.network == 0 ? gf : df) += c.forward_flops;
    const GanRecipe& gan = run_.gan;
    const int iterations = gan_iterations(gan);
    double flops = iterations * (run_.d_steps * (gf + 6 * df) + 3 * gf + 2 * df);
    if (gan.pl_interval > 0) {
      const double shrunk = static_cast<double>(std::max<std::int64_t>(1, run_.micro_batch / std::max(1, gan.pl_batch_shrink)));
      flops += (iterations / gan.pl_interval) * 6 * gf * shrunk / static_cast<double>(run_.micro_batch);
    }
    if (gan.r1_interval > 0) flops += (iterations / gan.r1_interval) * 6 * df;
    report.model_flops = flops * run_.microbatches;
    samples_per_step *= run_.d_steps * iterations;
  }
  report.hardware_flops = report.model_flops * (run_.activation_checkpointing ? 4.0 / 3.0 : 1.0);

  report.memory = peak_memory();

  StepResult& r = report.result;
  r.gpus = layout_.gpus();
  r.step_time_s = makespan.to_seconds();
  r.training_time_s = r.step_time_s;
  derive_step_rates(report, samples_per_step, gpu_.peak(run_.precision));
  r.layout = layout_;
  r.microbatches = run_.microbatches;
  r.global_batch = static_cast<double>(run_.micro_batch) * run_.microbatches * layout_.dp;
  double compute = path.time_by_tag[kComputeTag].to_seconds();
  double communication = path.time_by_tag[kCommunicationTag].to_seconds();
  r.breakdown.optimizer = path.time_by_tag[kOptimizerTag].to_seconds();
  r.breakdown.other = path.waiting.to_seconds();

  // Pipeline bubble: the pipeline phase minus the time an average stage is busy with its passes; the
  // critical path counts that time as the other stages' compute, so it is taken from there.
  if (layout_.pp > 1) {
    double phase = 0, busy = 0;
    for (int s = 0; s < layout_.pp; ++s) {
      for (OpId op : pass_ops_[s]) {
        busy += (executor.op_end(op) - executor.op_start(op)).to_seconds();
        phase = std::max(phase, executor.op_end(op).to_seconds());
      }
    }
    busy /= layout_.pp;
    const double bubble = std::clamp(phase - busy, 0.0, compute + communication);
    report.pipeline_bubble_fraction = phase > 0 ? bubble / phase : 0;
    const double on_path = compute + communication;
    if (on_path > 0) {
      compute -= bubble * compute / on_path;
      communication -= bubble * communication / on_path;
    }
    r.breakdown.pipeline_bubble = bubble;
    r.pipeline_bubble_fraction = report.pipeline_bubble_fraction;
  }
  r.breakdown.compute = compute;
  r.breakdown.communication_exposed = communication;
  r.memory_per_gpu_bytes = report.memory.total();
  r.memory = MemoryBreakdown{report.memory.weights, report.memory.gradients, report.memory.optimizer_state,
                             report.memory.activations, report.memory.workspace};
  r.fits_in_memory = r.memory_per_gpu_bytes <= gpu_.memory_bytes();
  r.events = platform_->sim().events_processed();
  if (run_.record_timeline) {
    for (OpId op = 0; op < graph_.size(); ++op) {
      const OpTag tag = graph_.tag(op);
      report.timeline.push_back({graph_.name(op), lane(graph_.stream(op)),
                                 tag == kComputeTag ? "compute" : tag == kOptimizerTag ? "optimizer" : "communication",
                                 executor.op_start(op).to_seconds(), executor.op_end(op).to_seconds()});
    }
  }
  return report;
}

std::string StepBuilder::lane(StreamId stream) const {
  const int s = static_cast<int>(stream), pp = layout_.pp, V = layout_.virtual_stages();
  if (s < pp) return "stage " + std::to_string(s) + " compute";
  if (s < 2 * pp) return "stage " + std::to_string(s - pp) + " data-parallel";
  const int v = (s - 2 * pp) % V;
  const bool forward = s - 2 * pp < V;
  return "p2p " + std::to_string(forward ? v : v + 1) + "->" + std::to_string(forward ? v + 1 : v) +
         (forward ? " activations" : " gradients");
}

}  // namespace training_detail

using training_detail::StepBuilder;

ModelStepReport simulate_training_step(const Model& model, const ClusterConfig& cluster, const TrainingRun& run) {
  Platform platform(cluster);
  const JobId job = platform.attach(model.name);
  TrainingStepJob step(platform, job, model, run);
  step.start();
  platform.sim().run();
  if (!step.finished()) throw ExecutionError("the training step stalled: some op never completed");
  return step.report();
}

TrainingMemory training_step_memory(const Model& model, const ClusterConfig& cluster, const TrainingRun& run) {
  Platform platform(cluster);  // placement only: its fabric is never built
  const JobId job = platform.attach(model.name);
  StepBuilder builder(model, platform.placement(job), run);
  return builder.estimate_memory();
}

ModelStepReport simulate_model_training_step(const Model& model, const ClusterConfig& cluster,
                                             const DataParallelRun& run) {
  if (run.batch_per_gpu < 1) throw std::invalid_argument("batch_per_gpu must be at least 1");
  const int dp = run.dp == 0 ? cluster.gpus() : run.dp;
  if (dp < 1 || dp > cluster.gpus()) {
    throw std::invalid_argument("dp " + std::to_string(dp) + " outside 1.." + std::to_string(cluster.gpus()) +
                                " (the cluster's GPUs)");
  }
  TrainingRun t;
  t.micro_batch = run.batch_per_gpu;
  t.layout.dp = dp;
  t.precision = run.precision;
  t.optimizer = run.optimizer;
  t.optimizer_impl = run.optimizer_impl;
  t.bucket_bytes = run.bucket_bytes;
  return simulate_training_step(model, cluster, t);
}

}  // namespace hpcsim
