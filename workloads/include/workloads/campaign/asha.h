#pragma once
// Asynchronous successive halving (ASHA, Li et al., MLSys 2020) over a fixed number of trials.
// Rungs at budgets r, r*eta, r*eta^2, ..., R (R / r a power of eta). Whenever a worker slot frees, the
// rungs are scanned from the top down: the best trial of rung k that is in the top floor(n_k / eta) of
// the n_k trials that finished rung k and is not yet promoted goes on to rung k + 1 (resuming from its
// checkpoint, so the job trains budget(k+1) - budget(k) more steps); if no rung has one, a new trial
// starts at rung 0; when every trial has started, the slot stays idle until a result arrives. Without
// early stopping (one rung, R) every trial runs to R in order.
// Ties in loss are broken by trial index, so the order is fully determined by the results.
#include <cstdint>
#include <optional>
#include <vector>

namespace hpcsim {

struct RungSchedule {
  std::vector<std::int64_t> budgets;  // steps at the end of each rung, increasing; the last is R
  int eta = 3;
  // r, r*eta, ..., R. std::invalid_argument unless 1 <= r <= R, eta >= 2 and R / r is a power of eta.
  static RungSchedule successive_halving(std::int64_t min_steps, std::int64_t max_steps, int eta);
  static RungSchedule single(std::int64_t max_steps);  // no early stopping: every trial to R
  int top() const { return static_cast<int>(budgets.size()) - 1; }
  // Steps a job of rung k trains: from the previous rung's budget to this one's.
  std::int64_t segment_steps(int rung) const { return budgets[rung] - (rung > 0 ? budgets[rung - 1] : 0); }
};

struct AshaJob {
  std::int64_t trial = 0;
  int rung = 0;
};

class AshaScheduler {
 public:
  AshaScheduler(RungSchedule rungs, std::int64_t trials);

  // The next job for a free slot (a promotion first, else a new trial); none when neither is possible now.
  std::optional<AshaJob> next_job();
  // The result of a job next_job gave: the trial's loss at the rung's budget.
  void report(const AshaJob& job, double loss);
  // A job that ended without a result (killed at its wall-time limit): the trial stops there.
  void report_failure(const AshaJob& job);

  const RungSchedule& rungs() const { return rungs_; }
  std::int64_t started() const { return next_trial_; }
  // Trials that finished rung k (n_k).
  std::int64_t finished(int rung) const { return static_cast<std::int64_t>(results_[rung].size()); }
  bool done() const;  // every trial started and no job outstanding and nothing left to promote

 private:
  struct Result {
    double loss;
    std::int64_t trial;
    bool promoted;
  };
  RungSchedule rungs_;
  std::int64_t trials_;
  std::int64_t next_trial_ = 0;
  std::int64_t outstanding_ = 0;
  std::vector<std::vector<Result>> results_;  // per rung, kept sorted by (loss, trial)
};

}  // namespace hpcsim
