#include "models/collectives/collective_runner.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "models/collectives/algorithm_selector.h"

#include "collective_cohort.h"
#include "collective_symmetry.h"

namespace hpcsim {

namespace {

using collective_detail::Cohort;
using collective_detail::Quotient;

// One pattern's transfers over a group, routed into flat arrays with ClusterFabric::route_once: nothing is
// kept in the fabric's route cache. Computing a route costs less than finding it among a quarter of a
// million cached ones (a 16,384-GPU halving-doubling all-reduce), and caching them cost most of the memory.
struct RoutedTransfers {
  std::vector<ResourceId> paths;        // every routed transfer's path, one after another
  std::vector<std::uint32_t> path_end;  // per transfer: where its path ends in `paths` (0 length: not routed)
  std::vector<std::int64_t> latency_ps;
  std::vector<double> bandwidth;
  Hop scratch;

  void clear(std::size_t transfers) {
    paths.clear();
    path_begin_.assign(transfers, 0);
    path_end.assign(transfers, 0);
    latency_ps.assign(transfers, 0);
    bandwidth.assign(transfers, 0);
  }
  // Routes transfer k (after clear(), in any order).
  void route(const ClusterFabric& fabric, const CollectiveGroup& group, const Transfer& t, std::size_t k) {
    const Hop& h = fabric.route_once(group.gpu(t.src), group.gpu(t.dst), group.nic(t.rail), scratch);
    path_begin_[k] = static_cast<std::uint32_t>(paths.size());
    paths.insert(paths.end(), h.path.begin(), h.path.end());
    path_end[k] = static_cast<std::uint32_t>(paths.size());
    latency_ps[k] = static_cast<std::int64_t>(Time::seconds(h.latency_s).picoseconds());
    bandwidth[k] = h.bandwidth;
  }
  void route_all(const ClusterFabric& fabric, const CollectiveGroup& group, const std::vector<Transfer>& transfers) {
    clear(transfers.size());
    for (std::size_t k = 0; k < transfers.size(); ++k) route(fabric, group, transfers[k], k);
  }
  std::span<const ResourceId> path(std::size_t k) const {
    return {paths.data() + path_begin_[k], path_end[k] - path_begin_[k]};
  }

 private:
  std::vector<std::uint32_t> path_begin_;
};

// Orders transfers by latency, keeping transfer order among equals (a stable counting sort): a step has a
// handful of distinct latencies (one per switch-hop count, one inside a node), so this is linear where
// sorting 65,536 transfers of a large ring was a visible share of the whole run. Fills `latencies` (distinct,
// ascending), `group_begin` (per latency, its first position in `order`, and the end) and `order`.
struct LatencyOrder {
  std::vector<std::uint32_t> bucket, fill;  // scratch

  void operator()(const std::vector<std::int64_t>& latency_ps, std::vector<std::int64_t>& latencies,
                  std::vector<std::uint32_t>& group_begin, std::vector<std::uint32_t>& order) {
    latencies.clear();
    for (const std::int64_t l : latency_ps) {
      const auto at = std::lower_bound(latencies.begin(), latencies.end(), l);
      if (at == latencies.end() || *at != l) latencies.insert(at, l);
    }
    group_begin.assign(latencies.size() + 1, 0);
    bucket.resize(latency_ps.size());
    for (std::size_t t = 0; t < latency_ps.size(); ++t) {
      bucket[t] = static_cast<std::uint32_t>(
          std::lower_bound(latencies.begin(), latencies.end(), latency_ps[t]) - latencies.begin());
      ++group_begin[bucket[t] + 1];
    }
    for (std::size_t k = 1; k < group_begin.size(); ++k) group_begin[k] += group_begin[k - 1];
    order.resize(latency_ps.size());
    fill.assign(group_begin.begin(), group_begin.end() - 1);
    for (std::size_t t = 0; t < latency_ps.size(); ++t) order[fill[bucket[t]]++] = static_cast<std::uint32_t>(t);
  }
};

// Whether no resource carries two of the routed transfers' paths (a stamp per resource, reused).
struct IndependenceCheck {
  std::vector<std::uint32_t> stamp;
  std::uint32_t epoch = 0;

  bool operator()(const RoutedTransfers& routed, std::size_t resources) {
    if (stamp.size() < resources) stamp.resize(resources, 0);
    if (++epoch == 0) {
      std::fill(stamp.begin(), stamp.end(), 0);
      epoch = 1;
    }
    for (const ResourceId r : routed.paths) {
      if (stamp[r] == epoch) return false;
      stamp[r] = epoch;
    }
    return true;
  }
};

// Every link the schedule's transfers over `group` cross, appended to `links`; with `routes`, what routing
// each pattern gave is kept there too (routes[p] for pattern p).
void add_schedule_links(const ClusterFabric& fabric, const FairShare& fs, const CollectiveGroup& group,
                        const CollectiveSchedule& schedule, std::vector<ResourceId>& links,
                        LockstepMemo::RoutedPattern* routes = nullptr) {
  std::vector<Transfer> transfers;
  RoutedTransfers routed;
  LatencyOrder by_latency;
  IndependenceCheck independent;
  for (int p = 0; p < schedule.patterns(); ++p) {
    schedule.transfers(p, transfers);
    routed.route_all(fabric, group, transfers);
    links.insert(links.end(), routed.paths.begin(), routed.paths.end());
    if (!routes) continue;
    LockstepMemo::RoutedPattern& r = routes[p];
    by_latency(routed.latency_ps, r.latencies, r.group_begin, r.order);
    r.bandwidth = routed.bandwidth;
    r.independent = independent(routed, fs.resource_count());
    r.known = true;
  }
}

class CollectiveRun : public std::enable_shared_from_this<CollectiveRun> {
 public:
  CollectiveRun(Simulator& sim, FairShare& fs, const ClusterFabric& fabric, CollectiveGroup group,
                CollectiveSchedule schedule, bool replay, CollectiveDone done,
                std::shared_ptr<Cohort> cohort, int run_index, std::shared_ptr<const Quotient> quotient = nullptr,
                int members = 1, std::shared_ptr<const LockstepMemo::Routes> routes = nullptr)
      : sim_(sim), fs_(fs), fabric_(fabric), group_(std::move(group)), schedule_(std::move(schedule)),
        replay_(replay), done_(std::move(done)), measured_ps_(schedule_.patterns(), -1),
        pattern_flows_(schedule_.patterns(), 0), cohort_(std::move(cohort)), run_index_(run_index),
        quotient_(std::move(quotient)), members_(members), routes_(std::move(routes)) {}

  void begin(CollectiveAlgorithm algorithm) {
    stats_.algorithm = algorithm;
    stats_.start = sim_.now();
    stats_.steps = schedule_.steps();
    // Through an event, so `done` never runs inside start_collective (even with nothing to move); after the
    // schedule's setup time, if it has one.
    sim_.schedule_in(Time::seconds(schedule_.setup_latency_s()), [self = shared_from_this()] { self->next_step(); });
  }

 private:
  void next_step() {
    if (step_ == schedule_.steps()) {
      stats_.end = sim_.now();
      if (cohort_) cohort_->run_done();
      CollectiveDone done = std::move(done_);
      done(stats_);
      return;
    }
    const int p = schedule_.pattern(step_);
    if (cohort_) {
      const int previous = step_ > 0 ? schedule_.pattern(step_ - 1) : p;
      if (cohort_->begin_step(run_index_, step_, p, previous, now_ps())) {
        replay(p, cohort_->replay_ps(p));
        return;
      }
    } else if (replay_ && measured_ps_[p] >= 0 && fs_.active_flows() == 0) {
      replay(p, measured_ps_[p]);
      return;
    }
    simulate_step(p);
  }

  std::int64_t now_ps() const { return static_cast<std::int64_t>(sim_.now().picoseconds()); }

  void replay(int p, std::int64_t duration_ps) {
    ++stats_.steps_replayed;
    stats_.flows_represented += pattern_flows_[p];
    ++step_;
    sim_.schedule_in(Time::ps(duration_ps), [self = shared_from_this()] { self->next_step(); });
  }

  // Routes every transfer of the pattern, then launches the flows in groups of equal latency. With what
  // routing the pattern gave kept for the call (lockstep_memo.h: the claim routed every transfer), its
  // latency order, bandwidths and link independence are read from there, and only the transfers launched
  // are routed: the same routes, so the same flows.
  void simulate_step(int p) {
    pattern_ = p;
    schedule_.transfers(p, transfers_);
    const LockstepMemo::RoutedPattern* known =
        routes_ ? &(*routes_)[static_cast<std::size_t>(run_index_) * schedule_.patterns() + p] : nullptr;
    if (known && !known->known) known = nullptr;
    bool routed_all = false;
    if (known) {
      order_.assign(known->order.begin(), known->order.end());
      latencies_.assign(known->latencies.begin(), known->latencies.end());
      group_begin_.assign(known->group_begin.begin(), known->group_begin.end());
      bandwidth_ = known->bandwidth;
    } else {
      routed_.route_all(fabric_, group_, transfers_);
      routed_all = true;
      by_latency_(routed_.latency_ps, latencies_, group_begin_, order_);
      bandwidth_ = routed_.bandwidth;
    }
    // Independent flows on links no other collective holds: one flow per class stands for its members.
    // Only for a call of one group: the independence is checked within this run's transfers, and another
    // group of the call (its own NICs, the same switch links) may share links with them.
    if (cohort_ && !quotient_ && !transfers_.empty() && cohort_->exclusive() && cohort_->runs() == 1 &&
        keep_representatives(known ? known->independent : independent_(routed_, fs_.resource_count()))) {
      cohort_->note_shortcut();
    }
    if (!routed_all && !quotient_) {  // the flows launched need their paths
      routed_.clear(transfers_.size());
      for (std::uint32_t pos = 0; pos < group_begin_.back(); ++pos) {
        routed_.route(fabric_, group_, transfers_[order_[pos]], order_[pos]);
      }
    }
    outstanding_ = group_begin_.back();
    pattern_flows_[p] = transfers_.size() * members_;
    stats_.flows_represented += transfers_.size() * members_;
    step_start_ = sim_.now();
    exclusive_ = fs_.active_flows() == 0;
    if (outstanding_ == 0) {
      finish_step();
      return;
    }
    for (std::size_t k = 0; k < latencies_.size(); ++k) {
      sim_.schedule_in(Time::ps(latencies_[k]),
                       [self = shared_from_this(), i = group_begin_[k], j = group_begin_[k + 1]] { self->launch(i, j); });
    }
  }

  // Where every link the step's transfers cross carries one of them, no flow shares a link with another, and
  // with no other collective on the links (an exclusive claim) each flow's rate is its route's bandwidth from
  // the moment it starts to its end: the solve at its arrival fills it alone (level = the smallest capacity
  // on its path, capacity / 1), and no later solve reaches it, since re-solves spread only over links that
  // changed flows cross. Flows of one latency group (launched together) with the same size and bandwidth then
  // have the same rate, due time and remaining amount at every instant: the solver treats them alike. When
  // distinct classes of a group also end at distinct due times (checked, with a picosecond to spare), each
  // class's members sit together in the solver's (due time, start order) queue, with no other flow among
  // them, so the completion loop takes all or none of them at any instant, and detaching the others changes
  // nothing (their links are empty; the restart level they lower is the first member's rate). The first
  // member of each class, launched alone, ends exactly when all members would: the step's end is the full
  // simulation's to the picosecond. Keeps only those first members in order_ (true), else changes nothing.
  // `independent`: no link carries two of the step's transfers.
  bool keep_representatives(bool independent) {
    if (!independent) return false;
    for (const Transfer& t : transfers_) {
      if (!(t.bytes > 0)) return false;  // a zero-byte flow ends at once, on no links
    }
    struct Class {
      double bytes, bandwidth;
      double duration_ps;  // FairShare's due time from the flow's start: ceil(bytes / rate in ps)
    };
    constexpr std::size_t kMaxClasses = 16;  // per latency group; more: simulate in full
    std::vector<Class> classes;
    reps_.clear();
    rep_begin_.assign(1, 0);
    for (std::size_t k = 0; k + 1 < group_begin_.size(); ++k) {
      classes.clear();
      for (std::uint32_t pos = group_begin_[k]; pos < group_begin_[k + 1]; ++pos) {
        const std::uint32_t t = order_[pos];
        const double bytes = transfers_[t].bytes;
        const double bandwidth = bandwidth_[t];
        const auto same = [&](const Class& c) { return c.bytes == bytes && c.bandwidth == bandwidth; };
        if (std::any_of(classes.begin(), classes.end(), same)) continue;
        if (classes.size() == kMaxClasses || !(bandwidth > 0) || !std::isfinite(bandwidth)) return false;
        const double duration = std::ceil(bytes / bandwidth * 1e12 * (1.0 - 1e-14));
        for (const Class& c : classes) {
          if (std::abs(c.duration_ps - duration) <= 1) return false;  // might interleave in the queue
        }
        classes.push_back(Class{bytes, bandwidth, duration});
        reps_.push_back(t);
      }
      rep_begin_.push_back(static_cast<std::uint32_t>(reps_.size()));
    }
    order_.swap(reps_);
    group_begin_.swap(rep_begin_);
    return true;
  }

  void launch(std::size_t first, std::size_t last) {
    if (fs_.active_flows() != own_active_) exclusive_ = false;
    for (std::size_t k = first; k < last; ++k) {
      const std::uint32_t t = order_[k];
      ++own_active_;
      ++stats_.flows_simulated;
      if (quotient_) {  // group 0 on the quotient: each flow carries its images' load
        const collective_detail::QuotientFlow& q = (*quotient_)[pattern_][t];
        fs_.start_flow_class(q.path, q.weights, transfers_[t].bytes,
                             [self = shared_from_this()](FlowId) { self->flow_done(); });
        continue;
      }
      fs_.start_flow(routed_.path(t), transfers_[t].bytes, [self = shared_from_this()](FlowId) { self->flow_done(); });
    }
  }

  void flow_done() {
    --own_active_;
    if (--outstanding_ == 0) finish_step();
  }

  void finish_step() {
    if (cohort_) {
      cohort_->end_step(run_index_, step_, pattern_, now_ps());
    } else if (exclusive_ && fs_.active_flows() == 0) {
      measured_ps_[pattern_] = static_cast<std::int64_t>((sim_.now() - step_start_).picoseconds());
    }
    ++step_;
    next_step();
  }

  Simulator& sim_;
  FairShare& fs_;
  const ClusterFabric& fabric_;
  const CollectiveGroup group_;
  const CollectiveSchedule schedule_;
  const bool replay_;
  CollectiveDone done_;
  CollectiveStats stats_;
  std::vector<std::int64_t> measured_ps_;   // per pattern: duration of an exclusive full simulation
  std::vector<std::uint64_t> pattern_flows_;
  const std::shared_ptr<Cohort> cohort_;  // set: replay with the call's other runs (collective_cohort.h)
  const int run_index_;

  int step_ = 0;
  int pattern_ = 0;
  Time step_start_;
  bool exclusive_ = false;
  std::size_t outstanding_ = 0;
  std::size_t own_active_ = 0;
  // The current step, in flat arrays reused from step to step.
  std::vector<Transfer> transfers_;
  RoutedTransfers routed_;             // every transfer's route, or those of the flows launched
  std::vector<double> bandwidth_;      // per transfer: its route's bandwidth
  std::vector<std::uint32_t> order_;        // transfers by latency
  std::vector<std::int64_t> latencies_;     // the step's distinct latencies, ascending
  std::vector<std::uint32_t> group_begin_;  // per distinct latency: its first position in order_
  std::vector<std::uint32_t> reps_, rep_begin_;  // keep_representatives' scratch
  LatencyOrder by_latency_;
  IndependenceCheck independent_;
  std::shared_ptr<const Quotient> quotient_;  // set: group 0 stands for `members_` symmetric groups
  const int members_;
  const std::shared_ptr<const LockstepMemo::Routes> routes_;  // set: what routing gave, per group and pattern
};

// The record identical calls share (lockstep_memo.h), where the request carries a ledger, a memo and allows
// replay (same op, algorithm, size, options, groups and `symmetric`: whether the runs are symmetry classes).
std::shared_ptr<LockstepMemo::Record> memo_record(const CollectiveRequest& request, const ClusterFabric& fabric,
                                                  CollectiveAlgorithm algorithm, bool symmetric,
                                                  const std::vector<CollectiveGroup>& groups,
                                                  const CollectiveSchedule& schedule) {
  if (!request.ledger || !request.lockstep || !request.replay_repeated_steps) return nullptr;
  return request.lockstep->record(fabric, request.op, algorithm, request.bytes, request.schedule, symmetric, groups,
                                  schedule.patterns());
}

// The cohort of `runs` runs of `schedule`'s shape holding `links` (or `distinct`, a list holding each link
// once, when set), where the request carries a ledger and allows replay; otherwise none (each run replays
// only while the solver is idle). With a record, the cohort shares the lockstep durations of identical calls.
std::shared_ptr<Cohort> make_cohort(const CollectiveRequest& request, std::span<const ResourceId> links,
                                    std::shared_ptr<const std::vector<ResourceId>> distinct, int runs,
                                    const CollectiveSchedule& schedule,
                                    const std::shared_ptr<LockstepMemo::Record>& record) {
  if (!request.ledger || !request.replay_repeated_steps) return nullptr;
  std::shared_ptr<std::vector<std::int64_t>> remembered;
  if (record) remembered = std::shared_ptr<std::vector<std::int64_t>>(record, &record->durations);
  const LinkLedger::Claim claim =
      distinct ? request.ledger->claim_distinct(std::move(distinct)) : request.ledger->claim(links);
  return std::make_shared<Cohort>(*request.ledger, claim, runs, schedule.steps(), schedule.patterns(),
                                  std::move(remembered));
}

// The request's algorithm, else the selector's pick (through the request's remembered picks, if any).
CollectiveAlgorithm pick_algorithm(const CollectiveRequest& request, const ClusterFabric& fabric, const FairShare& fs,
                                   const CollectiveGroup& group) {
  if (request.algorithm) return *request.algorithm;
  if (request.choices) return request.choices->select(request.op, request.bytes, fabric, fs, group, request.schedule);
  return select_algorithm(request.op, request.bytes, fabric, fs, group, request.schedule);
}

}  // namespace

CollectiveAlgorithm start_collective(Simulator& sim, FairShare& fs, const ClusterFabric& fabric,
                                     const CollectiveGroup& group, const CollectiveRequest& request,
                                     CollectiveDone done) {
  return start_collectives(sim, fs, fabric, {group}, request, false, std::move(done));
}

CollectiveAlgorithm start_collectives(Simulator& sim, FairShare& fs, const ClusterFabric& fabric,
                                      const std::vector<CollectiveGroup>& groups, const CollectiveRequest& request,
                                      bool by_symmetry, CollectiveDone done) {
  if (groups.empty()) throw std::invalid_argument("start_collectives needs at least one group");
  auto left = std::make_shared<std::size_t>(groups.size());
  auto all_done = [left, done = std::move(done)](const CollectiveStats& s) {
    if (--*left == 0) done(s);
  };
  std::vector<CollectiveSchedule> schedules;
  std::vector<CollectiveAlgorithm> algorithms;
  std::vector<ResourceId> links;  // every link the call's groups cross (for the ledger)
  if (by_symmetry && groups.size() > 1) {
    const CollectiveAlgorithm algorithm = pick_algorithm(request, fabric, fs, groups[0]);
    for (const CollectiveGroup& g : groups) {
      schedules.push_back(build_schedule(request.op, algorithm, g, request.bytes, request.schedule));
    }
    if (auto classes = collective_detail::symmetry_classes(fs, fabric, groups, schedules,
                                                           request.ledger ? &links : nullptr)) {
      *left = classes->size();
      auto cohort = make_cohort(request, links, nullptr, static_cast<int>(classes->size()), schedules[0],
                                memo_record(request, fabric, algorithm, true, groups, schedules[0]));
      for (std::size_t k = 0; k < classes->size(); ++k) {
        collective_detail::SymmetryClass& c = (*classes)[k];
        auto run = std::make_shared<CollectiveRun>(sim, fs, fabric, groups[c.representative],
                                                   std::move(schedules[c.representative]),
                                                   request.replay_repeated_steps, all_done, cohort, static_cast<int>(k),
                                                   std::make_shared<const Quotient>(std::move(c.quotient)), c.members);
        run->begin(algorithm);
      }
      return algorithm;
    }
    schedules.clear();  // no classes: every group as start_collective would run it
  }
  {
    for (const CollectiveGroup& g : groups) {
      const CollectiveAlgorithm algorithm = pick_algorithm(request, fabric, fs, g);
      algorithms.push_back(algorithm);
      schedules.push_back(build_schedule(request.op, algorithm, g, request.bytes, request.schedule));
    }
  }
  // Every group in full; one cohort only if their schedules have one shape (else each replays alone).
  bool one_shape = true;
  for (const CollectiveSchedule& s : schedules) {
    one_shape = one_shape && s.steps() == schedules[0].steps() && s.patterns() == schedules[0].patterns() &&
                s.setup_latency_s() == schedules[0].setup_latency_s();
    for (int step = 0; one_shape && step < s.steps(); ++step) one_shape = s.pattern(step) == schedules[0].pattern(step);
  }
  // The memo's key names one algorithm: groups picked differently keep this call's durations to themselves.
  const bool one_algorithm =
      std::all_of(algorithms.begin(), algorithms.end(), [&](CollectiveAlgorithm a) { return a == algorithms[0]; });
  const auto record =
      one_shape && one_algorithm ? memo_record(request, fabric, algorithms[0], false, groups, schedules[0]) : nullptr;
  // The claim's links: the same routes every time for one record, and for records whose schedules move the
  // same transfers (listed without routing, compared in full), so they are looked up once.
  // With them, each transfer's route, kept per group and pattern for the runs (one shape: equal patterns).
  if (record && !record->links) {
    LockstepMemo::Transfers moved;
    std::vector<Transfer> transfers;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      for (int p = 0; p < schedules[g].patterns(); ++p) {
        schedules[g].transfers(p, transfers);
        for (const Transfer& t : transfers) moved.push_back({t.src, t.dst, t.rail});
        moved.push_back({-2, -2, -2});
      }
      moved.push_back({-1, -1, -1});
    }
    if (!request.lockstep->share(*record, groups, moved)) {
      const auto patterns = static_cast<std::size_t>(schedules[0].patterns());
      LockstepMemo::Routes routes(groups.size() * patterns);
      for (std::size_t g = 0; g < groups.size(); ++g) {
        add_schedule_links(fabric, fs, groups[g], schedules[g], links, routes.data() + g * patterns);
      }
      std::vector<char> seen(fs.resource_count(), 0);  // kept once each (a claim ignores repeats and order)
      std::vector<ResourceId> once;
      for (const ResourceId r : links) {
        if (!seen[r]) seen[r] = 1, once.push_back(r);
      }
      request.lockstep->keep(*record, groups, std::move(moved), std::move(once), std::move(routes));
    }
  } else if (!record && request.ledger && one_shape) {
    for (std::size_t g = 0; g < groups.size(); ++g) add_schedule_links(fabric, fs, groups[g], schedules[g], links);
  }
  auto cohort = one_shape ? make_cohort(request, links, record ? record->links : nullptr,
                                        static_cast<int>(groups.size()), schedules[0], record)
                          : nullptr;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    auto run = std::make_shared<CollectiveRun>(sim, fs, fabric, groups[g], std::move(schedules[g]),
                                               request.replay_repeated_steps, all_done, cohort, static_cast<int>(g),
                                               nullptr, 1, record ? record->routes : nullptr);
    run->begin(algorithms[g]);
  }
  return algorithms.back();
}

}  // namespace hpcsim
