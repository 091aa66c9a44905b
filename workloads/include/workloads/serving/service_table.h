#pragma once
// A deterministic batch time evaluated once per batch size. The inference model's batch_latency_s times
// every layer of a forward pass, far more work than the engine spends on a batch; a serving run calls its
// BatchServiceTime once per batch (tens of thousands of times), so callers tabulate it first:
//   simulate_serving(config, tabulate_service([&](int b) { return batch_latency_s(setup, b); }, config.max_batch));
// Not for a service that draws random times (it would freeze one draw per size).
#include "workloads/serving/serving_engine.h"

namespace hpcsim {

// service(1..max_batch), each called once now, looked up afterwards. std::invalid_argument for max_batch < 1,
// a time that is negative or not finite, or (later) a batch outside 1..max_batch.
BatchServiceTime tabulate_service(const BatchServiceTime& service, int max_batch);

}  // namespace hpcsim
