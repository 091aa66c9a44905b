#pragma once
// The GPU model beside measurements from our CUDA suite (`hpcsim validate --measured FILE --gpu NAME`):
// each row the model can predict from the GPU spec alone gets its prediction and relative error; the
// MAPE and worst case are over the timed rows (one per case: GEMM TFLOP/s, copy and triad GB/s, launch
// time); occupancy rows are the driver's exact answers and must match the occupancy rules exactly. The suite
// times ops back to back, so a copy, triad, GEMM or spinning kernel is predicted at no less than the run's
// own host enqueue time per launch (its `launch` host_us row, when present).
#include <optional>
#include <string>
#include <vector>

#include "analysis/device_measurements.h"
#include "analysis/validation.h"
#include "models/gpu/gpu_spec.h"

namespace hpcsim {

struct DeviceComparisonRow {
  DeviceMeasurement measured;
  std::optional<double> predicted;  // in the row's unit; absent when not modelled (see note)
  double error = 0;                 // (predicted - measured) / measured
  bool in_mape = false;             // the case's headline metric (its time_us twin is shown, not counted)
  bool exact = false;               // an occupancy row: predicted must equal measured
  std::string note;                 // why a row has no prediction
};

struct DeviceComparison {
  std::string gpu_spec;      // the spec the rows were predicted with
  std::string measured_gpu;  // the CSV's `# gpu:` line
  std::vector<DeviceComparisonRow> rows;  // in file order
  double mape = 0;           // over the in_mape rows
  int mape_rows = 0;
  int worst = -1;            // index of the in_mape row with the largest |error|
  int occupancy_rows = 0, occupancy_matches = 0;
};

// std::invalid_argument naming --gpu when the spec cannot be the measured GPU (another compute capability
// or SM count than the CSV's header says); ConfigError at the row's line for a row of a modelled benchmark
// that lacks a param, has one out of range, or gives a metric in another unit.
DeviceComparison compare_device_measurements(const DeviceMeasurements& measured, const GpuSpec& gpu);

// One line per row (benchmark, params, metric, measured, predicted, error), then the MAPE, the worst case
// and the occupancy matches; csv and markdown as `hpcsim validate` writes them.
std::string render_device_comparison(const DeviceComparison& comparison, ValidationFormat format);

}  // namespace hpcsim
