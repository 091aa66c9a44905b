#pragma once
// Measurements taken on a real GPU by the CUDA suite we ship (bench/cuda, `hpcsim-cuda-bench`): a CSV with
// `# key: value` header lines (date, GPU, driver, runtime) and rows `benchmark,params,metric,value,unit`,
// params being `key=value;key=value`. Read here so `hpcsim validate --measured` can put the model beside them.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hpcsim {

struct DeviceMeasurement {
  std::string benchmark;  // launch, copy, triad, pcie, gemm, occupancy (others are kept, not modelled)
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

// Reads a CSV the suite wrote. ConfigError at file:line:column for a file that is not one: no
// `# hpcsim-cuda-bench 1` first line, a missing column header, a row without five fields, a param without
// '=', a value that is not a finite number. std::runtime_error when the file cannot be opened.
DeviceMeasurements read_device_measurements(const std::filesystem::path& file);

}  // namespace hpcsim
