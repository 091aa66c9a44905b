#include "workloads/campaign/asha.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hpcsim {

RungSchedule RungSchedule::successive_halving(std::int64_t min_steps, std::int64_t max_steps, int eta) {
  if (min_steps < 1 || max_steps < min_steps || eta < 2) {
    throw std::invalid_argument("rungs need 1 <= min_steps <= max_steps and eta >= 2");
  }
  RungSchedule s;
  s.eta = eta;
  std::int64_t budget = min_steps;
  while (budget < max_steps) {
    s.budgets.push_back(budget);
    budget *= eta;
  }
  if (budget != max_steps) {
    throw std::invalid_argument("max_steps / min_steps must be a power of eta (" + std::to_string(min_steps) + " x " +
                                std::to_string(eta) + "^k), not " + std::to_string(max_steps));
  }
  s.budgets.push_back(max_steps);
  return s;
}

RungSchedule RungSchedule::single(std::int64_t max_steps) {
  if (max_steps < 1) throw std::invalid_argument("max_steps must be at least 1");
  RungSchedule s;
  s.budgets = {max_steps};
  return s;
}

AshaScheduler::AshaScheduler(RungSchedule rungs, std::int64_t trials)
    : rungs_(std::move(rungs)), trials_(trials), results_(rungs_.budgets.size()) {}

std::optional<AshaJob> AshaScheduler::next_job() {
  for (int k = rungs_.top() - 1; k >= 0; --k) {
    std::vector<Result>& rung = results_[k];
    const std::size_t promotable = rung.size() / static_cast<std::size_t>(rungs_.eta);
    for (std::size_t i = 0; i < promotable; ++i) {  // sorted: the first not yet promoted is the best
      if (rung[i].promoted) continue;
      rung[i].promoted = true;
      ++outstanding_;
      return AshaJob{rung[i].trial, k + 1};
    }
  }
  if (next_trial_ < trials_) {
    ++outstanding_;
    return AshaJob{next_trial_++, 0};
  }
  return std::nullopt;
}

void AshaScheduler::report(const AshaJob& job, double loss) {
  --outstanding_;
  std::vector<Result>& rung = results_[job.rung];
  const Result result{loss, job.trial, false};
  const auto by_loss = [](const Result& a, const Result& b) { return a.loss != b.loss ? a.loss < b.loss : a.trial < b.trial; };
  rung.insert(std::upper_bound(rung.begin(), rung.end(), result, by_loss), result);
}

void AshaScheduler::report_failure(const AshaJob&) { --outstanding_; }

bool AshaScheduler::done() const {
  if (outstanding_ > 0 || next_trial_ < trials_) return false;
  for (int k = rungs_.top() - 1; k >= 0; --k) {
    const std::vector<Result>& rung = results_[k];
    const std::size_t promotable = rung.size() / static_cast<std::size_t>(rungs_.eta);
    for (std::size_t i = 0; i < promotable; ++i) {
      if (!rung[i].promoted) return false;
    }
  }
  return true;
}

}  // namespace hpcsim
