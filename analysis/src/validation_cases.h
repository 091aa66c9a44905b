#pragma once
// The two kinds of validation case, each read and predicted in its own file (validation_scenario.cpp,
// validation_micro.cpp). Rows come back with measured and predicted set; run_validation adds the error.
#include <filesystem>
#include <vector>

#include "analysis/validation.h"
#include "configs/catalog.h"

namespace hpcsim::validation_detail {

inline constexpr const char* kMicrobenchmarksFile = "microbenchmarks.yaml";

// A training scenario with a `measured:` section, simulated as `hpcsim run` does.
ValidationRow scenario_case(const std::filesystem::path& file, const SpecCatalog& catalog);
// Every entry of microbenchmarks.yaml, in file order.
std::vector<ValidationRow> microbenchmark_cases(const std::filesystem::path& file, const SpecCatalog& catalog);

}  // namespace hpcsim::validation_detail
