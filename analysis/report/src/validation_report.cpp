#include "report/validation_report.h"

#include <cmath>

namespace hpcsim {

bool ValidationRow::within_band() const { return std::abs(error) <= band; }

double validation_error_band(std::string_view trust) { return trust == "high" ? 0.25 : 0.35; }

bool is_time_metric(const std::string& metric) {
  // Serve latencies are <name>_s.<statistic> (latency_s.p99, ttft_s.p99, tpot_s.mean, queue_s.p50); no rate's
  // name has "_s." (samples_per_s, throughput_rps, output_tokens_per_s, max_rate.rate_rps).
  // MPI reports: time_s, iteration_s, stencil.grind_ns; an OSU row's latency_us.
  for (const char* time : {"time_ms", "time_s", "step_time_s", "s_per_kimg", "iteration_s", "stencil.grind_ns", "latency_us"}) {
    if (metric == time) return true;
  }
  return metric.find("_s.") != std::string::npos;
}

double ValidationRow::time_ratio() const {
  return is_time_metric(metric) ? predicted / measured : measured / predicted;
}

void summarize_validation(ValidationReport& report) {
  double sum = 0;
  report.worst = -1;
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    ValidationRow& row = report.rows[i];
    row.error = (row.predicted - row.measured) / row.measured;  // the schemas require measured > 0
    row.band = validation_error_band(row.trust);
    sum += std::abs(row.error);
    if (report.worst < 0 || std::abs(row.error) > std::abs(report.rows[report.worst].error)) {
      report.worst = static_cast<int>(i);
    }
  }
  report.mape = report.rows.empty() ? 0 : sum / static_cast<double>(report.rows.size());
}

std::vector<CategoryScore> score_by_category(const std::vector<ValidationRow>& rows, const std::vector<double>& errors) {
  std::vector<CategoryScore> out;
  for (const char* category : {"cnn", "rnn", "gan", "transformer", "scaling", "micro", "cpu-infer", "gpu-infer", "llm-serve",
                               "hpl", "hpcg", "stencil", "npb", "p2p"}) {
    CategoryScore score{category};
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].category != category) continue;
      ++score.rows;
      score.mape += std::abs(errors[i]);
      if (std::abs(errors[i]) > std::abs(score.worst)) score.worst = errors[i];
    }
    if (score.rows == 0) continue;
    score.mape /= score.rows;
    out.push_back(score);
  }
  return out;
}

}  // namespace hpcsim
