#include "workloads/inference/offline_prediction.h"

#include <algorithm>

#include "workloads/inference/batch_latency.h"

namespace hpcsim {

OfflineResult offline_throughput(const InferenceSetup& setup, int max_batch, int replicas) {
  OfflineResult best;
  const int limit = std::min(max_batch, max_batch_in_memory(setup));
  for (int b = 1; b <= limit; b = b * 2 > limit && b < limit ? limit : b * 2) {
    const double latency = batch_latency_s(setup, b);
    const double rps = replicas * setup.workers * b / latency;
    if (rps > best.throughput_rps) best = {latency, b, rps};
  }
  return best;
}

std::optional<double> predict_without_queue(const ConfigNode& root, const SpecCatalog& catalog) {
  const ConfigNode* serving = root.find("serving");
  if (serving != nullptr && (serving->has("rate_rps") || serving->has("concurrency"))) return std::nullopt;
  const std::string metric = root.at("measured").get_string("metric");
  const InferenceSetup setup = parse_inference_setup(root, catalog);
  const int max_batch = serving != nullptr ? static_cast<int>(serving->get_int_or("max_batch", 1)) : 1;
  const int replicas = serving != nullptr ? static_cast<int>(serving->get_int_or("replicas", 1)) : 1;
  if (metric == "latency_s.mean") return batch_latency_s(setup, max_batch);
  if (metric == "throughput_rps") return offline_throughput(setup, max_batch, replicas).throughput_rps;
  return std::nullopt;
}

}  // namespace hpcsim
