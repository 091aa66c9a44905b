#include "sim-core/process.h"

#include <stdexcept>
#include <utility>

namespace hpcsim {

void Signal::notify_all() {
  // Swap first: a woken process that waits again joins the next notification, not this one.
  std::vector<std::coroutine_handle<>> woken;
  woken.swap(waiters_);
  for (const std::coroutine_handle<> h : woken) sim_->schedule_in(Time::zero(), [h] { h.resume(); });
}

Process::Process(Process&& o) noexcept
    : handle_(std::exchange(o.handle_, {})) {}

Process& Process::operator=(Process&& o) noexcept {
  if (this != &o) {
    if (handle_) handle_.destroy();
    handle_ = std::exchange(o.handle_, {});
  }
  return *this;
}

Process::~Process() {
  if (handle_) handle_.destroy();
}

void Process::start(Simulator& sim) {
  if (!handle_) throw std::logic_error("Process::start: an empty (moved-from) process");
  if (started()) throw std::logic_error("Process::start: the process was already started");
  handle_.promise().sim = &sim;
  sim.schedule_in(Time::zero(), [h = handle_] { h.resume(); });
}

namespace {

// Resumed from its own event, not inside Executor::complete, so the process may drop the executor.
void resume_when_finished(Executor& executor, std::coroutine_handle<> h) {
  Simulator& sim = executor.simulator();
  executor.on_finished([&sim, h](Time) { sim.schedule_in(Time::zero(), [h] { h.resume(); }); });
}

}  // namespace

void RunGraph::await_suspend(std::coroutine_handle<> h) {
  resume_when_finished(executor, h);
  executor.start();
}

void GraphFinished::await_suspend(std::coroutine_handle<> h) { resume_when_finished(executor, h); }

}  // namespace hpcsim
