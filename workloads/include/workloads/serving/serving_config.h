#pragma once
// The `serving:` section of a serve scenario: how requests arrive at an endpoint and how its replicas
// queue and batch them (docs/serving.md). Every key is optional; parse_serving validates the section
// with serving_schema() and reads it, so bad values are ConfigErrors at their file:line:column.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "configs/config_node.h"
#include "configs/enum_names.h"
#include "configs/schema.h"
#include "workloads/serving/request_arrival.h"

namespace hpcsim {

// How open-loop requests arrive (a closed loop, `concurrency: N`, replaces them).
enum class ArrivalKind { poisson, bursty, trace };
inline constexpr EnumNames<ArrivalKind, 3> kArrivalKindNames{
    {{{ArrivalKind::poisson, "poisson"}, {ArrivalKind::bursty, "bursty"}, {ArrivalKind::trace, "trace"}}}};

// Which replica a new request goes to: the next in turn, or the one with the fewest requests queued or in
// service (ties to the lowest index).
enum class LoadBalancer { round_robin, least_outstanding };
inline constexpr EnumNames<LoadBalancer, 2> kLoadBalancerNames{
    {{{LoadBalancer::round_robin, "round_robin"}, {LoadBalancer::least_outstanding, "least_outstanding"}}}};

// The bursty process: a two-state Markov-modulated Poisson process. It stays in a burst for an
// exponential time of mean burst_s and in a calm for one of mean calm_s; the burst's rate is `ratio` times
// the calm's, and both are set so that the long-run mean rate is rate_rps.
struct BurstShape {
  double ratio = 10;
  double burst_s = 1;
  double calm_s = 9;
};

// A front end's threads ahead of each replica's batcher (configs/frontends, resolved by the serve scenario):
// a request holds one of `threads` for per_request_s, queueing FIFO for one when all are busy.
struct FrontEnd {
  int threads = 0;  // 0: none, requests reach the batcher as they arrive
  double per_request_s = 0;
};

struct ServingConfig {
  int replicas = 1;
  ArrivalKind arrival = ArrivalKind::poisson;
  std::optional<double> rate_rps;  // absent (and no trace or concurrency): the offline, saturated run
  std::int64_t requests = 10000;
  std::uint64_t seed = 1;
  int max_batch = 1;  // samples (a request carries request_batch of them)
  // Samples each request carries (a client sending 32 images in one request). A batch takes whole requests
  // while their samples fit max_batch, as Triton's dynamic batcher does.
  int request_batch = 1;
  double max_queue_delay_s = 0;
  // Triton's dynamic batcher's preferred_batch_size (samples, ascending, each <= max_batch): a worker takes the
  // largest preferred size the queue reaches at once, and never more than the largest preferred size; empty:
  // max_batch is the only preferred size (Triton's default).
  std::vector<int> preferred_batch_sizes;
  int workers = 1;  // per replica
  LoadBalancer load_balancer = LoadBalancer::round_robin;
  std::int64_t queue_limit = std::numeric_limits<std::int64_t>::max();  // queued requests per replica
  double timeout_s = std::numeric_limits<double>::infinity();         // longest a request may stay queued
  int concurrency = 0;  // > 0: a closed loop of this many clients instead of open-loop arrivals
  FrontEnd front_end;
  BurstShape burst;
  // arrival: trace: the file's requests (all, or the first `requests` when that key is given), on the
  // file's clock, or stretched to rate_rps when it is given.
  std::string trace_file;
  std::vector<RequestArrival> trace;

  // serving.max_rate_within {p99: T} (or `hpcsim serve --max-rate-within p99=T`): search the highest
  // arrival rate whose p99 latency stays within T (workloads/serving/max_rate_search.h) instead of one run.
  std::optional<double> max_rate_p99_s;

  bool closed_loop() const { return concurrency > 0; }
  // Whole requests in a full batch, and that batch's samples: the batch every offline batch and every
  // batch of a saturated queue runs at (the one choice `hpcsim serve` and `hpcsim validate` share).
  // With preferred batch sizes the largest of them caps a batch, as in Triton's batcher.
  int largest_batch() const { return preferred_batch_sizes.empty() ? max_batch : preferred_batch_sizes.back(); }
  int requests_per_batch() const { return largest_batch() / request_batch; }
  int full_batch() const { return requests_per_batch() * request_batch; }
  // Offline: every request is there at time 0 (no rate, no trace, no closed loop), as MLPerf's offline
  // scenario sends them; it measures the saturated throughput.
  bool offline() const { return !closed_loop() && arrival != ArrivalKind::trace && !rate_rps; }
};

const Schema& serving_schema();
// Bytes of one value of an input tensor in `dtype`, a name serving_schema()'s input_dtype admits.
double input_dtype_bytes(const std::string& dtype);
// Validates and reads the section; a trace file is read here (malformed lines are file:line errors),
// its path relative to the scenario file that names it.
ServingConfig parse_serving(const ConfigNode& serving_section);

}  // namespace hpcsim
