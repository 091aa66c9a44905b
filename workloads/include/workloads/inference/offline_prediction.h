#pragma once
// Offline (saturated) throughput from the batch cost alone: every worker of every replica runs the offline
// batch back to back, as MLPerf's offline scenario and a saturated dynamic batcher do. The batch is the one
// the serving config runs (ServingConfig::full_batch(): the whole requests whose samples fit max_batch), the
// same in `hpcsim serve` and `hpcsim validate`.
#include "workloads/inference/inference_setup.h"

namespace hpcsim {

struct OfflineResult {
  double batch_latency_s = 0;  // one batch of `batch` samples
  int batch = 1;               // samples
  double throughput_rps = 0;   // replicas x workers x requests_per_batch / batch_latency_s
};

// std::invalid_argument (from batch_latency_s) for a batch beyond memory.
OfflineResult offline_throughput(const InferenceSetup& setup, int batch, int requests_per_batch, int replicas);

}  // namespace hpcsim
