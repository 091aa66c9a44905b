#include "workloads/serving/serving_engine.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "sim-core/simulator.h"

namespace hpcsim {

namespace {

// A FIFO of request ids in one growing ring buffer: no allocation per request once it has grown.
class IdQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::uint32_t front() const { return ring_[head_]; }
  void push(std::uint32_t id) {
    if (size_ == ring_.size()) grow();
    ring_[(head_ + size_) & (ring_.size() - 1)] = id;
    ++size_;
  }
  std::uint32_t pop() {
    const std::uint32_t id = ring_[head_];
    head_ = (head_ + 1) & (ring_.size() - 1);
    --size_;
    return id;
  }

 private:
  void grow() {
    std::vector<std::uint32_t> bigger(ring_.empty() ? 64 : ring_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = ring_[(head_ + i) & (ring_.size() - 1)];
    ring_ = std::move(bigger);
    head_ = 0;
  }
  std::vector<std::uint32_t> ring_;  // size a power of two
  std::size_t head_ = 0, size_ = 0;
};

class ServingEngine {
 public:
  ServingEngine(const ServingConfig& config, const BatchServiceTime& service)
      : c_(config), service_(service), replicas_(static_cast<std::size_t>(config.replicas)) {
    if (config.replicas < 1 || config.workers < 1 || config.max_batch < 1 || config.requests < 0 ||
        config.request_batch < 1 || config.request_batch > config.max_batch) {
      throw std::invalid_argument(
          "serving: replicas, workers and max_batch must be >= 1, requests >= 0, request_batch 1..max_batch");
    }
    per_batch_ = static_cast<std::size_t>(config.requests_per_batch());
    // preferred_[k]: k whole requests make a preferred batch (the largest, per_batch_, always does).
    preferred_.assign(per_batch_ + 1, 0);
    preferred_[per_batch_] = 1;
    for (const int samples : config.preferred_batch_sizes) {
      if (samples % config.request_batch == 0) preferred_[static_cast<std::size_t>(samples / config.request_batch)] = 1;
    }
    const FrontEnd& fe = config.front_end;
    if (fe.threads < 0 || (fe.threads > 0 && !(std::isfinite(fe.per_request_s) && fe.per_request_s >= 0))) {
      throw std::invalid_argument("serving: a front end needs threads >= 0 and a finite per-request time >= 0");
    }
    front_end_time_ = Time::seconds(fe.per_request_s);
    for (Replica& r : replicas_) r.idle_workers = config.workers;
    offline_ = config.offline();
    max_delay_ = Time::seconds(config.max_queue_delay_s);
    has_timeout_ = !offline_ && std::isfinite(config.timeout_s);
    if (has_timeout_) timeout_ = Time::seconds(config.timeout_s);
    queue_limit_ = offline_ ? INT64_MAX : config.queue_limit;
    // Open loop: as many requests as arrivals (a trace set in code may hold more or fewer than `requests`).
    if (!config.closed_loop()) open_arrivals_ = generate_arrivals(config);
    const std::size_t n = config.closed_loop() ? static_cast<std::size_t>(config.requests) : open_arrivals_.size();
    if (n > INT32_MAX) throw std::invalid_argument("serving: at most 2^31 requests");
    result_.requests.resize(n);
    queued_at_.resize(n);
    queued_.assign(n, 0);
    result_.replicas = config.replicas;
    result_.workers = config.workers;
    result_.offline = offline_;
    result_.front_end_threads = config.front_end.threads;
    result_.request_batch = config.request_batch;
  }

  ServingResult run() {
    // Only offline runs report it; an open run leaves a stochastic service's draws to its batches alone.
    if (offline_) {
      result_.offline_latency_s =
          service_time(c_.full_batch()) + (c_.front_end.threads > 0 ? c_.front_end.per_request_s : 0);
    }
    if (c_.closed_loop()) {
      // Every client sends its first request at time 0.
      sim_.schedule_at(Time::zero(), [this] {
        for (int k = 0; k < c_.concurrency; ++k) send_closed_loop();
      });
    } else if (!open_arrivals_.empty()) {
      schedule_open_arrival(0);
    }
    sim_.run();
    if (!result_.requests.empty()) result_.first_arrival_s = result_.requests.front().arrival_s;
    result_.busy_worker_s = busy_.to_seconds();
    // Every request holds a front-end thread once, for the same time.
    const auto through_front_end = static_cast<Time::Rep>(c_.front_end.threads > 0 ? result_.requests.size() : 0);
    result_.busy_front_end_s = Time::ps_exact(front_end_time_.picoseconds() * through_front_end).to_seconds();
    return std::move(result_);
  }

 private:
  struct Replica {
    IdQueue queue;
    int idle_workers = 0;
    std::int64_t outstanding = 0;  // queued or in a running batch
    EventId timer;                 // the pending max_queue_delay wake-up, if any
    Time timer_at;
    bool pass_pending = false;
    IdQueue front_end_queue;  // requests waiting for a front-end thread
    int front_end_busy = 0;
  };

  double service_time(int batch) {
    const double s = service_(batch);
    if (!std::isfinite(s) || s < 0) {
      throw std::invalid_argument("serving: the service time of a batch of " + std::to_string(batch) +
                                  " is " + std::to_string(s) + " s (must be finite and >= 0)");
    }
    return s;
  }

  // Open loop: one event admits every arrival at its instant and schedules the next instant's, so only
  // one arrival event is ever pending.
  void schedule_open_arrival(std::size_t i) {
    sim_.schedule_at(Time::seconds(open_arrivals_[i].time_s), [this, i] {
      std::size_t next = i;
      do {
        admit(next_id());
        ++next;
      } while (next < open_arrivals_.size() && open_arrivals_[next].time_s == open_arrivals_[i].time_s);
      if (next < open_arrivals_.size()) schedule_open_arrival(next);
    });
  }

  // Closed loop: a client sends its next request; one dropped at once (full queue) is followed by the next.
  void send_closed_loop() {
    while (sent_ < static_cast<std::uint32_t>(c_.requests)) {
      if (admit(next_id())) return;
    }
  }

  std::uint32_t next_id() { return sent_++; }

  int choose_replica() {
    const int n = c_.replicas;
    if (c_.load_balancer == LoadBalancer::round_robin) {
      const int r = next_turn_;
      next_turn_ = (next_turn_ + 1) % n;
      return r;
    }
    // Least outstanding; a tie goes to the first in turn after the last choice, so idle replicas share load.
    int best = next_turn_;
    for (int k = 1; k < n; ++k) {
      const int r = (next_turn_ + k) % n;
      if (replicas_[r].outstanding < replicas_[best].outstanding) best = r;
    }
    next_turn_ = (best + 1) % n;
    return best;
  }

  // A request arrives now at a replica: through its front end first when there is one (true: a closed-loop
  // client waits for it), else queued at once (true) or dropped for a full queue (false).
  bool admit(std::uint32_t id) {
    ServedRequest& req = result_.requests[id];
    req.arrival_s = sim_.now().to_seconds();
    const int r = choose_replica();
    req.replica = r;
    if (c_.front_end.threads == 0) return enqueue(id, r);
    Replica& rep = replicas_[r];
    ++rep.outstanding;  // held by the front end: least-outstanding balancing counts it
    if (rep.front_end_busy < c_.front_end.threads) {
      start_front_end(id, r);
    } else {
      rep.front_end_queue.push(id);
    }
    return true;
  }

  // The request takes a front-end thread; when done it goes to the batcher and the thread to the next.
  void start_front_end(std::uint32_t id, int r) {
    ++replicas_[r].front_end_busy;
    sim_.schedule_in(front_end_time_, [this, id, r] {
      Replica& rep = replicas_[r];
      --rep.front_end_busy;
      --rep.outstanding;  // enqueue counts it again if it is queued
      if (!enqueue(id, r) && c_.closed_loop()) send_closed_loop();
      if (!rep.front_end_queue.empty()) start_front_end(rep.front_end_queue.pop(), r);
    });
  }

  // The request reaches replica r's batch queue now: queued (true) or dropped for a full queue (false).
  bool enqueue(std::uint32_t id, int r) {
    const Time now = sim_.now();
    queued_at_[id] = now;
    ServedRequest& req = result_.requests[id];
    req.ready_s = now.to_seconds();
    Replica& rep = replicas_[r];
    if (static_cast<std::int64_t>(rep.queue.size()) >= queue_limit_) {
      drop(req, RequestOutcome::dropped_queue_limit);
      return false;
    }
    rep.queue.push(id);
    queued_[id] = 1;
    ++rep.outstanding;
    if (has_timeout_) sim_.schedule_at(now + timeout_, [this, id, r] { expire(id, r); });
    request_pass(r);
    return true;
  }

  void drop(ServedRequest& req, RequestOutcome why) {
    const double now = sim_.now().to_seconds();
    req.start_s = req.end_s = now;
    req.outcome = why;
    result_.last_end_s = std::max(result_.last_end_s, now);
  }

  // The request's timeout: dropped if still queued. Every request has the same timeout and queues are FIFO,
  // so a request still queued at its expiry is at the head (those before it expired or started earlier).
  // The delay and the timeout count from when a request reached the queue (queued_at_).
  void expire(std::uint32_t id, int r) {
    if (!queued_[id]) return;
    Replica& rep = replicas_[r];
    if (rep.queue.front() != id) throw std::logic_error("serving: an expiring request is not at its queue's head");
    rep.queue.pop();
    queued_[id] = 0;
    --rep.outstanding;
    drop(result_.requests[id], RequestOutcome::dropped_timeout);
    if (c_.closed_loop()) send_closed_loop();
  }

  // The replica's batching pass runs once per instant, after that instant's arrivals and batch ends
  // (a zero-delay event), so requests arriving together are batched together.
  void request_pass(int r) {
    Replica& rep = replicas_[r];
    if (rep.pass_pending) return;
    rep.pass_pending = true;
    sim_.schedule_in(Time::zero(), [this, r] {
      replicas_[r].pass_pending = false;
      try_dispatch(r);
    });
  }

  // Starts batches on the replica's free workers while the batching rule allows; otherwise wakes up when
  // the oldest queued request's max_queue_delay runs out. The rule is Triton's dynamic batcher's
  // (GetDynamicBatch): the largest preferred batch the queue reaches goes at once; short of every preferred
  // size, what is queued goes when its oldest request has waited max_queue_delay.
  void try_dispatch(int r) {
    Replica& rep = replicas_[r];
    const Time now = sim_.now();
    while (rep.idle_workers > 0 && !rep.queue.empty()) {
      const std::size_t scan = std::min(rep.queue.size(), per_batch_);
      std::size_t take = scan;
      while (take > 0 && !preferred_[take]) --take;
      if (take == 0) {
        const Time deadline = queued_at_[rep.queue.front()] + max_delay_;
        if (now < deadline) {
          arm_timer(r, deadline);
          return;
        }
        take = scan;
      }
      start_batch(r, static_cast<int>(take));
    }
  }

  void arm_timer(int r, Time at) {
    Replica& rep = replicas_[r];
    if (sim_.is_pending(rep.timer)) {
      if (rep.timer_at <= at) return;  // an earlier wake-up re-evaluates anyway
      sim_.cancel(rep.timer);
    }
    rep.timer_at = at;
    rep.timer = sim_.schedule_at(at, [this, r] { try_dispatch(r); });
  }

  // A batch of `count` whole requests: count x request_batch samples.
  void start_batch(int r, int count) {
    Replica& rep = replicas_[r];
    const int batch = count * c_.request_batch;
    const double service = service_time(batch);
    const Time duration = Time::seconds(service);
    const Time now = sim_.now();
    const double start_s = now.to_seconds(), end_s = (now + duration).to_seconds();
    for (int k = 0; k < count; ++k) {
      const std::uint32_t id = rep.queue.pop();
      queued_[id] = 0;
      ServedRequest& req = result_.requests[id];
      req.start_s = start_s;
      req.end_s = end_s;
      req.batch = batch;
    }
    --rep.idle_workers;
    busy_ += duration;
    ++result_.batches;
    sim_.schedule_at(now + duration, [this, r, count] { finish_batch(r, count); });
  }

  void finish_batch(int r, int count) {
    Replica& rep = replicas_[r];
    ++rep.idle_workers;
    rep.outstanding -= count;
    result_.last_end_s = std::max(result_.last_end_s, sim_.now().to_seconds());
    if (c_.closed_loop()) {
      for (int k = 0; k < count; ++k) send_closed_loop();  // each returned client sends its next request
    }
    request_pass(r);
  }

  const ServingConfig& c_;
  const BatchServiceTime& service_;
  Simulator sim_;
  std::vector<Replica> replicas_;
  std::vector<RequestArrival> open_arrivals_;
  std::vector<Time> queued_at_;  // when each request reached its batch queue
  std::vector<std::uint8_t> queued_;
  ServingResult result_;
  bool offline_ = false, has_timeout_ = false;
  Time max_delay_, timeout_, busy_, front_end_time_;
  std::int64_t queue_limit_ = 0;
  std::size_t per_batch_ = 1;  // whole requests in a full batch
  std::vector<std::uint8_t> preferred_;  // indexed by whole requests: 1 where a batch is of a preferred size
  std::uint32_t sent_ = 0;
  int next_turn_ = 0;
};

}  // namespace

ServingResult simulate_serving(const ServingConfig& config, const BatchServiceTime& service) {
  return ServingEngine(config, service).run();
}

}  // namespace hpcsim
