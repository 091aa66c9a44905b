#include "models/collectives/ring_allreduce.h"

#include <memory>
#include <stdexcept>

namespace hpcsim {

namespace {

struct RingRun {
  Simulator& sim;
  FairShare& fs;
  const ClusterFabric& fabric;
  double chunk = 0;  // bytes each rank sends per step per ring
  int steps_left = 0;
  int outstanding = 0;
  std::function<void()> done;

  void start_step(const std::shared_ptr<RingRun>& self) {
    const int n = fabric.gpus();
    outstanding = n * fabric.rails();
    for (int ring = 0; ring < fabric.rails(); ++ring) {
      for (int rank = 0; rank < n; ++rank) {
        const int next = (rank + 1) % n;
        // The route lives on the heap only for the latency; the flow copies the path it needs.
        auto hop = std::make_shared<Hop>(fabric.route(rank, next, ring));
        RingRun* run = self.get();
        sim.schedule_in(Time::seconds(hop->latency_s), [run, self, hop] {
          run->fs.start_flow(hop->path, run->chunk, [run, self](FlowId) { run->flow_done(self); });
        });
      }
    }
  }

  void flow_done(const std::shared_ptr<RingRun>& self) {
    if (--outstanding > 0) return;
    if (--steps_left > 0) {
      start_step(self);
    } else {
      done();
    }
  }
};

}  // namespace

void start_ring_allreduce(Simulator& sim, FairShare& fs, const ClusterFabric& fabric, double bytes,
                          std::function<void()> done) {
  if (bytes < 0) throw std::invalid_argument("all-reduce of a negative size");
  const int n = fabric.gpus();
  if (n == 1) {
    sim.schedule_in(Time::zero(), [d = std::make_shared<std::function<void()>>(std::move(done))] { (*d)(); });
    return;
  }
  auto run = std::make_shared<RingRun>(RingRun{sim, fs, fabric, bytes / n / fabric.rails(), 2 * (n - 1), 0,
                                               std::move(done)});
  run->start_step(run);
}

}  // namespace hpcsim
