#include "workloads/mpi_replay/ti_replay.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "models/mpi/mpi_world.h"

namespace hpcsim {

namespace {

struct TraceRequest {
  RequestId id;
  int src, dst, tag;
};

enum class State : std::uint8_t { run, compute, test, wait, done };

// The critical path up to a rank's current time: its compute and communication parts and the messages it
// crossed (the rest of its length is latency and start-up), and where its latest jump is recorded: entry
// `jumps` of rank `owner`'s jump log (none: the path began on `owner` at time 0).
struct PathSoFar {
  double compute_s = 0, communication_s = 0;
  std::uint64_t hops = 0;
  int owner = 0;
  std::uint32_t jumps = 0;
};

// A rank taking over a peer's path: the peer's path at its post (`from`), the post's time and the time the
// awaited data started to move, from which the path is this rank's. Walked back from the end, the log gives
// the time the path spends on each rank.
struct Jump {
  int from_owner = 0;
  std::uint32_t from_jumps = 0;
  double post_s = 0, start_s = 0;
};

// A posted request waiting for its partner in MPI's matching order (source, destination, tag: the same
// order MpiWorld matches in), with the poster's critical path at the post and the post's time.
struct Posted {
  RequestId id;
  std::uint64_t serial;
  PathSoFar path;
  double at_s = 0;
};
struct Channel {
  std::deque<Posted> sends, recvs;
};

struct Rank {
  std::size_t pc = 0;
  std::vector<CollStep> steps;
  std::size_t step = 0;
  bool in_collective = false;
  double after_collective = 0;  // FLOPs the reduction computes after the collective
  int collectives = 0;
  std::vector<TraceRequest> pending;     // isend/irecv not waited for yet
  std::vector<RequestId> collective;     // a collective's requests since its last wait
  std::vector<RequestId> deferred;       // its requests left for a wait_deferred step (CollStep::deferred)
  std::vector<RequestId> blocked;        // what the rank waits for
  int remaining = 0;
  State state = State::run;
  Time since;
  const TiAction* test = nullptr;
  RankTimes times;
  PathSoFar path;
  std::int64_t last_segment = -1;  // its latest timeline segment (merged with the next when adjacent)
};

class Runner final : public MpiWorld::Listener {
 public:
  Runner(const TiTrace& t, MpiMachine& m, const ReplayOptions& o) : t_(t), m_(m), o_(o), sim_(m.sim()), ranks_(t.ranks) {
    world_ = std::make_unique<MpiWorld>(m, o.model, o.rank_host, *this);
    for (int r = 0; r < t.ranks; ++r) ranks_[r].path.owner = r;
    if (o.critical_path) jumps_.resize(static_cast<std::size_t>(t.ranks));
    on_timeline_.assign(static_cast<std::size_t>(t.ranks), 0);
    for (int r : o.timeline_ranks) on_timeline_.at(static_cast<std::size_t>(r)) = 1;
  }

  ReplayResult run() {
    for (int r = 0; r < t_.ranks; ++r) sim_.schedule_in(Time::zero(), [this, r] { advance(r); });
    if (o_.progress) o_.progress(0, total_actions_);
    sim_.run();
    if (o_.progress) o_.progress(begun_, total_actions_);
    ReplayResult res;
    for (int r = 0; r < t_.ranks; ++r) {
      const Rank& k = ranks_[r];
      if (k.state != State::done) {
        const auto& acts = t_.actions[r];
        const TiAction& a = acts[k.pc > 0 ? k.pc - 1 : 0];
        throw ConfigError(t_.where(a), "the trace deadlocks: rank " + std::to_string(r) +
                                           " never gets past this action (" + std::to_string(world_->unmatched()) +
                                           " sends or receives are never matched)");
      }
      res.ranks.push_back(k.times);
      res.time_s = std::max(res.time_s, k.times.end_s);
      res.actions += k.times.actions;
    }
    res.messages = world_->messages();
    res.timeline = std::move(timeline_);
    res.timeline_dropped = timeline_dropped_;
    if (o_.critical_path) {
      ReplayCriticalPath cp;
      for (int r = 0; r < t_.ranks; ++r)
        if (ranks_[r].times.end_s > ranks_[cp.end_rank].times.end_s) cp.end_rank = r;
      const PathSoFar& p = ranks_[cp.end_rank].path;
      cp.compute_s = p.compute_s;
      cp.communication_s = p.communication_s;
      cp.other_s = std::max(0.0, res.time_s - p.compute_s - p.communication_s);
      cp.hops = p.hops;
      cp.by_rank = shares(p, ranks_[cp.end_rank].times.end_s);
      res.critical_path = cp;
    }
    return res;
  }

  void request_done(int rank, RequestId id) override {
    if (id >= awaited_.size() || !awaited_[id]) return;
    awaited_[id] = 0;
    Rank& k = ranks_[rank];
    if (--k.remaining == 0) resume(rank);
  }

  void compute_done(int rank) override {
    Rank& k = ranks_[rank];
    const double spent = (sim_.now() - k.since).to_seconds();
    if (k.state == State::test) {
      k.times.communication_s += spent;
      k.path.communication_s += spent;
      record(rank, RankActivity::communication, k.since, sim_.now());
      finish_test(rank);
    } else {
      k.times.compute_s += spent;
      k.path.compute_s += spent;
      record(rank, RankActivity::compute, k.since, sim_.now());
    }
    k.state = State::run;
    advance(rank);
  }

 private:
  RequestId post_send(int r, int dst, int tag, double bytes) {
    const RequestId id = world_->isend(r, dst, tag, bytes);
    if (o_.critical_path) pair(true, r, dst, tag, id);
    return id;
  }
  RequestId post_recv(int r, int src, int tag, double bytes) {
    const RequestId id = world_->irecv(r, src, tag, bytes);
    if (o_.critical_path) pair(false, src, r, tag, id);
    return id;
  }

  // Pairs a send with its receive in matching order and gives each the other poster's path: a receiver
  // waits on its sender's post, a rendezvous sender on its receiver's. Request slots are reused once
  // released, so a partner is only taken for the post (serial) it was given to.
  void pair(bool send, int src, int dst, int tag, RequestId id) {
    if (id >= serial_.size()) serial_.resize(static_cast<std::size_t>(id) * 2 + 16, 0), partner_.resize(serial_.size());
    serial_[id] = ++posts_;
    const Posted mine{id, posts_, ranks_[send ? src : dst].path, sim_.now().to_seconds()};
    const auto key = std::make_tuple(src, dst, tag);
    Channel& c = channels_[key];
    std::deque<Posted>& others = send ? c.recvs : c.sends;
    if (others.empty()) {
      (send ? c.sends : c.recvs).push_back(mine);
      return;
    }
    const Posted other = others.front();
    others.pop_front();
    partner_[id] = {id, posts_, other.path, other.at_s};
    if (serial_[other.id] == other.serial) partner_[other.id] = {other.id, other.serial, mine.path, mine.at_s};
    if (c.sends.empty() && c.recvs.empty()) channels_.erase(key);
  }

  // The time `path`, which ends at `end_s`, spends on each rank, walking its jumps back to the start; ranks it
  // passes through, the longest first. The gaps between a post and its data's start are on no rank.
  std::vector<CriticalPathRank> shares(const PathSoFar& path, double end_s) const {
    std::vector<double> on(static_cast<std::size_t>(t_.ranks), 0.0);
    int owner = path.owner;
    std::uint32_t n = path.jumps;
    double t = end_s;
    while (n > 0) {
      const Jump& j = jumps_[static_cast<std::size_t>(owner)][n - 1];
      on[static_cast<std::size_t>(owner)] += std::max(0.0, t - j.start_s);
      owner = j.from_owner;
      n = j.from_jumps;
      t = j.post_s;
    }
    on[static_cast<std::size_t>(owner)] += std::max(0.0, t);
    std::vector<CriticalPathRank> out;
    for (int r = 0; r < t_.ranks; ++r)
      if (on[static_cast<std::size_t>(r)] > 0) out.push_back({r, on[static_cast<std::size_t>(r)]});
    std::stable_sort(out.begin(), out.end(), [](const CriticalPathRank& a, const CriticalPathRank& b) { return a.s > b.s; });
    return out;
  }

  void record(int r, RankActivity activity, Time start, Time end) {
    if (end <= start || !on_timeline_[static_cast<std::size_t>(r)]) return;
    Rank& k = ranks_[r];
    const double a = start.to_seconds(), b = end.to_seconds();
    if (k.last_segment >= 0) {
      RankSegment& last = timeline_[static_cast<std::size_t>(k.last_segment)];
      if (last.activity == activity && last.end_s == a) {
        last.end_s = b;
        return;
      }
    }
    if (timeline_.size() >= o_.timeline_limit) {
      ++timeline_dropped_;
      return;
    }
    k.last_segment = static_cast<std::int64_t>(timeline_.size());
    timeline_.push_back({r, activity, a, b});
  }

  void start_compute(int r, double flops) {
    Rank& k = ranks_[r];
    k.state = State::compute;
    k.since = sim_.now();
    world_->compute(r, flops);
  }

  // Waits for `reqs` (moved out); false when all are done already (released at once).
  bool block_on(int r, std::vector<RequestId>& reqs) {
    Rank& k = ranks_[r];
    k.blocked.clear();
    int open = 0;
    for (RequestId id : reqs) {
      if (world_->done(id)) {
        world_->release(id);
        continue;
      }
      if (id >= awaited_.size()) awaited_.resize(static_cast<std::size_t>(id) * 2 + 16, 0);
      awaited_[id] = 1;
      k.blocked.push_back(id);
      ++open;
    }
    reqs.clear();
    if (open == 0) return false;
    k.remaining = open;
    k.state = State::wait;
    k.since = sim_.now();
    return true;
  }

  void resume(int r) {
    Rank& k = ranks_[r];
    const Time now = sim_.now();
    Time latest = k.since;
    RequestId releaser = kNoRequest;  // the request whose data started last: what the rank waited for
    for (RequestId id : k.blocked) {
      const Time s = world_->transfer_start(id);
      if (s != Time::max() && s > latest) latest = s, releaser = id;
      world_->release(id);
    }
    if (latest > now) latest = now;
    const double wait = (latest - k.since).to_seconds();
    k.times.waiting_s += wait;
    k.times.communication_s += (now - k.since).to_seconds() - wait;
    if (o_.critical_path) {
      if (wait > 0 && releaser < partner_.size() && partner_[releaser].serial == serial_[releaser]) {
        const Posted& from = partner_[releaser];
        std::vector<Jump>& log = jumps_[static_cast<std::size_t>(r)];
        log.push_back({from.path.owner, from.path.jumps, from.at_s, latest.to_seconds()});
        k.path = from.path;  // the peer's path at its post, then this message
        ++k.path.hops;
        k.path.owner = r;
        k.path.jumps = static_cast<std::uint32_t>(log.size());
      }
      k.path.communication_s += (now - latest).to_seconds();
    }
    record(r, RankActivity::waiting, k.since, latest);
    record(r, RankActivity::communication, latest, now);
    k.blocked.clear();
    k.state = State::run;
    advance(r);
  }

  void finish_test(int r) {
    Rank& k = ranks_[r];
    const TiAction& a = *k.test;
    auto it = find(k, a);
    if (it == k.pending.end()) {
      test_failures_ = 1;
      return;
    }
    if (world_->done(it->id)) {
      world_->release(it->id);
      k.pending.erase(it);
      test_failures_ = 1;
    } else {
      ++test_failures_;
    }
  }

  std::vector<TraceRequest>::iterator find(Rank& k, const TiAction& a) {
    if (!a.has_key) return k.pending.begin();
    return std::find_if(k.pending.begin(), k.pending.end(),
                        [&](const TraceRequest& q) { return q.src == a.peer && q.dst == a.peer2 && q.tag == a.tag; });
  }

  void advance(int r) {
    Rank& k = ranks_[r];
    const auto& acts = t_.actions[r];
    for (;;) {
      if (k.in_collective) {
        if (k.step == k.steps.size()) {
          k.in_collective = false;
          if (k.after_collective > 0) {
            start_compute(r, k.after_collective);
            return;
          }
          continue;
        }
        const CollStep& s = k.steps[k.step++];
        const int tag = -1 - k.collectives;
        std::vector<RequestId>& posted = s.deferred ? k.deferred : k.collective;
        if (s.kind == CollStep::send) {
          posted.push_back(post_send(r, s.peer, tag, s.bytes));
        } else if (s.kind == CollStep::recv) {
          posted.push_back(post_recv(r, s.peer, tag, s.bytes));
        } else if (block_on(r, s.kind == CollStep::wait_deferred ? k.deferred : k.collective)) {
          return;
        }
        continue;
      }
      if (k.pc == acts.size()) {
        k.state = State::done;
        k.times.end_s = sim_.now().to_seconds();
        return;
      }
      const TiAction& a = acts[k.pc++];
      ++k.times.actions;
      if ((++begun_ & kProgressEvery) == 0 && o_.progress) o_.progress(begun_, total_actions_);
      switch (a.kind) {
        case TiKind::init:
        case TiKind::finalize:
        case TiKind::comm_size: break;
        case TiKind::compute: start_compute(r, a.bytes); return;
        case TiKind::sleep:
          k.state = State::compute;  // counted as compute, as SimGrid's sleeps stand for computation
          k.since = sim_.now();
          world_->sleep(r, a.bytes);
          return;
        case TiKind::send: {
          one_.assign(1, post_send(r, a.peer, a.tag, a.bytes));
          if (block_on(r, one_)) return;
          break;
        }
        case TiKind::recv: {
          one_.assign(1, post_recv(r, a.peer, a.tag, a.bytes));
          if (block_on(r, one_)) return;
          break;
        }
        case TiKind::isend: k.pending.push_back({post_send(r, a.peer, a.tag, a.bytes), r, a.peer, a.tag}); break;
        case TiKind::irecv: k.pending.push_back({post_recv(r, a.peer, a.tag, a.bytes), a.peer, r, a.tag}); break;
        case TiKind::wait: {
          auto it = find(k, a);
          if (it == k.pending.end()) break;  // completed by a test (SimGrid: a null request)
          one_.assign(1, it->id);
          k.pending.erase(it);
          if (block_on(r, one_)) return;
          break;
        }
        case TiKind::waitall: {
          one_.clear();
          for (const TraceRequest& q : k.pending) one_.push_back(q.id);
          k.pending.clear();
          if (block_on(r, one_)) return;
          break;
        }
        case TiKind::test:
          k.state = State::test;
          k.test = &a;
          k.since = sim_.now();
          world_->sleep(r, test_failures_ * o_.model.test_sleep_s);
          return;
        case TiKind::collective: {
          CollectiveCall c;
          c.op = a.op;
          c.root = a.peer;
          c.bytes = a.bytes;
          c.elements = a.elements;
          const std::size_t n = static_cast<std::size_t>(t_.ranks);
          if (a.counts != kNoCounts) c.counts = std::span<const double>(t_.counts.data() + a.counts, n);
          if (a.recv_counts != kNoCounts) c.recv_counts = std::span<const double>(t_.counts.data() + a.recv_counts, n);
          k.steps.clear();
          k.step = 0;
          const CollAlgorithm algorithm = o_.selector.select(c, t_.ranks);
          try {
            expand_collective(c, r, t_.ranks, algorithm, k.steps);
          } catch (const std::invalid_argument& e) {
            throw ConfigError(t_.where(a), e.what());
          }
          // Every rank holds its steps of the collective at once: a segmented algorithm on a large message
          // (Open MPI's pipeline in 8 KiB segments) can expand one action into millions of messages.
          if (const double steps = static_cast<double>(k.steps.size()) * t_.ranks; steps > count_limit(CountLimit::actions)) {
            check_count(CountLimit::actions, steps, t_.where(a),
                        std::string("this ") + mpi_collective_name(c.op) + " (" + coll_algorithm_name(algorithm) + " on " +
                            std::to_string(t_.ranks) + " ranks, " + std::to_string(k.steps.size()) +
                            " point-to-point steps a rank)");
          }
          ++k.collectives;
          k.in_collective = true;
          k.after_collective = a.compute;
          break;
        }
      }
    }
  }

  static constexpr std::uint64_t kProgressEvery = (1u << 14) - 1;  // a mask: every 16,384 actions

  const TiTrace& t_;
  MpiMachine& m_;
  const ReplayOptions& o_;
  Simulator& sim_;
  std::uint64_t begun_ = 0;
  std::uint64_t total_actions_ = t_.total_actions();
  std::vector<Rank> ranks_;
  std::unique_ptr<MpiWorld> world_;
  std::vector<char> awaited_;
  std::vector<RequestId> one_;
  double test_failures_ = 1;
  std::vector<char> on_timeline_;
  std::vector<RankSegment> timeline_;
  std::uint64_t timeline_dropped_ = 0;
  // Critical path: matching queues per (source, destination, tag), each request's post serial and partner.
  std::map<std::tuple<int, int, int>, Channel> channels_;
  std::vector<std::uint64_t> serial_;
  std::vector<Posted> partner_;
  std::uint64_t posts_ = 0;
  std::vector<std::vector<Jump>> jumps_;  // per rank, with the critical path
};

}  // namespace

std::string_view activity_name(RankActivity activity) {
  switch (activity) {
    case RankActivity::compute: return "compute";
    case RankActivity::communication: return "communication";
    case RankActivity::waiting: return "waiting";
  }
  return "compute";
}

ReplayResult replay_ti_trace(const TiTrace& trace, MpiMachine& machine, const ReplayOptions& options) {
  if (static_cast<int>(options.rank_host.size()) != trace.ranks)
    throw std::invalid_argument("replay: rank_host needs one host per rank");
  for (int r : options.timeline_ranks)
    if (r < 0 || r >= trace.ranks) throw std::invalid_argument("replay: a timeline rank outside the trace's ranks");
  Runner runner(trace, machine, options);
  return runner.run();
}

}  // namespace hpcsim
