#pragma once
// Processes: an activity on the engine written as straight-line code that waits, wakes and submits work, in
// the spirit of SimGrid's actors. For a new model whose life is a sequence of waits (a load generator, a
// client loop, a script of phases) this reads shorter than a callback state machine.
//
// Who uses it: no production model today, only tests/sim-core/process_test.cpp. The batch queue, both
// serving engines, the collective runner and campaigns (which drive the batch queue) are callback state
// machines on the Simulator, and stay so: they cancel or re-arm pending events (a preempted job's end, the
// queue's reservation wake-up, a replica's batch timeout), which a process wait cannot; and a Signal or a
// graph's end wakes its waiter through one extra zero-delay event, which reorders same-instant events (and
// would change `events` in a training step's report were its replicas processes). Moving a model over is
// worth it only where the code gets shorter and every output stays byte-identical.
//
// A process is a C++20 coroutine returning Process. It runs only inside simulator events: start() schedules
// its first step at now(), and every wait resumes it from an event (the engine's (time, insertion) order),
// so runs stay deterministic and no thread is involved. The coroutine frame is allocated once, when the
// process is created; waiting allocates nothing (an event captures one coroutine handle).
//
//   Process arrivals(Simulator& sim, Signal& arrived) {
//     for (int i = 0; i < 10; ++i) {
//       co_await sleep_for(sim, Time::ms(3));
//       arrived.notify_all();
//     }
//   }
//
// Waits: sleep_for / sleep_until (a time), a Signal (an event another activity raises), run_graph and
// graph_finished (an ExecutionGraph on an Executor ends), transfer (a FairShare flow arrives) and another
// Process finishing. None can be cancelled once begun. An exception thrown by a process leaves through the
// Simulator::run() call that resumed it.
#include <coroutine>
#include <exception>
#include <span>
#include <vector>

#include "sim-core/executor.h"
#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"
#include "sim-core/time.h"

namespace hpcsim {

// An event processes wait on. notify_all() wakes every process waiting now, in the order they began to
// wait, each from its own zero-delay event; a process that waits after the notification waits for the next.
class Signal {
 public:
  explicit Signal(Simulator& sim) : sim_(&sim) {}
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;

  void notify_all();
  std::size_t waiting() const { return waiters_.size(); }

  // co_await signal: suspends until the next notify_all().
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) { waiters_.push_back(h); }
  void await_resume() const noexcept {}

 private:
  Simulator* sim_;
  std::vector<std::coroutine_handle<>> waiters_;
};

class Process {
 public:
  struct promise_type {
    Simulator* sim = nullptr;  // set by start()
    std::vector<std::coroutine_handle<>> joiners;  // processes waiting for this one to finish
    bool done = false;

    Process get_return_object() { return Process(std::coroutine_handle<promise_type>::from_promise(*this)); }
    std::suspend_always initial_suspend() noexcept { return {}; }
    auto final_suspend() noexcept {
      struct Final {
        bool await_ready() noexcept { return false; }
        void await_suspend(std::coroutine_handle<promise_type> h) noexcept {
          promise_type& p = h.promise();
          p.done = true;
          for (const std::coroutine_handle<> j : p.joiners) p.sim->schedule_in(Time::zero(), [j] { j.resume(); });
          p.joiners.clear();
        }
        void await_resume() noexcept {}
      };
      return Final{};
    }
    void return_void() {}
    // Rethrown to whoever resumed the process: the simulator event, hence Simulator::run()'s caller.
    void unhandled_exception() { throw; }
  };

  Process(Process&& o) noexcept;
  Process& operator=(Process&& o) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process();  // destroys the coroutine frame (a process still waiting is abandoned)

  // Schedules the first step at sim.now(). Processes started at one instant begin in start order.
  // Starting twice throws std::logic_error.
  void start(Simulator& sim);
  bool started() const { return handle_ && handle_.promise().sim != nullptr; }
  bool done() const { return handle_ && handle_.promise().done; }

  // co_await process: suspends until it has finished (at once if it already has); the process may be
  // started later.
  bool await_ready() const noexcept { return done(); }
  void await_suspend(std::coroutine_handle<> h) { handle_.promise().joiners.push_back(h); }
  void await_resume() const noexcept {}

 private:
  explicit Process(std::coroutine_handle<promise_type> h) : handle_(h) {}
  std::coroutine_handle<promise_type> handle_;
};

// co_await sleep_for(sim, d): resumes after the non-negative delay d.
struct SleepFor {
  Simulator& sim;
  Time delay;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) { sim.schedule_in(delay, [h] { h.resume(); }); }
  void await_resume() const noexcept {}
};
inline SleepFor sleep_for(Simulator& sim, Time delay) { return {sim, delay}; }

// co_await sleep_until(sim, t): resumes at t (not before now: std::invalid_argument, as schedule_at).
struct SleepUntil {
  Simulator& sim;
  Time at;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) { sim.schedule_at(at, [h] { h.resume(); }); }
  void await_resume() const noexcept {}
};
inline SleepUntil sleep_until(Simulator& sim, Time at) { return {sim, at}; }

// co_await run_graph(executor): starts the executor's graph now and resumes when its last op ends; the
// result is the makespan. The executor must have its handlers set and must not have an on_finished.
struct RunGraph {
  Executor& executor;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h);
  Time await_resume() const { return executor.makespan(); }
};
inline RunGraph run_graph(Executor& executor) { return {executor}; }

// co_await graph_finished(executor): for a graph already started (by whoever built it), resumes when its
// last op ends (at once if it has). The executor must not have an on_finished of its own.
struct GraphFinished {
  Executor& executor;
  bool await_ready() const noexcept { return executor.finished(); }
  void await_suspend(std::coroutine_handle<> h);
  Time await_resume() const { return executor.makespan(); }
};
inline GraphFinished graph_finished(Executor& executor) { return {executor}; }

// co_await transfer(fair_share, path, amount): a flow of `amount` units over `path`, resuming when the last
// unit arrives (FairShare::start_flow's rules and errors).
struct TransferAwaiter {
  FairShare& fair_share;
  std::span<const ResourceId> path;
  double amount;
  double rate_cap = FairShare::kNoCap;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    fair_share.start_flow(path, amount, [h](FlowId) { h.resume(); }, rate_cap);
  }
  void await_resume() const noexcept {}
};
inline TransferAwaiter transfer(FairShare& fair_share, std::span<const ResourceId> path, double amount,
                         double rate_cap = FairShare::kNoCap) {
  return {fair_share, path, amount, rate_cap};
}

}  // namespace hpcsim
