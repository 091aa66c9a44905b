#include "workloads/resilience/long_run.h"

#include <algorithm>
#include <cmath>

#include "sim-core/random.h"
#include "workloads/resilience/replica_timeline.h"
#include "workloads/serving/serving_summary.h"

namespace hpcsim {

double LongRunModel::failure_rate_per_s() const {
  double rate = 0;
  for (const JobFailureMode& m : modes) rate += m.rate_per_s;
  return rate;
}

namespace {

class Replica {
 public:
  Replica(const LongRunModel& model, std::uint64_t seed, std::int64_t replica)
      : m_(model),
        rng_{seeded_key({seed, static_cast<std::uint64_t>(replica), 0x7265736c6e63ULL})},
        rate_(model.failure_rate_per_s()),
        work_(Time::seconds(model.work_s)),
        interval_(Time::seconds(model.interval_s)),
        write_(Time::seconds(model.checkpoint_write_s)),
        stall_(model.mode == CheckpointMode::sync ? write_ : Time::seconds(model.snapshot_s)),
        detection_(Time::seconds(model.detection_s)),
        restart_(Time::seconds(model.restart_s)),
        requeue_(Time::seconds(model.requeue_s)),
        swap_(Time::seconds(model.spare_swap_s)),
        repair_(Time::seconds(model.repair_s)),
        restore_(Time::seconds(model.restore_s)) {
    out_.interruptions.assign(m_.modes.size(), 0);
  }

  // Every phase also goes to `timeline` (nullptr: none; the draws are the same either way).
  void record_into(std::vector<TimelineOp>* timeline) { timeline_ = timeline; }

  LongRunReplica run() {
    Time durable = Time::zero();
    next_fail_ = draw_failure();
    Time next_boundary = std::min(interval_, work_);
    while (done_ < work_) {
      const Time target = std::min(next_boundary, work_);
      if (next_fail_ < now_ + (target - done_)) {  // a failure while computing
        done_ += next_fail_ - now_;
        mark("job", "compute", "compute", now_, next_fail_);
        now_ = next_fail_;
        settle_write(durable);
        recover(durable);
        next_boundary = durable + interval_;
        continue;
      }
      mark("job", "compute", "compute", now_, now_ + (target - done_));
      now_ += target - done_;
      done_ = target;
      settle_write(durable);
      if (done_ >= work_) break;
      const char* stall = m_.mode == CheckpointMode::sync ? "checkpoint" : "snapshot";
      if (next_fail_ < now_ + stall_) {  // a failure while checkpointing
        mark("job", stall, "checkpoint", now_, next_fail_);
        out_.checkpoint += next_fail_ - now_;
        now_ = next_fail_;
        settle_write(durable);
        recover(durable);
        next_boundary = durable + interval_;
        continue;
      }
      mark("job", stall, "checkpoint", now_, now_ + stall_);
      now_ += stall_;
      out_.checkpoint += stall_;
      ++out_.checkpoints;
      if (m_.mode == CheckpointMode::sync) {
        durable = done_;
      } else {
        pending_ = true, pending_progress_ = done_, pending_at_ = now_ + write_;
        pending_from_ = now_;
      }
      next_boundary = done_ + interval_;
    }
    out_.wall = now_;
    out_.work = work_;
    return out_;
  }

 private:
  Time draw_failure() {
    const double u = 1.0 - uniform01(rng_.next());  // (0, 1]
    const double in_s = -std::log(u) / rate_;
    // Past 10^15 s (31 million years) a failure never comes within a run the clock can hold.
    return in_s > 1e15 ? Time::max() : now_ + Time::seconds(in_s);
  }

  std::size_t draw_cause() {
    const double x = uniform01(rng_.next()) * rate_;
    double sum = 0;
    for (std::size_t i = 0; i + 1 < m_.modes.size(); ++i) {
      sum += m_.modes[i].rate_per_s;
      if (x < sum) return i;
    }
    return m_.modes.size() - 1;
  }

  void mark(const char* lane, const std::string& name, const char* category, Time from, Time to) {
    if (timeline_ != nullptr) timeline_->push_back({name, lane, category, from.to_seconds(), to.to_seconds()});
  }

  // An asynchronous write that finished by now makes its checkpoint the one to roll back to.
  void settle_write(Time& durable) {
    if (pending_ && pending_at_ <= now_) {
      durable = pending_progress_, pending_ = false;
      mark("checkpoint writes", "checkpoint write", "checkpoint", pending_from_, pending_at_);
    }
  }

  // Nodes lost at now_: spares take their place when enough are free, or when waiting for repaired ones and
  // swapping beats a re-queue (the failed nodes go to repair and return to the pool); otherwise the job
  // re-queues onto other nodes and the pool is untouched. Sets the wait and returns the relaunch time.
  Time replace_nodes(int nodes, Time& wait) {
    wait = Time::zero();
    swapped_ = false;
    if (m_.spares < nodes) return requeue_;
    std::erase_if(in_repair_, [&](Time t) { return t <= now_; });
    std::sort(in_repair_.begin(), in_repair_.end());
    const int free = m_.spares - static_cast<int>(in_repair_.size());
    const Time until = free >= nodes ? Time::zero() : in_repair_[static_cast<std::size_t>(nodes - free - 1)] - now_;
    if (until + swap_ >= requeue_) return requeue_;
    wait = until;
    for (int i = 0; i < nodes; ++i) in_repair_.push_back(now_ + repair_);
    swapped_ = true;
    return swap_;
  }

  // At now_, a failure: roll back, then detection, restart and restore, again while failures strike them.
  void recover(Time durable) {
    out_.recompute += done_ - durable;
    done_ = durable;
    if (pending_) mark("checkpoint writes", "checkpoint write (lost)", "checkpoint", pending_from_, now_);
    pending_ = false;
    while (true) {
      const std::size_t cause = draw_cause();
      ++out_.interruptions[cause];
      mark("failures", m_.modes[cause].name, "failure", now_, now_);
      const int lost = m_.modes[cause].nodes_lost;
      Time wait = Time::zero();
      const Time relaunch = lost > 0 ? replace_nodes(lost, wait) : restart_;
      next_fail_ = draw_failure();
      // The phases in order; a failure inside one ends the recovery there.
      const Time phases[4] = {detection_, wait, relaunch, restore_};
      Time* buckets[4] = {&out_.detection, &out_.spare_wait, &out_.restart, &out_.restore};
      const char* names[4] = {"detection", "spare wait",
                              lost == 0 ? "restart" : swapped_ ? "spare swap" : "re-queue",
                              "restore"};
      bool struck = false;
      for (int i = 0; i < 4 && !struck; ++i) {
        if (phases[i] > Time::zero()) mark("job", names[i], "recovery", now_, std::min(now_ + phases[i], next_fail_));
        if (next_fail_ < now_ + phases[i]) {
          *buckets[i] += next_fail_ - now_;
          now_ = next_fail_;
          struck = true;
        } else {
          *buckets[i] += phases[i];
          now_ += phases[i];
        }
      }
      if (!struck) return;
    }
  }

  const LongRunModel& m_;
  SplitMix64 rng_;
  double rate_;
  Time work_, interval_, write_, stall_, detection_, restart_, requeue_, swap_, repair_, restore_;
  Time now_ = Time::zero(), done_ = Time::zero(), next_fail_ = Time::zero();
  bool pending_ = false;
  Time pending_progress_ = Time::zero(), pending_at_ = Time::zero(), pending_from_ = Time::zero();
  bool swapped_ = false;  // the last replace_nodes swapped spares in (for the timeline's name)
  std::vector<TimelineOp>* timeline_ = nullptr;
  std::vector<Time> in_repair_;
  LongRunReplica out_;
};

double mean_s(Time total, std::int64_t n) { return total.to_seconds() / static_cast<double>(n); }

}  // namespace

LongRunReplica simulate_long_run_replica(const LongRunModel& model, std::uint64_t seed, std::int64_t replica) {
  return Replica(model, seed, replica).run();
}

std::vector<TimelineOp> long_run_replica_timeline(const LongRunModel& model, std::uint64_t seed, std::int64_t replica) {
  std::vector<TimelineOp> timeline;
  Replica one(model, seed, replica);
  one.record_into(&timeline);
  one.run();
  return timeline;
}

LongRunSummary simulate_long_run(const LongRunModel& model, std::int64_t replicas, std::uint64_t seed) {
  LongRunSummary s;
  s.replicas = replicas;
  s.seed = seed;
  s.mtti_s = 1.0 / model.failure_rate_per_s();
  Time recompute, checkpoint, detection, restart, spare_wait, restore, wall;
  std::int64_t checkpoints = 0, interruptions = 0;
  std::vector<std::int64_t> by_mode(model.modes.size(), 0);
  s.wall_s.reserve(static_cast<std::size_t>(replicas));
  for (std::int64_t r = 0; r < replicas; ++r) {
    const LongRunReplica one = simulate_long_run_replica(model, seed, r);
    s.wall_s.push_back(one.wall.to_seconds());
    wall += one.wall, recompute += one.recompute, checkpoint += one.checkpoint, detection += one.detection;
    restart += one.restart, spare_wait += one.spare_wait, restore += one.restore;
    checkpoints += one.checkpoints;
    for (std::size_t i = 0; i < by_mode.size(); ++i) by_mode[i] += one.interruptions[i], interruptions += one.interruptions[i];
  }
  const auto n = static_cast<double>(replicas);
  s.mean_wall_s = mean_s(wall, replicas);
  double squares = 0;
  for (double w : s.wall_s) squares += (w - s.mean_wall_s) * (w - s.mean_wall_s);
  s.stderr_wall_s = replicas > 1 ? std::sqrt(squares / (n - 1) / n) : 0.0;
  std::vector<double> sorted = s.wall_s;
  s.p5_wall_s = nearest_rank_percentile(sorted, 0.05);
  s.p50_wall_s = nearest_rank_percentile(sorted, 0.50);
  s.p95_wall_s = nearest_rank_percentile(sorted, 0.95);
  s.ettr = model.work_s / s.mean_wall_s;
  s.recompute_s = mean_s(recompute, replicas), s.checkpoint_s = mean_s(checkpoint, replicas);
  s.detection_s = mean_s(detection, replicas), s.restart_s = mean_s(restart, replicas);
  s.spare_wait_s = mean_s(spare_wait, replicas), s.restore_s = mean_s(restore, replicas);
  s.checkpoints = static_cast<double>(checkpoints) / n;
  s.interruptions = static_cast<double>(interruptions) / n;
  for (std::int64_t count : by_mode) s.interruptions_by_mode.push_back(static_cast<double>(count) / n);
  return s;
}

namespace {
// The segments a run of `work` cuts into: full intervals followed by a checkpoint, and the last one without.
template <class F>
double over_segments(double work_s, double interval_s, double checkpoint_s, F per_segment) {
  const double full = std::floor(work_s / interval_s);
  const double rest = work_s - full * interval_s;
  if (rest > 0) return full * per_segment(interval_s + checkpoint_s) + per_segment(rest);
  return (full - 1) * per_segment(interval_s + checkpoint_s) + per_segment(interval_s);
}
}  // namespace

double expected_wall_time(double work_s, double interval_s, double checkpoint_s, double recovery_s, double rate_per_s) {
  const double l = rate_per_s;
  return over_segments(work_s, interval_s, checkpoint_s,
                       [&](double x) { return std::exp(l * recovery_s) * std::expm1(l * x) / l; });
}

double expected_lost_time(double work_s, double interval_s, double checkpoint_s, double rate_per_s) {
  const double l = rate_per_s;
  return over_segments(work_s, interval_s, checkpoint_s, [&](double x) { return std::expm1(l * x) / l - x; });
}

}  // namespace hpcsim
