// Conservative backfilling against its definition: a reference that rebuilds the free-nodes profile and
// every reservation at every pass (the documented semantics, written plainly, no simulator) gives the same
// start times and first reservations as the queue, which keeps its profile across passes and re-fits only
// when capacity came back. Random traces with early ends, kills, ties and queues long enough to compress, and
// with jobs whose estimate is only a plan (raised to the run time when they start).
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <list>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "batch_queue_checks.h"
#include "workloads/scheduling/batch_queue.h"

using namespace hpcsim;

namespace {

using Profile = std::vector<std::pair<double, int>>;  // (from time, free nodes) steps

void take(Profile& profile, double from, double until, int nodes) {
  for (const double t : {from, until}) {
    auto it = std::upper_bound(profile.begin(), profile.end(), t, [](double v, const auto& s) { return v < s.first; });
    if (it != profile.begin() && std::prev(it)->first != t) profile.insert(it, {t, std::prev(it)->second});
  }
  for (auto& step : profile) {
    if (step.first >= from && step.first < until) step.second -= nodes;
  }
}

// The earliest time from the profile's start at which `nodes` stay free for `length`.
double earliest_fit(const Profile& profile, int nodes, double length) {
  for (std::size_t w = 0; w < profile.size(); ++w) {
    bool fits = true;
    for (std::size_t k = w; k < profile.size() && profile[k].first < profile[w].first + length; ++k) {
      fits = fits && profile[k].second >= nodes;
    }
    if (fits) return profile[w].first;
  }
  return profile.back().first;
}

struct Reference {
  std::vector<double> start;
  std::vector<std::optional<double>> reservation;
};

Reference reference_conservative(const std::vector<BatchJob>& jobs, int nodes) {
  const std::size_t n = jobs.size();
  Reference out{std::vector<double>(n, -1), std::vector<std::optional<double>>(n)};
  std::vector<double> reserved(n, -1), end(n), estimated_end(n), estimate(n);
  for (std::size_t i = 0; i < n; ++i) estimate[i] = jobs[i].estimate_s;
  bool grew = false;  // a job's estimate was raised at its start: reservations may then move later
  std::list<std::size_t> waiting;
  std::vector<std::size_t> running;
  std::size_t next_submit = 0;
  int free = nodes;
  double now = jobs.empty() ? 0 : jobs[0].submit_s;
  while (next_submit < n || !waiting.empty() || !running.empty()) {
    // Ends and submits at now, then one pass.
    for (auto it = running.begin(); it != running.end();) {
      if (end[*it] <= now) {
        free += jobs[*it].nodes;
        it = running.erase(it);
      } else {
        ++it;
      }
    }
    while (next_submit < n && jobs[next_submit].submit_s <= now) waiting.push_back(next_submit++);
    Profile profile{{now, free}};
    // Free now, plus each running job's nodes from its estimated end on.
    for (const std::size_t r : running) take(profile, estimated_end[r], std::numeric_limits<double>::infinity(), -jobs[r].nodes);
    for (const std::size_t w : waiting) {
      if (reserved[w] >= 0) take(profile, reserved[w], reserved[w] + estimate[w], jobs[w].nodes);
    }
    for (auto it = waiting.begin(); it != waiting.end();) {
      const std::size_t i = *it;
      if (reserved[i] >= 0) take(profile, reserved[i], reserved[i] + estimate[i], -jobs[i].nodes);
      const double s = earliest_fit(profile, jobs[i].nodes, estimate[i]);
      INFO("now " << now << " job " << jobs[i].id << " reserved " << reserved[i] << " fit " << s);
      if (!grew) REQUIRE((reserved[i] < 0 || s <= reserved[i]));  // never later than the one it gave back
      take(profile, s, s + estimate[i], jobs[i].nodes);
      reserved[i] = s;
      if (!out.reservation[i] && s > now) out.reservation[i] = s;
      if (s == now) {
        out.start[i] = now;
        if (jobs[i].estimate_only && jobs[i].run_s > estimate[i]) estimate[i] = jobs[i].run_s, grew = true;
        end[i] = now + std::min(jobs[i].run_s, estimate[i]);
        estimated_end[i] = now + estimate[i];
        free -= jobs[i].nodes;
        REQUIRE(free >= 0);
        running.push_back(i);
        it = waiting.erase(it);
      } else {
        ++it;
      }
    }
    double next = std::numeric_limits<double>::infinity();
    if (next_submit < n) next = jobs[next_submit].submit_s;
    for (const std::size_t r : running) next = std::min(next, end[r]);
    // A reservation no end reaches still gets a pass (after a plan grew, one can lie past every end).
    for (const std::size_t w : waiting) next = std::min(next, reserved[w]);
    if (next == std::numeric_limits<double>::infinity()) break;
    now = next;
  }
  return out;
}

}  // namespace

TEST_CASE("Conservative backfilling matches a reference that rebuilds every reservation at every pass",
          "[scheduling][conservative]") {
  // With plans (estimate_only): some jobs run past their estimate, which is raised when they start.
  const bool plans = GENERATE(false, true);
  std::mt19937_64 rng(plans ? 2025 : 2024);
  int compared = 0, moved = 0;
  for (int trace = 0; trace < 60; ++trace) {
    const int nodes = 1 + static_cast<int>(rng() % 24);
    std::vector<BatchJob> jobs;
    double submit = 0;
    const int count = 20 + static_cast<int>(rng() % 120);
    for (int i = 0; i < count; ++i) {
      submit += static_cast<double>(rng() % 30) * 0.5;  // ties, and halves exact on the engine's clock
      const double estimate = 1 + static_cast<double>(rng() % 300);
      // Mostly early ends (compression), some exact, some killed at the limit.
      const unsigned kind = static_cast<unsigned>(rng() % 10);
      const double run = kind < 6 ? 0.5 + static_cast<double>(rng() % static_cast<std::uint64_t>(estimate * 2)) * 0.5
                                  : kind < 8 ? estimate : estimate + 7;
      jobs.push_back(test::job(i + 1, submit, 1 + static_cast<int>(rng() % nodes), std::min(run, estimate + 7), estimate));
      jobs.back().estimate_only = plans && rng() % 3 == 0;
    }
    INFO("trace " << trace << ", " << nodes << " nodes" << (plans ? ", plans" : ""));
    const std::vector<QueueRun> runs = simulate_batch_queue(jobs, nodes, QueuePolicy::conservative);
    if (!plans) test::check_invariants(runs, nodes);
    const Reference ref = reference_conservative(jobs, nodes);
    REQUIRE(runs.size() == jobs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
      INFO("job " << jobs[i].id);
      // Every job starts (a queue left with reservations and no event once left jobs waiting for ever).
      REQUIRE(ref.start[i] >= 0);
      REQUIRE(runs[i].scheduled.start_s == ref.start[i]);
      REQUIRE(runs[i].reservation_s == ref.reservation[i]);
      ++compared;
      moved += ref.reservation[i] && ref.start[i] < *ref.reservation[i];
    }
  }
  CHECK(compared > 3000);
  CHECK(moved > 100);  // compression was exercised: many jobs started before their first reservation
}
