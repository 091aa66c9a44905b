#include "workloads/inference/offline_prediction.h"

#include "workloads/inference/batch_latency.h"

namespace hpcsim {

OfflineResult offline_throughput(const InferenceSetup& setup, int batch, int requests_per_batch, int replicas) {
  OfflineResult out;
  out.batch = batch;
  out.batch_latency_s = batch_latency_s(setup, batch);
  out.throughput_rps = static_cast<double>(replicas) * setup.workers * requests_per_batch / out.batch_latency_s;
  return out;
}

}  // namespace hpcsim
