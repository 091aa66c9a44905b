#pragma once
// NCCL's collective kernels hold some of a GPU's SMs while they run; compute overlapped with them gets
// the rest. A compute op's work therefore advances at (sms - collective_sms) / sms of its full rate for
// exactly the time a collective is in flight on its GPU, and at the full rate before and after. Private
// to the training step.
#include <optional>
#include <vector>

#include "sim-core/executor.h"
#include "sim-core/simulator.h"
#include "sim-core/time.h"

namespace hpcsim::training_detail {

class SmContention {
 public:
  // `contended_rate`: the fraction of its full rate a compute op keeps while a collective runs.
  SmContention(Simulator& sim, int streams, double contended_rate);

  // Runs a compute op that takes `seconds` on an uncontended GPU; `done` ends it. One op per stream at a
  // time (ops on a stream run in program order).
  void start(int stream, double seconds, Completion done);
  void collective_started(int stream);
  void collective_ended(int stream);

 private:
  struct Running {
    double remaining_s = 0;  // work left, in seconds at the full rate
    Time since;              // when remaining_s was last brought up to date
    EventId finish;
    std::optional<Completion> done;
  };
  double rate(int stream) const;
  void schedule_finish(int stream);
  void settle(int stream);  // brings the running op's remaining work up to now at the current rate

  Simulator& sim_;
  double contended_rate_;
  std::vector<int> collectives_;
  std::vector<Running> running_;
};

}  // namespace hpcsim::training_detail
