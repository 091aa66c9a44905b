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
#include "workloads/scenario/training_scenario.h"

namespace hpcsim {

// "<kind>/<precision group>": kind cnn, rnn, gan or transformer (from the model's layers); group fp32
// (fp32, tf32), half (fp16, bf16) or fp8.
std::string prediction_class(const TrainingScenario& scenario);

// Predicted over true step time: the central 90 % (nearest rank) of a class's cross-validated ratios.
struct IntervalEntry {
  std::string cls;   // a prediction class, a kind ("cnn/*") or "*" for every row
  int rows = 0;
  double low_ratio = 1, high_ratio = 1;
};

class IntervalTable {
 public:
  static constexpr int kMinRows = 5;  // fewer rows than this: the class falls back to its kind, then to "*"

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
  // The YAML text of prediction-intervals.yaml.
  std::string to_yaml() const;

 private:
  std::vector<IntervalEntry> entries_;
};

}  // namespace hpcsim
