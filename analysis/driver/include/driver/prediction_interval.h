#pragma once
// Prediction intervals: the band a measured step time is expected in, drawn from the cross-validated
// errors of the validation rows of the same prediction class (workload kind and precision group). The
// table (configs/prediction-intervals.yaml) is derived by `hpcsim validate --intervals` from
// `hpcsim validate --cv`; a test holds the shipped table to that derivation.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "driver/calibration.h"
#include "report/step_time_interval.h"
#include "store/metric.h"
#include "workloads/scenario/training_scenario.h"

namespace hpcsim {

// "<kind>/<precision group>": kind cnn, rnn, gan or transformer (from the model's layers); group fp32
// (fp32, tf32), half (fp16, bf16) or fp8.
std::string prediction_class(const TrainingScenario& scenario);

// Predicted over true step time: a 90 % band for a new row from a class's cross-validated ratios (split
// conformal: the j-th smallest and largest of n, j = floor((n + 1) x 5 %)). Each
// ratio is a family-out residual: the row predicted with the calibrated parameters refitted without its
// source family (`hpcsim validate --cv`).
struct IntervalEntry {
  std::string cls;   // a prediction class, a kind ("cnn/*") or "*" for every row
  int rows = 0;
  int families = 0;  // source families among the rows
  double low_ratio = 1, high_ratio = 1;
};

// How often the measured value lies inside its row's interval, over the training rows that carry one.
struct IntervalCoverage {
  int rows = 0;
  int in_sample = 0;   // the row's in-sample prediction inside the interval of `table`
  int family_out = 0;  // its cross-validated prediction inside the interval derived without its family
};

class IntervalTable {
 public:
  // A class (or kind) with fewer rows, or rows from fewer source families, than these falls back to its
  // kind, then to "*": a band from one family is that family's spread, not what a new source will see
  // (the calibration's own rule: nothing drawn from fewer than two sources).
  static constexpr int kMinRows = 5;
  static constexpr int kMinFamilies = 2;
  // The fewest rows whose own 90 % band exists: j = floor((n + 1) x 5 %) reaches 1 at n = 19. A class with
  // fewer (and at least kMinRows) takes the hull of its extremes and its fallback's band (derive()).
  static constexpr int kConformalRows = 19;

  // From the cross-validation: an entry per class, per kind and for all rows with kMinRows rows or more.
  static IntervalTable derive(const CrossValidation& cv);
  // Reads <config_root>/prediction-intervals.yaml; an empty table when the file is absent.
  static IntervalTable load(const std::filesystem::path& config_root);
  // The same for another table of the same form (the serving one: serve_intervals.h).
  static IntervalTable load(const std::filesystem::path& config_root, const std::string& file_name);
  IntervalTable() = default;
  explicit IntervalTable(std::vector<IntervalEntry> entries) : entries_(std::move(entries)) {}

  const std::vector<IntervalEntry>& entries() const { return entries_; }
  // The entry for `cls`, else its kind's, else "*"'s; nullopt when the table is empty.
  std::optional<IntervalEntry> lookup(const std::string& cls) const;
  std::optional<PredictionInterval> interval(const std::string& cls, double predicted_step_time_s) const;
  // The YAML text of prediction-intervals.yaml: its header, then entries_yaml().
  std::string to_yaml() const;
  // The "intervals:" list alone, rounded outward (each table file puts its own header above it).
  std::string entries_yaml() const;
  // Coverage of `cv`'s rows: in-sample against this table, and family-out (each row's interval derived
  // from the other families' rows alone, its own prediction the cross-validated one).
  IntervalCoverage coverage(const CrossValidation& cv) const;

 private:
  std::vector<IntervalEntry> entries_;
};

// Validation sets whose rows no calibrated parameter is fitted on (serving, HPC): a row's family-out
// prediction is its in-sample one, so their cross-validation is the rows as they are.
CrossValidation unfitted_cross_validation(const ValidationReport& report);

// How often a measured value lies inside its row's interval, for one category of rows ("*": every row).
struct CategoryIntervalCoverage {
  std::string category;
  int rows = 0;
  int in_sample = 0;   // inside the interval of the table given (the shipped one)
  int family_out = 0;  // inside the interval derived from the other source families' rows alone
};
// The same for an unfitted set's rows with an interval class, per category in `categories` (those with
// rows) and over all of them ("*").
std::vector<CategoryIntervalCoverage> unfitted_interval_coverage(const ValidationReport& report, const IntervalTable& table,
                                                                 const std::vector<std::string>& categories);

// Inserts "<name>_interval[0]" and "[1]" after the metric `name` of `report`: a time (is_time_metric) in
// [v / high_ratio, v / low_ratio], a rate in [v x low_ratio, v x high_ratio]. Nothing when the metric is
// absent or has no value.
void add_metric_interval(Report& report, const std::string& name, const IntervalEntry& entry);

}  // namespace hpcsim
