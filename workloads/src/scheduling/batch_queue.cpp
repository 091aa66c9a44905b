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
    while (!waiting_.empty() && jobs_[waiting_.front()].nodes <= free_count_) {
      const std::size_t head = waiting_.front();
      waiting_.pop_front();
      start(head);
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
    const double now = now_s();
    for (auto it = std::next(waiting_.begin()); it != waiting_.end();) {
      const BatchJob& job = jobs_[*it];
      if (job.nodes <= free_count_) {
        const bool ends_in_time = now + job.estimate_s <= shadow_s;
        if (ends_in_time || job.nodes <= spare) {
          if (!ends_in_time) spare -= job.nodes;
          const std::size_t index = *it;
          it = waiting_.erase(it);
          start(index);
          continue;
        }
      }
      ++it;
    }
  }

  void start(std::size_t i) {
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
  bool pass_pending_ = false;
};

}  // namespace

std::vector<QueueRun> simulate_batch_queue(const std::vector<BatchJob>& jobs, int nodes, QueuePolicy policy) {
  if (policy == QueuePolicy::conservative || policy == QueuePolicy::priority) {
    throw std::invalid_argument("queue policy " + std::string(kQueuePolicyNames.name(policy)) +
                                " is not built yet (fcfs and easy are)");
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
