#pragma once
// Runs an ExecutionGraph on a Simulator. Each op type has a handler that starts the op's work and
// calls its Completion when the work ends (at once, or later from a simulator event). An op is
// released when all its inputs have ended; ops released at the same time start in op-id order.
#include <functional>
#include <stdexcept>
#include <vector>

#include "sim-core/execution_graph.h"
#include "sim-core/simulator.h"
#include "sim-core/time.h"

namespace hpcsim {

// A misuse of the executor: a missing handler, an op completed twice, a run that stalled.
class ExecutionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Executor;

// Ends one op. Two pointers wide, so it fits in any simulator callback alongside other captures.
class Completion {
 public:
  Completion(Executor& executor, OpId op) : executor_(&executor), op_(op) {}
  void operator()() const;
  OpId op() const { return op_; }

 private:
  Executor* executor_;
  OpId op_;
};

class Executor {
 public:
  using Handler = std::function<void(OpId, Completion)>;
  using DurationFn = std::function<Time(OpId)>;
  using FinishedFn = std::function<void(Time makespan)>;

  // The graph must be finalized and must outlive the executor.
  Executor(Simulator& sim, const ExecutionGraph& graph);

  void set_handler(OpType type, Handler handler);
  // Ops of this type take duration(op) and need nothing else; a negative duration is an error.
  void set_fixed_duration(OpType type, DurationFn duration);
  // Called once, from inside the simulation, when the last op ends.
  void on_finished(FinishedFn fn) { on_finished_ = std::move(fn); }

  // Checks every op has a handler (ExecutionError otherwise) and releases the ops with no inputs
  // at sim.now(). Single use: an executor runs its graph once.
  void start();
  // start(), then runs the simulator until it is idle; returns the makespan. Throws ExecutionError
  // if some op never completed.
  Time run();

  // Ends a running op now; what Completion calls. Ending an op that is not running throws.
  void complete(OpId op);

  bool finished() const { return started_ && completed_ == graph_.size(); }
  std::size_t completed_count() const { return completed_; }
  Time start_time() const { return started_at_; }
  // Last end time minus the time start() was called; only meaningful once finished().
  Time makespan() const { return finished_at_ - started_at_; }
  Time op_start(OpId op) const { return op_start_.at(op); }
  Time op_end(OpId op) const { return op_end_.at(op); }
  const std::vector<Time>& op_starts() const { return op_start_; }
  const std::vector<Time>& op_ends() const { return op_end_; }
  const ExecutionGraph& graph() const { return graph_; }
  Simulator& simulator() const { return sim_; }

 private:
  enum class State : std::uint8_t { waiting, ready, running, done };

  void make_ready(OpId op);
  void release_ready();  // starts ready ops in id order

  Simulator& sim_;
  const ExecutionGraph& graph_;
  std::vector<Handler> handlers_;  // indexed by OpType
  FinishedFn on_finished_;

  std::vector<std::uint32_t> inputs_left_;
  std::vector<State> state_;
  std::vector<Time> op_start_, op_end_;
  std::vector<OpId> ready_;  // min-heap by id; reserved to the graph size, so it never reallocates
  std::size_t completed_ = 0;
  Time started_at_ = Time::zero();
  Time finished_at_ = Time::zero();
  bool started_ = false;
  bool release_scheduled_ = false;
  bool releasing_ = false;
};

}  // namespace hpcsim
