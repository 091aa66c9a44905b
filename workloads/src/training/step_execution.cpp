// Running a training step's plan on a Platform, and its report.
#include "step_execution.h"

#include <algorithm>
#include <stdexcept>

#include "sim-core/critical_path.h"
#include "step_rates.h"

namespace hpcsim::training_detail {

using Plan = TrainingStepPlan;

StepExecution::StepExecution(const TrainingStepPlan& plan, Platform& platform, JobId job)
    : plan_(plan), platform_(platform), job_(job) {}

void StepExecution::start() {
  const ParallelLayout& layout = plan_.layout;
  const TrainingStepConfig& run = plan_.config;
  Simulator& sim = platform_.sim();
  groups_.assign(plan_.dp_gpus.size(), {});
  for (std::size_t s = 0; s < plan_.dp_gpus.size(); ++s) {
    for (const std::vector<int>& gpus : plan_.dp_gpus[s]) {
      groups_[s].push_back(CollectiveGroup::of(platform_.fabric(), plan_.placement.gpus(gpus)));
    }
  }
  // Repeated steps replay only while one collective has the fabric to itself: the platform knows no other
  // job shares it, and this step runs one data-parallel collective at a time.
  const bool one_collective_at_a_time = layout.pp == 1 && run.zero < 3 && layout.tp * layout.cp == 1;
  replay_ = platform_.alone(job_) && one_collective_at_a_time;
  // Symmetric groups run as one representative (exact, collective_runner.h) unless the run asks for every
  // group, or other jobs' traffic could meet the representative's links where it does not stand for them.
  by_symmetry_ = platform_.alone(job_) && !run.exact;
  executor_ = std::make_unique<Executor>(sim, plan_.graph);
  // Compute overlapped with a data-parallel collective gets the SMs NCCL leaves it, for as long as they overlap.
  const NodeSpec& node = plan_.placement.platform.node;
  const double sms = node.gpu.sm_count;
  contention_ = std::make_unique<SmContention>(sim, layout.pp, (sms - node.collective_sms) / sms);
  executor_->set_handler(Plan::kFixedDuration, [this](OpId op, Completion done) {
    const ExecutionGraph& graph = plan_.graph;
    const double t = plan_.seconds[graph.payload(op)];
    const StreamId stream = graph.stream(op);
    if (graph.tag(op) == Plan::kComputeTag && stream < static_cast<StreamId>(plan_.layout.pp)) {
      contention_->start(static_cast<int>(stream), t, done);
    } else {
      platform_.sim().schedule_in(Time::seconds(t), [done] { done(); });
    }
  });
  executor_->set_handler(Plan::kCollective, [this](OpId op, Completion done) {
    const Plan::Collective& call = plan_.collectives[plan_.graph.payload(op)];
    CollectiveRequest request;
    request.op = call.op;
    request.bytes = call.bytes;
    // Only this job's collectives cross the fabric (by_symmetry_ needs the platform to itself), and a stage
    // issues one at a time: the ledger sees all traffic, so steps on links no one else holds replay.
    request.replay_repeated_steps = replay_ || by_symmetry_;
    if (by_symmetry_) {
      request.ledger = &ledger_;
      request.lockstep = &lockstep_;
    }
    request.choices = &choices_;
    // Every tp x cp rank's group reduces its own shard at once; the op ends with the last of them.
    const int stage = call.stage;
    SmContention* contention = contention_.get();
    contention->collective_started(stage);
    start_collectives(platform_.sim(), platform_.fair_share(), platform_.fabric(), groups_[stage], request,
                      by_symmetry_, [done, stage, contention](const CollectiveStats&) {
                        contention->collective_ended(stage);
                        done();
                      });
  });
  executor_->start();
}

bool StepExecution::finished() const { return executor_ && executor_->finished(); }

TrainingStepReport StepExecution::report() const {
  if (!finished()) throw std::logic_error("the training step has not finished: no report yet");
  const ParallelLayout& layout = plan_.layout;
  const TrainingStepConfig& run = plan_.config;
  const ExecutionGraph& graph = plan_.graph;
  const Executor& executor = *executor_;
  const Time makespan = executor.makespan();
  const CriticalPath path = critical_path(executor);

  TrainingStepReport report;
  report.stages = layout.pp;
  report.gradient_buckets = static_cast<int>(plan_.collectives.size());
  for (OpId op = 0; op < graph.size(); ++op) {
    if (graph.type(op) == Plan::kCollective) report.allreduce_time_s += (executor.op_end(op) - executor.op_start(op)).to_seconds();
  }
  report.model_flops = plan_.model_flops;
  report.hardware_flops = plan_.hardware_flops;
  report.memory = plan_.memory;

  TrainingStepResult& r = report.result;
  const GpuSpec& gpu = plan_.placement.platform.node.gpu;
  r.gpus = layout.gpus();
  r.step_time_s = makespan.to_seconds();
  r.training_time_s = r.step_time_s;
  derive_step_rates(report, plan_.samples_per_step, gpu.peak(run.precision));
  r.layout = layout;
  r.microbatches = run.microbatches;
  r.global_batch = static_cast<double>(run.micro_batch) * run.microbatches * layout.dp;
  double compute = path.time_by_tag[Plan::kComputeTag].to_seconds();
  double communication = path.time_by_tag[Plan::kCommunicationTag].to_seconds();
  r.breakdown.optimizer = path.time_by_tag[Plan::kOptimizerTag].to_seconds();
  r.breakdown.other = path.waiting.to_seconds();

  // Pipeline bubble: the pipeline phase minus the time an average stage is busy with its passes; the
  // critical path counts that time as the other stages' compute, so it is taken from there.
  if (layout.pp > 1) {
    double phase = 0, busy = 0;
    for (int s = 0; s < layout.pp; ++s) {
      for (OpId op : plan_.pass_ops[s]) {
        busy += (executor.op_end(op) - executor.op_start(op)).to_seconds();
        phase = std::max(phase, executor.op_end(op).to_seconds());
      }
    }
    busy /= layout.pp;
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
  r.fits_in_memory = r.memory_per_gpu_bytes <= gpu.memory_bytes();
  r.events = platform_.sim().events_processed();
  if (run.record_timeline) {
    for (OpId op = 0; op < graph.size(); ++op) {
      const OpTag tag = graph.tag(op);
      report.timeline.push_back({graph.name(op), plan_.lane(graph.stream(op)),
                                 tag == Plan::kComputeTag ? "compute" : tag == Plan::kOptimizerTag ? "optimizer" : "communication",
                                 executor.op_start(op).to_seconds(), executor.op_end(op).to_seconds()});
    }
  }
  return report;
}

}  // namespace hpcsim::training_detail
