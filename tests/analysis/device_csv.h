#pragma once
// hpcsim-cuda-bench CSV text written to a temp file and read back: the fixtures of the reader and comparison
// tests.
#include <fstream>
#include <string>

#include "driver/device_measurements.h"
#include "analysis/temp_path.h"
#include "configs/config_error.h"

namespace hpcsim::test {

inline const std::string kV100Header =
    "# hpcsim-cuda-bench 1\n# date: test fixture, not a measurement\n# gpu: Tesla V100-SXM2-16GB\n"
    "# compute_capability: 7.0\n# sm_count: 80\nbenchmark,params,metric,value,unit\n";

inline DeviceMeasurements read_text(const std::string& text) {
  const TempPath file("device.csv");
  std::ofstream(file.str()) << text;
  return read_device_measurements(file.str());
}

// The message of the ConfigError reading `text` throws, with the temp path cut to "F".
inline std::string read_error(const std::string& text) {
  const TempPath file("device.csv");
  std::ofstream(file.str()) << text;
  try {
    read_device_measurements(file.str());
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    return "F" + what.substr(file.str().size());
  }
  return "no error";
}

}  // namespace hpcsim::test
