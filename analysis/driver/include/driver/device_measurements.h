#pragma once
// Measurements taken on a real GPU by the CUDA suite we ship (bench/cuda, `hpcsim-cuda-bench`): a CSV with
// `# key: value` header lines (date, GPU, driver, runtime) and rows `benchmark,params,metric,value,unit`,
// params being `key=value;key=value`. Read here so `hpcsim validate --measured` can put the model beside them.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "configs/config_error.h"
#include "report/device_comparison_report.h"

namespace hpcsim {

// The units a row may carry: what the suite and its simulated twins (`hpcsim microbench`) write. A unit
// outside this list is a typo or a new metric the reader must learn, never something to compare blindly.
const std::vector<std::string>& device_measurement_units();

// Reads a CSV the suite wrote. ConfigError at file:line:column for a file that is not one: an empty file, no
// `# hpcsim-cuda-bench 1` first line, a header line without ':' or key, a header line after the column line,
// a missing or wrong column line, a row without five fields, an empty benchmark or metric, a param without
// '=', key or value, a param key given twice, a value that is not a finite number, a unit not in
// device_measurement_units(). std::runtime_error when the file cannot be opened.
DeviceMeasurements read_device_measurements(const std::filesystem::path& file);

// A ConfigError at the row's line: "file:line:1: benchmark: message", for rows that read but make no sense.
ConfigError device_row_error(const DeviceMeasurements& file, const DeviceMeasurement& row, const std::string& message);

// The integer param `key` of a row, at least `at_least`; device_row_error when it is missing or not one.
std::int64_t device_int_param(const DeviceMeasurements& file, const DeviceMeasurement& row, const std::string& key,
                              std::int64_t at_least);
// The same, held to an int (a stride, a block size, registers): device_row_error past 2,147,483,647.
int device_int32_param(const DeviceMeasurements& file, const DeviceMeasurement& row, const std::string& key, int at_least);

}  // namespace hpcsim
