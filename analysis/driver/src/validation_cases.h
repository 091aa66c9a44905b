#pragma once
// The two kinds of validation case, each read and predicted in its own file (validation_scenario.cpp,
// validation_micro.cpp). Rows come back with measured and predicted set; run_validation adds the error.
#include <filesystem>
#include <string>
#include <vector>

#include "driver/validation.h"
#include "configs/catalog.h"
#include "configs/config_node.h"
#include "models/gpu/gpu_spec.h"

namespace hpcsim::validation_detail {

inline constexpr const char* kMicrobenchmarksFile = "microbenchmarks.yaml";

// The checks every scenario case passes (training or serve): it has a measured: section with a category
// and a family, and is named after its file. The measured section; ConfigError at the offending key.
const ConfigNode& case_measurement(const ConfigNode& root, const std::filesystem::path& file, const std::string& name,
                                   bool has_measured);

// A training scenario with a `measured:` section, simulated as `hpcsim run` does.
ValidationRow scenario_case(const std::filesystem::path& file, const SpecCatalog& catalog);
// Every entry of microbenchmarks.yaml, in file order.
std::vector<ValidationRow> microbenchmark_cases(const std::filesystem::path& file, const SpecCatalog& catalog,
                                                const CaseFilter& include = {});

// microbenchmarks.yaml read into `storage` and checked against its schema (ConfigError otherwise).
const ConfigNode& load_microbenchmarks(const std::filesystem::path& file, ConfigNode& storage);
// The prediction of a gemm (TFLOP/s) or lstm (ms) entry on `gpu`, in the entry's measured unit; calibration
// refits a spec parameter through it. ConfigError for other entries.
double predict_on_gpu(const ConfigNode& entry, const GpuSpec& gpu);

}  // namespace hpcsim::validation_detail
