#include "report/llm_serving_report.h"

#include <algorithm>
#include <numeric>

#include "workloads/serving/serving_summary.h"

namespace hpcsim {

namespace {

void add_summary(std::vector<Metric>& out, const std::string& name, std::vector<double> values) {
  if (values.empty()) {
    for (const char* part : {".mean", ".p50", ".p99"}) out.push_back({name + part, std::nullopt, "s"});
    return;
  }
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  out.push_back({name + ".mean", mean, "s"});
  out.push_back({name + ".p50", nearest_rank_percentile(values, 0.50), "s"});
  out.push_back({name + ".p99", nearest_rank_percentile(values, 0.99), "s"});
}

}  // namespace

std::vector<Metric> llm_serving_metrics(const LlmServingResult& r, int replicas) {
  std::vector<double> ttft, tpot;
  for (const LlmRequestOutcome& o : r.requests) {
    ttft.push_back(o.ttft_s());
    if (o.output_len > 1) tpot.push_back(o.tpot_s());
  }
  std::vector<Metric> out;
  add_summary(out, "ttft_s", std::move(ttft));
  add_summary(out, "tpot_s", std::move(tpot));
  out.push_back({"output_tokens_per_s", r.output_tokens_per_s() * replicas, "1/s"});
  out.push_back({"requests_per_s", r.requests_per_s() * replicas, "1/s"});
  out.push_back({"kv_cache_bytes_per_gpu", r.kv.bytes_per_gpu, "bytes"});
  out.push_back({"llm.iterations", static_cast<double>(r.iterations), "count"});
  out.push_back({"llm.preemptions", static_cast<double>(r.preemptions), "count"});
  out.push_back({"llm.mean_batch", r.mean_batch, "count"});
  out.push_back({"llm.max_kv_utilization", r.max_kv_utilization, "ratio"});
  return out;
}

}  // namespace hpcsim
