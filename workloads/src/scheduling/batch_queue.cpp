#include "workloads/scheduling/batch_queue.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <list>
#include <set>
#include <stdexcept>
#include <string>

#include "workloads/scheduling/node_pool.h"

namespace hpcsim {

class BatchScheduler::Impl {
 public:
  Impl(Simulator& sim, QueueSetup setup, QueuePolicy policy, RunTimeHook run_time)
      : sim_(sim), setup_(resolve_queue_setup(std::move(setup))), policy_(policy), run_time_(std::move(run_time)) {
    for (const Partition& p : setup_.partitions) parts_.emplace_back(NodePool(p.first_node, p.nodes, setup_.node_leaf));
    usage_.assign(setup_.accounts.size(), 0.0);
    running_nodes_.assign(setup_.accounts.size(), 0);
    for (const QosLevel& q : setup_.qos) max_qos_priority_ = std::max(max_qos_priority_, q.priority);
    for (const Account& a : setup_.accounts) total_shares_ += a.shares;
  }

  std::string check(const BatchJob& job) const {
    if (job.kind >= 0 && !run_time_) return "is a training job but the queue has no run-time model";
    return job_refusal(job, setup_);
  }

  std::size_t enqueue(const BatchJob& job) {
    if (const std::string why = check(job); !why.empty()) {
      throw std::invalid_argument("job " + std::to_string(job.id) + " " + why);
    }
    const std::size_t handle = runs_.size();
    runs_.emplace_back();
    runs_.back().scheduled.job = job;
    PartitionState& p = parts_[static_cast<std::size_t>(job.partition)];
    p.waiting.push_back(handle);
    p.waiting_sizes.insert(job.nodes);
    request_pass();
    return handle;
  }

  std::size_t submit(BatchJob job) {
    job.submit_s = now_s();
    return enqueue(job);
  }

  void submit_at(const BatchJob& job) {
    if (Time::seconds(job.submit_s) < sim_.now()) throw std::invalid_argument("job " + std::to_string(job.id) + " is submitted in the past");
    // Checked now, so a bad job fails before the simulation runs.
    if (const std::string why = check(job); !why.empty()) {
      throw std::invalid_argument("job " + std::to_string(job.id) + " " + why);
    }
    // The job waits in a list until its submit event (an event's capture is small).
    const std::size_t index = future_.size();
    future_.push_back(job);
    sim_.schedule_at(Time::seconds(job.submit_s), [this, index] { enqueue(future_[index]); });
  }

  std::string check_public(const BatchJob& job) const { return check(job); }

  void on_end(std::function<void(std::size_t, const QueueRun&)> callback) { on_end_ = std::move(callback); }
  const QueueRun& run(std::size_t handle) const { return runs_.at(handle); }
  std::size_t submitted() const { return runs_.size(); }
  std::vector<QueueRun> take_runs() { return std::move(runs_); }

 private:
  struct PartitionState {
    explicit PartitionState(NodePool nodes) : pool(std::move(nodes)) {}
    NodePool pool;
    std::list<std::size_t> waiting;                      // queue order
    std::multiset<int> waiting_sizes;                    // nodes asked by the waiting jobs
    std::set<std::pair<double, std::size_t>> running;    // (estimated end, handle)
    // Conservative: the free nodes over time from the last pass on, (from time, free nodes) steps kept
    // across passes: running jobs until their estimated ends and every reservation; per handle, its
    // reservation (-1: none) and the count of frees (capacity handed back: an early end, a reservation
    // moved earlier) when it last took its earliest fit.
    std::vector<std::pair<double, int>> profile;
    std::vector<double> reserved_at;
    std::vector<std::uint64_t> fit_at_frees;
    std::uint64_t frees = 0;
    // Jobs that started since the last pass with an estimate raised to their run time (estimate_only):
    // (old estimated end, new one, nodes). The next pass takes the extra time off the profile and re-fits
    // every reservation in full, as a rebuilt profile would.
    struct Grown {
      double from, until;
      int nodes;
    };
    std::vector<Grown> grown;
  };

  double now_s() const { return sim_.now().to_seconds(); }

  // One pass per instant, after every end and submit of that instant (they were queued before it).
  void request_pass() {
    if (pass_pending_) return;
    pass_pending_ = true;
    sim_.schedule_in(Time::zero(), [this] {
      pass_pending_ = false;
      if (policy_ == QueuePolicy::priority) accrue_usage();
      for (std::size_t p = 0; p < parts_.size(); ++p) pass(p);
      if (policy_ == QueuePolicy::conservative) wake_at_earliest_reservation();
    });
  }

  void pass(std::size_t index) {
    PartitionState& p = parts_[index];
    if (p.waiting.empty()) return;
    if (policy_ == QueuePolicy::conservative) {
      pass_conservative(p);
      return;
    }
    if (policy_ == QueuePolicy::priority) order_by_priority(p, setup_.partitions[index]);
    do {
      while (!p.waiting.empty() && job(p.waiting.front()).nodes <= p.pool.free()) {
        const std::size_t head = p.waiting.front();
        p.waiting.pop_front();
        start_job(p, head);
      }
    } while (!p.waiting.empty() && policy_ == QueuePolicy::priority && preempt_for(p, p.waiting.front()));
    if (p.waiting.empty() || policy_ == QueuePolicy::fcfs) return;
    // EASY: the blocked head's reservation at the shadow time, counting every job that ends by then.
    const std::size_t head = p.waiting.front();
    int available = p.pool.free();
    double shadow_s = now_s();
    for (auto it = p.running.begin(); it != p.running.end(); ++it) {
      if (available >= job(head).nodes && it->first > shadow_s) break;
      available += job(it->second).nodes;
      shadow_s = it->first;
    }
    int spare = available - job(head).nodes;
    if (!runs_[head].reservation_s) runs_[head].reservation_s = shadow_s;
    // Nothing can backfill when no waiting job fits the free nodes.
    if (p.pool.free() == 0 || *p.waiting_sizes.begin() > p.pool.free()) return;
    const double now = now_s();
    for (auto it = std::next(p.waiting.begin()); it != p.waiting.end() && p.pool.free() > 0;) {
      const BatchJob& j = job(*it);
      if (j.nodes <= p.pool.free()) {
        const bool ends_in_time = now + j.estimate_s <= shadow_s;
        if (ends_in_time || j.nodes <= spare) {
          if (!ends_in_time) spare -= j.nodes;
          const std::size_t handle = *it;
          it = p.waiting.erase(it);
          start_job(p, handle);
          continue;
        }
      }
      ++it;
    }
  }

  // Stops just enough running jobs of the QoS levels the head preempts, most recently started first (the
  // least work lost), for the head to start now; false (nothing stopped) when they cannot make room.
  bool preempt_for(PartitionState& p, std::size_t head) {
    const std::vector<int>& preempts = setup_.qos[static_cast<std::size_t>(job(head).qos)].preempts;
    if (preempts.empty()) return false;
    std::vector<std::size_t> candidates;
    for (const auto& [estimated_end, handle] : p.running) {
      if (std::find(preempts.begin(), preempts.end(), job(handle).qos) != preempts.end()) candidates.push_back(handle);
    }
    std::sort(candidates.begin(), candidates.end(), [this](std::size_t a, std::size_t b) {
      const double sa = runs_[a].scheduled.start_s, sb = runs_[b].scheduled.start_s;
      return sa != sb ? sa > sb : a > b;
    });
    int room = p.pool.free();
    std::size_t needed = 0;
    while (room < job(head).nodes && needed < candidates.size()) room += job(candidates[needed++]).nodes;
    if (room < job(head).nodes) return false;
    for (std::size_t k = 0; k < needed; ++k) stop(p, candidates[k]);
    return true;
  }

  void stop(PartitionState& p, std::size_t handle) {
    if (policy_ == QueuePolicy::priority) accrue_usage();
    QueueRun& run = runs_[handle];
    const BatchJob& j = run.scheduled.job;
    sim_.cancel(end_events_[handle]);
    p.pool.give_back(run.node_ids);
    p.running.erase({run.scheduled.start_s + j.estimate_s, handle});
    running_nodes_[static_cast<std::size_t>(j.account)] -= j.nodes;
    const double now = now_s();
    if (setup_.preempt_mode == PreemptMode::cancel) {
      run.cancelled = true;
      run.scheduled.end_s = now;
      run.scheduled.killed = false;
      if (on_end_) on_end_(handle, run);
      return;
    }
    run.requeued_runs.push_back(PreemptedRun{run.scheduled.start_s, now, std::move(run.node_ids)});
    run.node_ids.clear();
    // Back in the queue; the priority order of the next pass places it.
    p.waiting.push_back(handle);
    p.waiting_sizes.insert(j.nodes);
  }

  // Multifactor priority (queue_setup.h), highest first; ties in queue order (the sort is stable).
  void order_by_priority(PartitionState& p, const Partition& partition) {
    const double now = now_s();
    double total_usage = 0;
    for (const double u : usage_) total_usage += u;
    std::vector<double> fairshare(usage_.size(), 1.0);
    for (std::size_t a = 0; a < usage_.size(); ++a) {
      const double share = setup_.accounts[a].shares / total_shares_;
      if (total_usage > 0 && share > 0) fairshare[a] = std::exp2(-(usage_[a] / total_usage) / share);
      if (share <= 0) fairshare[a] = 0;
    }
    const PriorityWeights& w = setup_.weights;
    auto priority = [&](std::size_t handle) {
      const BatchJob& j = job(handle);
      const double age = w.age_max_s > 0 ? std::min((now - j.submit_s) / w.age_max_s, 1.0) : 1.0;
      const double qos = max_qos_priority_ > 0 ? setup_.qos[static_cast<std::size_t>(j.qos)].priority / max_qos_priority_ : 0;
      return w.age * age + w.size * j.nodes / partition.nodes +
             w.fairshare * fairshare[static_cast<std::size_t>(j.account)] + w.qos * qos + j.priority;
    };
    std::vector<std::pair<double, std::size_t>> keyed;
    keyed.reserve(p.waiting.size());
    for (const std::size_t h : p.waiting) keyed.emplace_back(priority(h), h);
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    auto it = p.waiting.begin();
    for (const auto& k : keyed) *it++ = k.second;
  }

  // Usage decays continuously with the half-life; a running job adds its nodes' seconds as they pass:
  // u(t + dt) = u(t) d + running nodes x (1 - d) h / ln 2 with d = 2^(-dt / h).
  void accrue_usage() {
    const double now = now_s();
    const double dt = now - usage_as_of_;
    if (dt <= 0) return;
    const double h = setup_.weights.usage_half_life_s;
    const double d = h > 0 ? std::exp2(-dt / h) : 1.0;
    for (std::size_t a = 0; a < usage_.size(); ++a) {
      const double added = h > 0 ? running_nodes_[a] * (1 - d) * h / std::log(2.0) : running_nodes_[a] * dt;
      usage_[a] = usage_[a] * d + added;
    }
    usage_as_of_ = now;
  }

  // Conservative backfilling: the free nodes over time hold the running jobs (until their estimated ends)
  // and every waiting job's reservation. In queue order each waiting job gives its reservation back and
  // takes the earliest fit, which is never later than the one it gave back (compression when jobs end
  // early); a job without one takes the earliest fit around the others'. Reservations at now start (once
  // the pool holds their nodes: see the pass).
  // The same schedule as rebuilding the profile at every pass, for less: the profile is kept (a job that
  // starts keeps its reservation's nodes until its estimated end; one ending early hands back the rest, in
  // end()); a job with a reservation looks for an earlier fit only when capacity came back since its last
  // fit (otherwise its fit cannot have changed), and only before its reservation, counting its own nodes
  // as free instead of taking them off and putting them back. After a job started with its estimate
  // raised to its run time (estimate_only), every reservation is re-fitted in full (it may move later).
  void pass_conservative(PartitionState& p) {
    const double now = now_s();
    p.reserved_at.resize(runs_.size(), -1.0);
    p.fit_at_frees.resize(runs_.size(), 0);
    std::vector<std::pair<double, int>>& profile = p.profile;
    if (profile.empty()) {
      profile.emplace_back(now, p.pool.free());  // the first pass: nothing runs yet
    } else {
      // Drop the steps before now; the step holding now starts at now.
      auto after = std::upper_bound(profile.begin(), profile.end(), now,
                                    [](double v, const std::pair<double, int>& step) { return v < step.first; });
      const int free_now = std::prev(after)->second;
      profile.erase(profile.begin(), std::prev(after));
      profile.front() = {now, free_now};
    }
    const bool refit_all = !p.grown.empty();
    for (const PartitionState::Grown& g : p.grown) reserve(profile, g.from, g.until, g.nodes);
    p.grown.clear();
    for (auto it = p.waiting.begin(); it != p.waiting.end();) {
      const std::size_t i = *it;
      const BatchJob& j = job(i);
      double start = p.reserved_at[i];
      if (start < 0) {
        start = earliest_fit(profile, j.nodes, j.estimate_s, std::numeric_limits<double>::infinity(), 0, 0, 0);
        reserve(profile, start, start + j.estimate_s, j.nodes);
      } else if (refit_all || start < now) {  // a running job's estimate grew, or it waited for an end (above)
        reserve(profile, start, start + j.estimate_s, -j.nodes);
        start = earliest_fit(profile, j.nodes, j.estimate_s, std::numeric_limits<double>::infinity(), 0, 0, 0);
        reserve(profile, start, start + j.estimate_s, j.nodes);
        ++p.frees;
      } else if (p.fit_at_frees[i] != p.frees) {
        const double held = p.reserved_at[i];
        // Its own reservation's ends are steps, so the scan can count its nodes as free on exactly it.
        split_at(profile, held);
        split_at(profile, held + j.estimate_s);
        start = earliest_fit(profile, j.nodes, j.estimate_s, held, held, held + j.estimate_s, j.nodes);
        if (start < held) {
          reserve(profile, held, held + j.estimate_s, -j.nodes);
          reserve(profile, start, start + j.estimate_s, j.nodes);
          ++p.frees;
        }
      }
      p.fit_at_frees[i] = p.frees;
      p.reserved_at[i] = start;
      if (!runs_[i].reservation_s && start > now) runs_[i].reservation_s = start;
      // A reservation at now starts once its nodes are back in the pool. The profile counts seconds in
      // double, the clock picoseconds: past ~10^4 s a double cannot tell apart instants a few ps apart, so
      // a running job whose estimated end is this instant in the profile can still end a few ps later on
      // the clock (a wake-up at the reservation, rounded to ps, came first). That end's pass starts it.
      if (start == now && j.nodes <= p.pool.free()) {
        it = p.waiting.erase(it);
        start_job(p, i);
      } else {
        ++it;
      }
    }
  }

  // A reservation no end reaches (after a plan grew, a job can be re-fitted past every running job's
  // estimated end) still gets its pass: after each conservative pass the queue wakes at the earliest
  // reservation (and only then). The wake-up only asks for a pass, so that instant's ends and submits
  // still come first.
  void wake_at_earliest_reservation() {
    const Time now = sim_.now();
    std::optional<Time> earliest;
    for (const PartitionState& p : parts_) {
      for (const std::size_t i : p.waiting) {
        const Time at = Time::seconds(p.reserved_at[i]);
        if (at > now && (!earliest || at < *earliest)) earliest = at;
      }
    }
    if (sim_.is_pending(wake_event_)) {
      if (earliest && *earliest == wake_time_) return;
      sim_.cancel(wake_event_);
    }
    if (!earliest) return;
    wake_time_ = *earliest;
    wake_event_ = sim_.schedule_at(wake_time_, [this] { request_pass(); });
  }

  // The earliest step start before `limit` at which `nodes` stay free for `length` seconds (the last step
  // lasts forever), or `limit` when there is none, counting `held_nodes` more free over [held_from,
  // held_until) (the job's own reservation). One sweep keeping the start of the current run of steps with
  // enough free nodes.
  static double earliest_fit(const std::vector<std::pair<double, int>>& profile, int nodes, double length, double limit,
                             double held_from, double held_until, int held_nodes) {
    std::size_t window = 0;
    bool open = false;
    for (std::size_t k = 0; k < profile.size(); ++k) {
      const double at = profile[k].first;
      const int free = profile[k].second + (at >= held_from && at < held_until ? held_nodes : 0);
      if (free < nodes) {
        open = false;
        if (at >= limit) return limit;
        continue;
      }
      if (!open) {
        if (at >= limit) return limit;
        window = k;
        open = true;
      }
      const bool last = k + 1 == profile.size();
      if (last || profile[k + 1].first >= profile[window].first + length) return profile[window].first;
    }
    return std::min(limit, profile.back().first);  // unreachable: the last step has every node free
  }

  // Splits the step holding t at t (unless t is before the first step); the first step at or after t.
  static std::vector<std::pair<double, int>>::iterator split_at(std::vector<std::pair<double, int>>& profile, double t) {
    auto it = std::upper_bound(profile.begin(), profile.end(), t,
                               [](double v, const std::pair<double, int>& step) { return v < step.first; });
    if (it == profile.begin()) return it;
    const auto before = std::prev(it);
    return before->first == t ? before : profile.insert(it, {t, before->second});
  }

  // Takes `nodes` off the profile over [from, until), splitting steps at the ends and merging a step into
  // the one before when they hold as many free nodes (the kept profile stays as short as a rebuilt one);
  // the part before the profile's first step is not in it.
  static void reserve(std::vector<std::pair<double, int>>& profile, double from, double until, int nodes) {
    split_at(profile, from);
    auto it = split_at(profile, until);
    std::size_t last = static_cast<std::size_t>(it - profile.begin());  // the step at until (or the end)
    std::size_t first = static_cast<std::size_t>(
        std::lower_bound(profile.begin(), profile.end(), from,
                         [](const std::pair<double, int>& step, double v) { return step.first < v; }) -
        profile.begin());
    for (std::size_t k = first; k < last; ++k) profile[k].second -= nodes;
    if (last < profile.size() && last > 0 && profile[last - 1].second == profile[last].second) {
      profile.erase(profile.begin() + static_cast<std::ptrdiff_t>(last));
    }
    if (first < profile.size() && first > 0 && profile[first - 1].second == profile[first].second) {
      profile.erase(profile.begin() + static_cast<std::ptrdiff_t>(first));
    }
  }

  const BatchJob& job(std::size_t handle) const { return runs_[handle].scheduled.job; }

  void start_job(PartitionState& p, std::size_t handle) {
    if (policy_ == QueuePolicy::priority) accrue_usage();
    QueueRun& run = runs_[handle];
    BatchJob& j = run.scheduled.job;
    p.waiting_sizes.erase(p.waiting_sizes.find(j.nodes));
    run.node_ids = p.pool.take(j.nodes);
    const double now = now_s();
    run.scheduled.start_s = now;
    run.scheduled.run_s = j.kind >= 0 ? run_time_(j, run.node_ids) : j.run_s;
    if (!(run.scheduled.run_s > 0)) {
      throw std::logic_error("job " + std::to_string(j.id) + " got a run time of " + std::to_string(run.scheduled.run_s) + " s");
    }
    const double planned_s = j.estimate_s;
    if (j.estimate_only) j.estimate_s = std::max(j.estimate_s, run.scheduled.run_s);
    if (policy_ == QueuePolicy::conservative && j.estimate_s > planned_s) {
      p.grown.push_back({now + planned_s, now + j.estimate_s, j.nodes});
    }
    run.scheduled.killed = run.scheduled.run_s > j.estimate_s;
    const double length = run.scheduled.killed ? j.estimate_s : run.scheduled.run_s;
    run.scheduled.end_s = now + length;
    p.running.emplace(now + j.estimate_s, handle);
    running_nodes_[static_cast<std::size_t>(j.account)] += j.nodes;
    end_events_.resize(runs_.size());
    end_events_[handle] = sim_.schedule_in(Time::seconds(length), [this, handle] { end(handle); });
  }

  void end(std::size_t handle) {
    if (policy_ == QueuePolicy::priority) accrue_usage();
    QueueRun& run = runs_[handle];
    const BatchJob& j = run.scheduled.job;
    PartitionState& p = parts_[static_cast<std::size_t>(j.partition)];
    p.pool.give_back(run.node_ids);
    p.running.erase({run.scheduled.start_s + j.estimate_s, handle});
    if (policy_ == QueuePolicy::conservative && now_s() < run.scheduled.start_s + j.estimate_s) {
      // Ended before its estimate: its nodes are free from now on, and reservations may move earlier.
      reserve(p.profile, now_s(), run.scheduled.start_s + j.estimate_s, -j.nodes);
      ++p.frees;
    }
    running_nodes_[static_cast<std::size_t>(j.account)] -= j.nodes;
    request_pass();
    if (on_end_) on_end_(handle, run);
  }

  Simulator& sim_;
  QueueSetup setup_;
  QueuePolicy policy_;
  RunTimeHook run_time_;
  std::vector<PartitionState> parts_;
  std::vector<QueueRun> runs_;  // per handle
  std::vector<EventId> end_events_;  // per handle: its end while it runs
  std::deque<BatchJob> future_;  // jobs submitted ahead of time (submit_at), in call order
  std::function<void(std::size_t, const QueueRun&)> on_end_;
  // Fair share: decayed node-seconds per account, as of usage_as_of_.
  std::vector<double> usage_;
  std::vector<int> running_nodes_;
  double usage_as_of_ = 0;
  double max_qos_priority_ = 0;
  double total_shares_ = 0;
  bool pass_pending_ = false;
  EventId wake_event_;  // conservative: the pass at the earliest reservation
  Time wake_time_ = Time::zero();
};

BatchScheduler::BatchScheduler(Simulator& sim, QueueSetup setup, QueuePolicy policy, RunTimeHook run_time)
    : impl_(std::make_unique<Impl>(sim, std::move(setup), policy, std::move(run_time))) {}
BatchScheduler::~BatchScheduler() = default;
std::size_t BatchScheduler::submit(BatchJob job) { return impl_->submit(std::move(job)); }
void BatchScheduler::submit_at(BatchJob job) { impl_->submit_at(job); }
std::string BatchScheduler::check(const BatchJob& job) const { return impl_->check_public(job); }
void BatchScheduler::on_end(std::function<void(std::size_t, const QueueRun&)> callback) {
  impl_->on_end(std::move(callback));
}
const QueueRun& BatchScheduler::run(std::size_t handle) const { return impl_->run(handle); }
std::size_t BatchScheduler::submitted() const { return impl_->submitted(); }
std::vector<QueueRun> BatchScheduler::take_runs() { return impl_->take_runs(); }

std::vector<QueueRun> simulate_batch_queue(const std::vector<BatchJob>& jobs, const QueueSetup& setup,
                                           QueuePolicy policy, RunTimeHook run_time,
                                           const std::function<void(std::size_t ended, std::size_t jobs)>& ended) {
  for (std::size_t i = 1; i < jobs.size(); ++i) {
    if (jobs[i].submit_s < jobs[i - 1].submit_s ||
        (jobs[i].submit_s == jobs[i - 1].submit_s && jobs[i].id < jobs[i - 1].id)) {
      throw std::invalid_argument("jobs must be in queue order (submit time, then id)");
    }
  }
  Simulator sim;
  BatchScheduler scheduler(sim, setup, policy, std::move(run_time));
  std::size_t count = 0;
  if (ended) scheduler.on_end([&](std::size_t, const QueueRun&) { ended(++count, jobs.size()); });
  for (const BatchJob& job : jobs) scheduler.submit_at(job);
  sim.run();
  return scheduler.take_runs();
}

std::vector<QueueRun> simulate_batch_queue(const std::vector<BatchJob>& jobs, int nodes, QueuePolicy policy) {
  QueueSetup setup;
  setup.nodes = nodes;
  // The accounts the jobs name (a trace's users), equal shares.
  int accounts = 1;
  for (const BatchJob& job : jobs) accounts = std::max(accounts, job.account + 1);
  for (int a = 0; a < accounts; ++a) setup.accounts.push_back(Account{"account " + std::to_string(a), 1});
  return simulate_batch_queue(jobs, setup, policy);
}

}  // namespace hpcsim
