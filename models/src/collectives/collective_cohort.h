#pragma once
// The runs one start_collectives call makes (one per symmetry class, or one per group), which may share
// links with each other but, per the LinkLedger, with nothing else (private to the collectives runner).
//
// Such runs replay repeated steps together or not at all: a run that replays puts no flows on links its
// cohort-mates still load. A step is replayed only in lockstep: every run began the previous step at the
// same instant, and that step's pattern was measured in lockstep (all runs began it together, alone on
// their links, and all took the same time). Then every run ends the previous step at the same instant and,
// as the measured step did, the next one: the cohort's state at each step start repeats exactly, so the
// measured duration is the full simulation's. Any run that simulates a step makes the others simulate it.
//
// Given the durations an identical earlier call measured (lockstep_memo.h), the first step replays too:
// all runs of a call begin it at the call's instant, and an exclusive claim means no other collective's
// flows are on the links, so the state at its start is the measured step's.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "models/collectives/link_ledger.h"

namespace hpcsim::collective_detail {

class Cohort {
 public:
  // `runs` runs of `steps` steps over `patterns` patterns, holding `claim` on `ledger` (released when all
  // are done). `remembered`: the lockstep durations per pattern shared with identical calls (read and
  // extended), or null for this call's own.
  Cohort(LinkLedger& ledger, LinkLedger::Claim claim, int runs, int steps, int patterns,
         std::shared_ptr<std::vector<std::int64_t>> remembered = nullptr);

  // Run `run` is at step `step` (pattern `pattern`; the previous step's pattern `previous`) at `now_ps`:
  // true if it replays it (duration: replay_ps(pattern)); the caller then schedules its end.
  bool begin_step(int run, int step, int pattern, int previous, std::int64_t now_ps);
  std::int64_t replay_ps(int pattern) const { return lockstep_ps_[static_cast<std::size_t>(pattern)]; }
  // True while no other collective's claim has met this cohort's links (see LinkLedger::exclusive).
  bool exclusive() const { return ledger_.exclusive(claim_); }
  int runs() const { return runs_; }
  // A run simulated a step with representatives of its flows on the strength of exclusive() (counts as a
  // replay for LinkLedger::broken_replays).
  void note_shortcut() { ledger_.note_replay(claim_); }
  // Run `run` ended its simulated step `step` (pattern `pattern`) at `now_ps`.
  void end_step(int run, int step, int pattern, std::int64_t now_ps);
  // Run `run` has finished its last step; the last one releases the claim.
  void run_done();

 private:
  std::int64_t& start(int run, int step) {
    return starts_[static_cast<std::size_t>(run) * static_cast<std::size_t>(steps_) + static_cast<std::size_t>(step)];
  }
  bool all_began(int step, std::int64_t at_ps);

  LinkLedger& ledger_;
  const LinkLedger::Claim claim_;
  const int runs_, steps_;
  int running_;
  std::vector<std::int64_t> starts_;          // per run, per step: when it began (-1: not yet)
  std::vector<char> simulated_;               // per step: some run simulated it
  const std::shared_ptr<std::vector<std::int64_t>> durations_;  // per pattern: lockstep duration (-1 unknown, -2 never)
  std::vector<std::int64_t>& lockstep_ps_;    // *durations_
  std::vector<std::int64_t> first_ps_;        // per pattern: the first run's duration in the step measured
  std::vector<int> ended_;                    // per pattern: runs that ended the measured step so far
  std::vector<int> measuring_step_;           // per pattern: the step being measured (-1 none)
};

}  // namespace hpcsim::collective_detail
