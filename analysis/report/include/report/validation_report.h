#pragma once
// The validation table: each published measurement beside the simulator's prediction, the MAPE and worst
// case, scores per category, and its rendering as text, CSV or Markdown. Filled by driver/validation.h.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpcsim {

struct ValidationRow {
  std::string id;
  std::string kind;    // "scenario", or the microbenchmark op: "gemm", "allreduce", "lstm"
  std::string metric;  // as the case file names it (samples_per_s, tokens_per_s, tflops, busbw, ...)
  std::string unit;
  double measured = 0;
  double predicted = 0;   // in the unit of `measured`
  double error = 0;       // signed, relative: (predicted - measured) / measured
  double band = 0;        // |error| the case is expected to stay within (see validation_error_band)
  std::string trust;      // the source's trust label
  std::string source;
  std::string category;   // cnn, rnn, gan, transformer, scaling or micro
  std::string family;     // source family: the rows of one publication or benchmark table (left out together by --cv)
  std::string file;       // the case file (microbenchmarks: microbenchmarks.yaml)
  // Training scenarios: the prediction class their uncertainty band is drawn from (prediction_interval.h);
  // serve cases: their serving class (serve_intervals.h); HPC and OSU rows: theirs (mpi_intervals.h); empty
  // for microbenchmarks.
  std::string interval_class;
  // Predicted over true step time (or op time): predicted / measured for a time metric, the inverse for a
  // rate. > 1: the prediction is too slow.
  double time_ratio() const;
  bool within_band() const;
};

// A metric measured as a time (a step or op time, a serve latency: latency_s.*, ttft_s.*, tpot_s.*, an MPI
// run's time_s, iteration_s or grind time, an OSU latency), not a rate (samples_per_s, throughput_rps,
// output_tokens_per_s, max_rate.rate_rps, rmax_tflops, bandwidth_MBps): what time_ratio turns over.
bool is_time_metric(const std::string& metric);

struct ValidationReport {
  std::vector<ValidationRow> rows;  // training scenarios by file name, then microbenchmarks in file order
  double mape = 0;                  // mean |error| over every row
  int worst = -1;                   // index of the row with the largest |error|; -1 when there are none
  std::vector<std::pair<std::string, std::string>> unscored;  // serve cases run but not scored: id, why
};

// MAPE (fraction) and the index of the largest |error| of `rows`, with each row's error recomputed from
// measured and predicted; -1 when there are none.
void summarize_validation(ValidationReport& report);

// The error band a case is held to, from the trust its source is given: 25 % for "high", 35 % (the
// acceptance's worst-case bound) for anything less certain. One global rule, never a per-case number.
double validation_error_band(std::string_view trust);

// Mean |error| (fraction) and row count per category (cnn, rnn, gan, transformer, scaling, micro, cpu-infer,
// gpu-infer, llm-serve), in
// that order; categories without rows are left out. `errors` parallels `rows`.
struct CategoryScore {
  std::string category;
  int rows = 0;
  double mape = 0, worst = 0;  // worst: the signed error of largest magnitude
};
std::vector<CategoryScore> score_by_category(const std::vector<ValidationRow>& rows, const std::vector<double>& errors);

enum class ValidationFormat { table, csv, markdown };
// One line per case (id, metric, measured, predicted, error, band), then MAPE and the worst case.
std::string render_validation(const ValidationReport& report, ValidationFormat format);

}  // namespace hpcsim
