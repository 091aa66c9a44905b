#include "sim-core/executor.h"

#include <algorithm>
#include <string>
#include <utility>

namespace hpcsim {

namespace {

std::string op_label(const ExecutionGraph& g, OpId op) {
  return "'" + g.name(op) + "' (id " + std::to_string(op) + ")";
}

// A min-heap on op ids, so the lowest ready id starts first.
constexpr auto kLaterId = [](OpId a, OpId b) { return a > b; };

}  // namespace

void Completion::operator()() const { executor_->complete(op_); }

Executor::Executor(Simulator& sim, const ExecutionGraph& graph) : sim_(sim), graph_(graph) {
  if (!graph.finalized()) throw GraphError("Executor needs a finalized execution graph");
}

void Executor::set_handler(OpType type, Handler handler) {
  if (!handler) throw ExecutionError("empty handler for op type " + std::to_string(type));
  if (handlers_.size() <= type) handlers_.resize(std::size_t{type} + 1);
  handlers_[type] = std::move(handler);
}

void Executor::set_fixed_duration(OpType type, DurationFn duration) {
  if (!duration) throw ExecutionError("empty duration function for op type " + std::to_string(type));
  set_handler(type, [this, duration = std::move(duration)](OpId op, Completion done) {
    const Time d = duration(op);
    if (d < Time::zero()) {
      throw ExecutionError("op " + op_label(graph_, op) + " has a negative duration (" + d.to_string() + ")");
    }
    sim_.schedule_in(d, [done] { done(); });
  });
}

void Executor::start() {
  if (started_) throw ExecutionError("Executor::start called twice: an executor runs its graph once");
  const std::size_t n = graph_.size();
  for (OpId op = 0; op < n; ++op) {
    const OpType type = graph_.type(op);
    if (type >= handlers_.size() || !handlers_[type]) {
      throw ExecutionError("no handler for op type " + std::to_string(type) + " (needed by op " +
                           op_label(graph_, op) + ")");
    }
  }
  started_ = true;
  started_at_ = finished_at_ = sim_.now();
  inputs_left_.resize(n);
  state_.assign(n, State::waiting);
  op_start_.assign(n, Time::zero());
  op_end_.assign(n, Time::zero());
  ready_.reserve(n);
  for (OpId op = 0; op < n; ++op) {
    inputs_left_[op] = static_cast<std::uint32_t>(graph_.predecessors(op).size());
    if (inputs_left_[op] == 0) make_ready(op);
  }
  if (n == 0 && on_finished_) on_finished_(Time::zero());
}

Time Executor::run() {
  start();
  sim_.run();
  if (!finished()) {
    const auto stuck = static_cast<OpId>(std::find_if(state_.begin(), state_.end(),
                                                      [](State s) { return s != State::done; }) -
                                         state_.begin());
    const char* why = state_[stuck] == State::running ? "running: its handler never completed it"
                                                      : "waiting for inputs that never completed";
    throw ExecutionError("execution stalled: " + std::to_string(graph_.size() - completed_) + " of " +
                         std::to_string(graph_.size()) + " ops never completed; first is op " +
                         op_label(graph_, stuck) + ", " + why);
  }
  return makespan();
}

void Executor::complete(OpId op) {
  if (!started_ || op >= state_.size()) {
    throw ExecutionError("complete: unknown op id " + std::to_string(op) +
                         (started_ ? "" : " (executor not started)"));
  }
  if (state_[op] != State::running) {
    throw ExecutionError("complete: op " + op_label(graph_, op) +
                         (state_[op] == State::done ? " already completed" : " is not running"));
  }
  state_[op] = State::done;
  op_end_[op] = sim_.now();
  ++completed_;
  for (OpId next : graph_.successors(op)) {
    if (--inputs_left_[next] == 0) make_ready(next);
  }
  if (completed_ == graph_.size()) {
    finished_at_ = sim_.now();
    if (on_finished_) on_finished_(makespan());
  }
}

void Executor::make_ready(OpId op) {
  state_[op] = State::ready;
  ready_.push_back(op);
  std::push_heap(ready_.begin(), ready_.end(), kLaterId);
  // Start ready ops from one event at the current time, after the completions already queued for
  // this instant: every op released at this time then starts in id order.
  if (!releasing_ && !release_scheduled_) {
    release_scheduled_ = true;
    sim_.schedule_in(Time::zero(), [this] { release_ready(); });
  }
}

void Executor::release_ready() {
  release_scheduled_ = false;
  releasing_ = true;
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{releasing_};
  // Handlers that complete at once release more ops; the loop starts them too, still in id order.
  while (!ready_.empty()) {
    std::pop_heap(ready_.begin(), ready_.end(), kLaterId);
    const OpId op = ready_.back();
    ready_.pop_back();
    state_[op] = State::running;
    op_start_[op] = sim_.now();
    handlers_[graph_.type(op)](op, Completion(*this, op));
  }
}

}  // namespace hpcsim
