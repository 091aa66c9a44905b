#pragma once
// What a serve scenario measures when no queue is involved, predicted from the batch cost alone:
// single-stream latency (serving.rate_rps and serving.concurrency absent, measured latency_s.mean) is one
// forward pass of serving.max_batch requests; offline (saturated) throughput (measured throughput_rps) is
// replicas x workers x the best batch's requests per second, batches up to serving.max_batch and memory.
// Rows that depend on a queue (a request rate, a concurrency, a percentile) are the serving engine's.
#include <optional>
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "workloads/inference/inference_setup.h"

namespace hpcsim {

struct OfflineResult {
  double batch_latency_s = 0;  // at the best batch
  int best_batch = 1;
  double throughput_rps = 0;   // replicas x workers x best_batch / batch_latency_s
};

// Saturated throughput: every batch 1..max_batch (powers of two and max_batch itself) within memory.
OfflineResult offline_throughput(const InferenceSetup& setup, int max_batch, int replicas);

// The measured metric's prediction for a case that needs no queue; nullopt when the case gives a request
// rate (serving.rate_rps) or a concurrency, or measures a metric other than latency_s.mean and throughput_rps.
std::optional<double> predict_without_queue(const ConfigNode& root, const SpecCatalog& catalog);

}  // namespace hpcsim
