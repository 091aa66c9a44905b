#include "collective_cohort.h"

namespace hpcsim::collective_detail {

Cohort::Cohort(LinkLedger& ledger, LinkLedger::Claim claim, int runs, int steps, int patterns,
               std::shared_ptr<std::vector<std::int64_t>> remembered)
    : ledger_(ledger), claim_(claim), runs_(runs), steps_(steps), running_(runs),
      starts_(static_cast<std::size_t>(runs) * static_cast<std::size_t>(steps), -1),
      simulated_(static_cast<std::size_t>(steps), 0),
      durations_(remembered ? std::move(remembered)
                            : std::make_shared<std::vector<std::int64_t>>(static_cast<std::size_t>(patterns), -1)),
      lockstep_ps_(*durations_),
      first_ps_(static_cast<std::size_t>(patterns), -1), ended_(static_cast<std::size_t>(patterns), 0),
      measuring_step_(static_cast<std::size_t>(patterns), -1) {}

bool Cohort::all_began(int step, std::int64_t at_ps) {
  for (int r = 0; r < runs_; ++r) {
    if (start(r, step) != at_ps) return false;
  }
  return true;
}

bool Cohort::begin_step(int run, int step, int pattern, int previous, std::int64_t now_ps) {
  start(run, step) = now_ps;
  const auto p = static_cast<std::size_t>(pattern);
  // Step 0: every run begins it at the call's instant, on links that no other collective holds (the claim
  // is exclusive), so only a duration remembered from an identical call can be known here.
  bool replay = !simulated_[static_cast<std::size_t>(step)] && lockstep_ps_[p] >= 0 && ledger_.exclusive(claim_);
  if (replay && step > 0) {
    // Every run began the previous step with this one, and that step's pattern ends in lockstep exactly
    // when this run did: the others end it now too (later in this instant's events, if not yet).
    const std::int64_t began = start(run, step - 1);
    const std::int64_t took = lockstep_ps_[static_cast<std::size_t>(previous)];
    replay = took >= 0 && began + took == now_ps && all_began(step - 1, began);
  }
  if (replay) {
    ledger_.note_replay(claim_);
  } else {
    simulated_[static_cast<std::size_t>(step)] = 1;
  }
  return replay;
}

void Cohort::end_step(int run, int step, int pattern, std::int64_t now_ps) {
  const auto p = static_cast<std::size_t>(pattern);
  if (lockstep_ps_[p] != -1) return;  // known, or shown not to hold
  const std::int64_t began = start(run, step);
  if (!ledger_.exclusive(claim_) || !all_began(step, began)) {
    if (measuring_step_[p] == step) measuring_step_[p] = -1, ended_[p] = 0;  // this step no longer counts
    return;
  }
  const std::int64_t took = now_ps - began;
  if (measuring_step_[p] != step) measuring_step_[p] = step, ended_[p] = 0, first_ps_[p] = took;
  if (took != first_ps_[p]) {
    lockstep_ps_[p] = -2;  // the runs drift apart on this pattern: never replay it
    return;
  }
  if (++ended_[p] == runs_) lockstep_ps_[p] = took;
}

void Cohort::run_done() {
  if (--running_ == 0) ledger_.release(claim_);
}

}  // namespace hpcsim::collective_detail
