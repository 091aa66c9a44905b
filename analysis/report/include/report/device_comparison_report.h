#pragma once
// The GPU model beside measurements from our CUDA suite: the measured rows as read (driver/device_measurements.h
// reads the CSV), each with its prediction and error, the MAPE and occupancy matches, and their rendering.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/validation_report.h"

namespace hpcsim {

struct DeviceMeasurement {
  // launch, copy, triad, pcie, gemm, occupancy, pointer-chase, coalescing, bank-conflicts, divergence, fma-ilp,
  // occupancy-sweep, overlap (rows of benchmarks the models do not cover are kept and marked not modelled)
  std::string benchmark;
  std::vector<std::pair<std::string, std::string>> params;  // in file order
  std::string metric;
  double value = 0;
  std::string unit;
  int line = 0;  // 1-based line in the file

  const std::string* param(const std::string& key) const;
  std::string params_text() const;  // back as key=value;key=value
};

struct DeviceMeasurements {
  std::string file;  // as given, for error messages
  std::vector<std::pair<std::string, std::string>> header;  // `# key: value` lines, in order
  std::vector<DeviceMeasurement> rows;

  std::optional<std::string> header_value(const std::string& key) const;
};

struct DeviceComparisonRow {
  DeviceMeasurement measured;
  std::optional<double> predicted;  // in the row's unit; absent when not modelled (see note)
  double error = 0;                 // (predicted - measured) / measured
  bool in_mape = false;             // the case's headline metric (its time_us twin is shown, not counted)
  bool exact = false;               // an occupancy row: predicted must equal measured
  std::string note;                 // why a row has no prediction
};

// The timed rows of one benchmark (op class: gemm, copy, triad, pcie, launch, fma-ilp, ...).
struct DeviceClassError {
  std::string benchmark;
  int rows = 0;
  double mape = 0;
  double worst = 0;  // the signed error of its largest |error|
};

struct DeviceComparison {
  std::string gpu_spec;      // the spec the rows were predicted with
  std::string measured_gpu;  // the CSV's `# gpu:` line
  std::vector<DeviceComparisonRow> rows;  // in file order
  double mape = 0;           // over the in_mape rows
  int mape_rows = 0;
  int worst = -1;            // index of the in_mape row with the largest |error|
  int occupancy_rows = 0, occupancy_matches = 0;
  std::vector<DeviceClassError> by_benchmark;  // the in_mape rows per benchmark, in order of first appearance
};

// One line per row (benchmark, params, metric, measured, predicted, error), then the MAPE, the worst case,
// the occupancy matches and the MAPE per benchmark; csv and markdown as `hpcsim validate` writes them.
std::string render_device_comparison(const DeviceComparison& comparison, ValidationFormat format);

}  // namespace hpcsim
