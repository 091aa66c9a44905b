#pragma once
// The request-level serving engine (docs/serving.md): requests arrive (open loop from serving_config's
// process or trace, or a closed loop of `concurrency` clients), a load balancer sends each to one of R
// replicas, and each replica's workers take batches from the replica's FIFO queue as Triton's and
// TorchServe's dynamic batchers do (each request carrying request_batch samples, a batch the whole requests
// whose samples fit max_batch): a free worker starts a full batch as soon as that many
// are queued, or a partial batch of everything queued once the oldest queued request has waited
// max_queue_delay. With a front end, a request first holds one of its replica's front-end threads (FIFO
// when all are busy) and reaches the batcher when that is done. A request reaching a replica with
// queue_limit requests queued is dropped; one still queued `timeout` after it reached the queue is dropped
// then. Latency = front end + queue wait + its batch's service time.
// Every arrival, batch start and end is a sim-core Simulator event, so a run is deterministic.
#include <cstdint>
#include <functional>
#include <vector>

#include "workloads/serving/serving_config.h"

namespace hpcsim {

// One replica worker's time in seconds for a batch of `batch` requests (1 <= batch <= max_batch). It is
// called once per batch as batches start, in simulated-time order, so a seeded random draw inside it is
// reproducible (the M/M/1 test draws exponential service times this way).
using BatchServiceTime = std::function<double(int batch)>;

enum class RequestOutcome : std::uint8_t { served, dropped_queue_limit, dropped_timeout };

struct ServedRequest {
  double arrival_s = 0;
  double ready_s = 0;  // when it reached the replica's batch queue (after the front end; arrival without one)
  double start_s = 0;  // when its batch started; a dropped request: when it was dropped
  double end_s = 0;    // when its batch ended; a dropped request: when it was dropped
  int replica = 0;
  int batch = 0;  // samples in the batch it ran in (0: dropped)
  RequestOutcome outcome = RequestOutcome::served;

  double latency_s() const { return end_s - arrival_s; }
  double queue_s() const { return start_s - ready_s; }
};

struct ServingResult {
  std::vector<ServedRequest> requests;  // in the order they were sent
  int replicas = 0;
  int workers = 0;  // per replica
  bool offline = false;
  // Offline runs: the latency of one full batch on an idle replica (a request's front-end time +
  // service(full_batch())), the batch the saturated run takes.
  double offline_latency_s = 0;
  int request_batch = 1;  // samples per request
  double busy_worker_s = 0;     // sum of every batch's service time
  int front_end_threads = 0;    // per replica (0: no front end)
  double busy_front_end_s = 0;  // sum of every request's front-end time
  double first_arrival_s = 0;
  double last_end_s = 0;  // last batch end (or drop)
  std::int64_t batches = 0;
};

// Runs the endpoint the config describes. Offline configs (no rate, trace or concurrency) send every
// request at time 0 with no queue limit or timeout: the saturated throughput. std::invalid_argument when
// the service time of a batch is negative or not finite.
ServingResult simulate_serving(const ServingConfig& config, const BatchServiceTime& service);

}  // namespace hpcsim
