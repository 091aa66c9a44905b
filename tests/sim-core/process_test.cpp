#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "sim-core/execution_graph.h"
#include "sim-core/executor.h"
#include "sim-core/fair_share.h"
#include "sim-core/process.h"
#include "sim-core/simulator.h"

using namespace hpcsim;

namespace {

Process ticker(Simulator& sim, std::vector<std::string>& log, std::string name, Time period, int ticks) {
  for (int i = 0; i < ticks; ++i) {
    co_await sleep_for(sim, period);
    log.push_back(name + "@" + std::to_string(static_cast<long long>(sim.now().nanoseconds())));
  }
}

Process waiter(Simulator& sim, Signal& signal, std::vector<std::string>& log, std::string name) {
  co_await signal;
  log.push_back(name + " woke@" + std::to_string(static_cast<long long>(sim.now().nanoseconds())));
  co_await signal;
  log.push_back(name + " woke again@" + std::to_string(static_cast<long long>(sim.now().nanoseconds())));
}

Process raiser(Simulator& sim, Signal& signal) {
  co_await sleep_until(sim, Time::ns(50));
  signal.notify_all();
  co_await sleep_until(sim, Time::ns(80));
  signal.notify_all();
}

Process sender(FairShare& fs, ResourceId link, double bytes, Time& arrived, Simulator& sim) {
  const ResourceId path[] = {link};
  co_await transfer(fs, path, bytes);
  arrived = sim.now();
}

Process graph_runner(Executor& executor, Time& makespan, Time& resumed_at) {
  makespan = co_await run_graph(executor);
  resumed_at = executor.simulator().now();
}

Process joiner(Simulator& sim, Process& other, Time& joined_at) {
  co_await other;
  joined_at = sim.now();
}

Process failing(Simulator& sim) {
  co_await sleep_for(sim, Time::us(1));
  throw std::runtime_error("replica crashed");
}

}  // namespace

TEST_CASE("Processes interleave in time order, same-time steps in start order", "[process]") {
  Simulator sim;
  std::vector<std::string> log;
  Process a = ticker(sim, log, "a", Time::ns(10), 3);
  Process b = ticker(sim, log, "b", Time::ns(15), 2);
  a.start(sim);
  b.start(sim);
  CHECK_FALSE(a.done());
  // At 30 ns b runs first: it began waiting for 30 ns (at 15) before a did (at 20).
  sim.run();
  CHECK(log == std::vector<std::string>{"a@10", "b@15", "a@20", "b@30", "a@30"});
  CHECK(a.done());
  CHECK(b.done());
  CHECK_THROWS_AS(a.start(sim), std::logic_error);
}

TEST_CASE("A signal wakes the processes waiting at the time, in the order they waited", "[process]") {
  Simulator sim;
  Signal signal(sim);
  std::vector<std::string> log;
  Process first = waiter(sim, signal, log, "first");
  Process second = waiter(sim, signal, log, "second");
  Process raise = raiser(sim, signal);
  first.start(sim);
  second.start(sim);
  raise.start(sim);
  sim.run();
  CHECK(log == std::vector<std::string>{"first woke@50", "second woke@50", "first woke again@80",
                                        "second woke again@80"});
  CHECK(signal.waiting() == 0);
}

TEST_CASE("Processes wait for flows that share a link", "[process]") {
  Simulator sim;
  FairShare fs(sim);
  const ResourceId link = fs.add_resource(1e9);  // 1 GB/s
  Time a_at, b_at;
  Process a = sender(fs, link, 1e6, a_at, sim);
  Process b = sender(fs, link, 2e6, b_at, sim);
  a.start(sim);
  b.start(sim);
  sim.run();
  // Both at 0.5 GB/s until a's 1 MB arrives at 2 ms; b's last 1 MB then gets the whole link: 3 ms.
  CHECK(a_at.to_seconds() == Approx(2e-3).epsilon(1e-9));
  CHECK(b_at.to_seconds() == Approx(3e-3).epsilon(1e-9));
}

TEST_CASE("A process runs an execution graph and another joins it", "[process]") {
  Simulator sim;
  ExecutionGraph graph;
  const OpId first = graph.add_op(OpSpec{"first", 0, 0, 0, 0, {}});
  graph.add_op(OpSpec{"second", 0, 0, 0, 0, {first}});
  graph.finalize();
  Executor executor(sim, graph);
  executor.set_fixed_duration(0, [](OpId) { return Time::us(4); });
  Time makespan, resumed_at, joined_at;
  Process run = graph_runner(executor, makespan, resumed_at);
  Process join = joiner(sim, run, joined_at);
  sim.schedule_at(Time::us(1), [&] { run.start(sim); });
  join.start(sim);
  sim.run();
  CHECK(makespan == Time::us(8));
  CHECK(resumed_at == Time::us(9));
  CHECK(joined_at == Time::us(9));
  CHECK(executor.finished());
}

TEST_CASE("An exception in a process leaves through Simulator::run", "[process]") {
  Simulator sim;
  Process p = failing(sim);
  p.start(sim);
  CHECK_THROWS_WITH(sim.run(), "replica crashed");
}

TEST_CASE("A long-lived process waits a million times without the event pool growing", "[process]") {
  Simulator sim;
  std::vector<std::string> log;
  Process p = ticker(sim, log, "t", Time::ns(1), 1);
  Process many = [](Simulator& s) -> Process {
    for (int i = 0; i < 1'000'000; ++i) co_await sleep_for(s, Time::ns(7));
  }(sim);
  many.start(sim);
  sim.run_until(Time::ns(7000));  // the pools reach their working size
  const std::size_t before = sim.memory_bytes();
  sim.run();
  // Only queue buckets for higher time bits get their first entry as the clock advances: bounded by
  // the bucket count, nothing per wait.
  CHECK(sim.memory_bytes() < before + 129 * 64);
  CHECK(sim.now() == Time::ns(7'000'000));
  CHECK(sim.events_processed() == 1'000'001);
}
