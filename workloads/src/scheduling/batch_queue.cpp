#include "workloads/scheduling/batch_queue.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <set>
#include <stdexcept>
#include <string>

#include "sim-core/simulator.h"

namespace hpcsim {

namespace {

class BatchQueue {
 public:
  BatchQueue(const std::vector<BatchJob>& jobs, int nodes, QueuePolicy policy)
      : jobs_(jobs), policy_(policy), free_count_(nodes), runs_(jobs.size()) {
    for (int n = 0; n < nodes; ++n) free_.insert(n);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      runs_[i].scheduled.job = jobs[i];
      // Submits are scheduled in queue order, so jobs submitted at one instant join the queue in order.
      sim_.schedule_at(Time::seconds(jobs[i].submit_s), [this, i] {
        waiting_.push_back(i);
        request_pass();
      });
    }
  }

  std::vector<QueueRun> run() {
    sim_.run();
    return std::move(runs_);
  }

 private:
  struct Running {
    std::size_t job;
    double estimated_end_s;
  };

  // One pass per instant, after every end and submit of that instant (they were queued before it).
  void request_pass() {
    if (pass_pending_) return;
    pass_pending_ = true;
    sim_.schedule_in(Time::zero(), [this] {
      pass_pending_ = false;
      pass();
    });
  }

  double now_s() const { return sim_.now().to_seconds(); }

  void pass() {
    if (policy_ == QueuePolicy::conservative) {
      pass_conservative();
      return;
    }
    while (!waiting_.empty() && jobs_[waiting_.front()].nodes <= free_count_) {
      const std::size_t head = waiting_.front();
      waiting_.pop_front();
      start_job(head);
    }
    if (waiting_.empty() || policy_ == QueuePolicy::fcfs) return;
    // EASY: the blocked head's reservation, then one backfilling scan of the rest.
    const BatchJob& head = jobs_[waiting_.front()];
    std::vector<Running> by_end(running_.begin(), running_.end());
    std::sort(by_end.begin(), by_end.end(), [](const Running& a, const Running& b) {
      return a.estimated_end_s < b.estimated_end_s;
    });
    int available = free_count_;
    double shadow_s = now_s();
    for (const Running& r : by_end) {
      available += jobs_[r.job].nodes;
      shadow_s = r.estimated_end_s;
      if (available >= head.nodes) break;
    }
    int spare = available - head.nodes;
    if (!runs_[waiting_.front()].reservation_s) runs_[waiting_.front()].reservation_s = shadow_s;
    const double now = now_s();
    for (auto it = std::next(waiting_.begin()); it != waiting_.end();) {
      const BatchJob& job = jobs_[*it];
      if (job.nodes <= free_count_) {
        const bool ends_in_time = now + job.estimate_s <= shadow_s;
        if (ends_in_time || job.nodes <= spare) {
          if (!ends_in_time) spare -= job.nodes;
          const std::size_t index = *it;
          it = waiting_.erase(it);
          start_job(index);
          continue;
        }
      }
      ++it;
    }
  }

  // Conservative backfilling: the free nodes over time hold the running jobs (until their estimated ends)
  // and every waiting job's reservation. In queue order each waiting job gives its reservation back and
  // takes the earliest fit, which is never later than the one it gave back (compression when jobs end
  // early); a job without one takes the earliest fit around the others'. Reservations at now start.
  void pass_conservative() {
    const double now = now_s();
    std::vector<std::pair<double, int>> profile{{now, free_count_}};  // (from time, free nodes) steps
    std::vector<Running> by_end(running_.begin(), running_.end());
    std::sort(by_end.begin(), by_end.end(), [](const Running& a, const Running& b) {
      return a.estimated_end_s < b.estimated_end_s;
    });
    for (const Running& r : by_end) {
      const int freed = profile.back().second + jobs_[r.job].nodes;
      if (r.estimated_end_s <= profile.back().first) {
        profile.back().second = freed;
      } else {
        profile.emplace_back(r.estimated_end_s, freed);
      }
    }
    for (const std::size_t i : waiting_) {
      if (reserved_at_[i] >= 0) reserve(profile, reserved_at_[i], reserved_at_[i] + jobs_[i].estimate_s, jobs_[i].nodes);
    }
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      const std::size_t i = *it;
      const BatchJob& job = jobs_[i];
      if (reserved_at_[i] >= 0) reserve(profile, reserved_at_[i], reserved_at_[i] + job.estimate_s, -job.nodes);
      const double start = earliest_fit(profile, job.nodes, job.estimate_s);
      reserve(profile, start, start + job.estimate_s, job.nodes);
      reserved_at_[i] = start;
      if (!runs_[i].reservation_s && start > now) runs_[i].reservation_s = start;
      if (start == now) {
        it = waiting_.erase(it);
        start_job(i);
      } else {
        ++it;
      }
    }
  }

  // The earliest step start at which `nodes` stay free for `length` seconds (the last step lasts forever):
  // one sweep keeping the start of the current run of steps with enough free nodes.
  static double earliest_fit(const std::vector<std::pair<double, int>>& profile, int nodes, double length) {
    std::size_t window = 0;
    bool open = false;
    for (std::size_t k = 0; k < profile.size(); ++k) {
      if (profile[k].second < nodes) {
        open = false;
        continue;
      }
      if (!open) {
        window = k;
        open = true;
      }
      const bool last = k + 1 == profile.size();
      if (last || profile[k + 1].first >= profile[window].first + length) return profile[window].first;
    }
    return profile.back().first;  // unreachable: the last step has every node free
  }

  // Takes `nodes` off the profile over [from, until), splitting steps at the ends.
  static void reserve(std::vector<std::pair<double, int>>& profile, double from, double until, int nodes) {
    auto split_at = [&profile](double t) {
      auto it = std::upper_bound(profile.begin(), profile.end(), t,
                                 [](double v, const std::pair<double, int>& step) { return v < step.first; });
      if (it != profile.begin() && std::prev(it)->first != t) profile.insert(it, {t, std::prev(it)->second});
    };
    split_at(from);
    split_at(until);
    for (auto& step : profile) {
      if (step.first >= from && step.first < until) step.second -= nodes;
    }
  }

  void start_job(std::size_t i) {
    const BatchJob& job = jobs_[i];
    QueueRun& run = runs_[i];
    for (int k = 0; k < job.nodes; ++k) {
      run.node_ids.push_back(*free_.begin());
      free_.erase(free_.begin());
    }
    free_count_ -= job.nodes;
    const double now = now_s();
    run.scheduled.start_s = now;
    run.scheduled.killed = job.run_s > job.estimate_s;
    const double length = run.scheduled.killed ? job.estimate_s : job.run_s;
    run.scheduled.end_s = now + length;
    running_.push_back({i, now + job.estimate_s});
    sim_.schedule_in(Time::seconds(length), [this, i] { end(i); });
  }

  void end(std::size_t i) {
    for (const int n : runs_[i].node_ids) free_.insert(n);
    free_count_ += jobs_[i].nodes;
    running_.erase(std::find_if(running_.begin(), running_.end(), [i](const Running& r) { return r.job == i; }));
    request_pass();
  }

  const std::vector<BatchJob>& jobs_;
  QueuePolicy policy_;
  Simulator sim_;
  std::set<int> free_;
  int free_count_;
  std::deque<std::size_t> waiting_;  // queue order
  std::vector<Running> running_;
  std::vector<QueueRun> runs_;
  std::vector<double> reserved_at_ = std::vector<double>(runs_.size(), -1.0);  // conservative; -1: none
  bool pass_pending_ = false;
};

}  // namespace

std::vector<QueueRun> simulate_batch_queue(const std::vector<BatchJob>& jobs, int nodes, QueuePolicy policy) {
  if (policy == QueuePolicy::priority) {
    throw std::invalid_argument("queue policy " + std::string(kQueuePolicyNames.name(policy)) +
                                " is not built yet (fcfs, easy and conservative are)");
  }
  if (nodes < 1) throw std::invalid_argument("a batch queue needs at least one node");
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].nodes < 1 || jobs[i].nodes > nodes) {
      throw std::invalid_argument("job " + std::to_string(jobs[i].id) + " needs " + std::to_string(jobs[i].nodes) +
                                  " nodes of the queue's " + std::to_string(nodes));
    }
    if (i > 0 && (jobs[i].submit_s < jobs[i - 1].submit_s ||
                  (jobs[i].submit_s == jobs[i - 1].submit_s && jobs[i].id < jobs[i - 1].id))) {
      throw std::invalid_argument("jobs must be in queue order (submit time, then id)");
    }
  }
  return BatchQueue(jobs, nodes, policy).run();
}

}  // namespace hpcsim
