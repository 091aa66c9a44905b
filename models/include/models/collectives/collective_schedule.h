#pragma once
// A collective as a sequence of steps separated by barriers: every transfer of a step starts when the
// previous step has finished. Each step names a pattern; steps with the same pattern move identical
// transfers (a ring's 2(n-1) steps are one pattern), which lets the runner simulate a repeated step once
// and lets patterns be generated on demand instead of stored.
#include <cstdint>
#include <functional>
#include <vector>

namespace hpcsim {

// One message of a step between two ranks of the group. `rail` picks the NIC port when the message
// leaves its node.
struct Transfer {
  int src = 0;
  int dst = 0;
  int rail = 0;
  double bytes = 0;
};

class CollectiveSchedule {
 public:
  // Replaces `out` with the transfers of one pattern (0..patterns-1 of the part that made it).
  using Generator = std::function<void(int pattern, std::vector<Transfer>& out)>;

  CollectiveSchedule() = default;
  // One part: `step_patterns` lists the pattern of each step; `transfers_per_pattern` bounds the
  // transfers any one pattern has (the selector's cost budget).
  CollectiveSchedule(int patterns, std::vector<int> step_patterns, Generator generator,
                     std::uint64_t transfers_per_pattern);

  // Runs `next` after the steps so far; its patterns are numbered after this schedule's.
  void append(CollectiveSchedule next);

  int steps() const { return static_cast<int>(steps_.size()); }
  int pattern(int step) const { return steps_[step]; }
  int patterns() const { return patterns_; }
  void transfers(int pattern, std::vector<Transfer>& out) const;
  // Upper bound on the transfers of all distinct patterns: the work of simulating each pattern once.
  std::uint64_t distinct_transfers() const { return distinct_transfers_; }
  // A fixed time before the first step (a setup no transfer accounts for, e.g. NVLS's synchronisation);
  // append() keeps the first part's, so only a schedule that is never appended to may set one.
  void set_setup_latency(double seconds) { setup_latency_s_ = seconds; }
  double setup_latency_s() const { return setup_latency_s_; }

 private:
  struct Part {
    int first_pattern;
    int patterns;
    Generator generator;
  };
  std::vector<Part> parts_;
  std::vector<int> steps_;
  int patterns_ = 0;
  std::uint64_t distinct_transfers_ = 0;
  double setup_latency_s_ = 0;
};

}  // namespace hpcsim
