// The cpu-infer and gpu-infer validation cases that need no queue (configs/validation/inference/):
// predicted against measured, with MAPE per category. Queue-dependent cases are skipped here (the serving
// engine scores them).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <vector>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "workloads/inference/offline_prediction.h"

using namespace hpcsim;

namespace {

struct Row {
  std::string id, category;
  double measured = 0, predicted = 0;
};

std::vector<Row> predict_cases() {
  namespace fs = std::filesystem;
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(HPCSIM_SOURCE_CONFIG_DIR) / "validation" / "inference")) {
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Row> rows;
  for (const fs::path& f : files) {
    const ConfigNode root = load_config_file(f);
    const std::optional<double> predicted = predict_without_queue(root, catalog);
    if (!predicted) continue;
    const ConfigNode& m = root.at("measured");
    rows.push_back({f.stem().string(), m.get_string("category"), m.at("value").as_number(), *predicted});
  }
  return rows;
}

}  // namespace

TEST_CASE("inference validation: predicted vs measured per category", "[inference][validation]") {
  const std::vector<Row> rows = predict_cases();
  std::map<std::string, std::pair<double, int>> by_category;
  for (const Row& r : rows) {
    const double error = (r.predicted - r.measured) / r.measured;
    std::printf("%-52s %-9s measured %12.5g predicted %12.5g error %+6.1f%%\n", r.id.c_str(), r.category.c_str(),
                r.measured, r.predicted, 100 * error);
    by_category[r.category].first += std::abs(error);
    by_category[r.category].second += 1;
  }
  REQUIRE(by_category.count("cpu-infer") == 1);
  REQUIRE(by_category.count("gpu-infer") == 1);
  for (const auto& [category, sum] : by_category) {
    std::printf("%s: %d cases, MAPE %.1f%%\n", category.c_str(), sum.second, 100 * sum.first / sum.second);
  }
  // Every case is predicted from mechanisms within a factor of 4 either way: a broken unit, a missing
  // layer or a lost factor of threads or replicas lands outside. (The 20 % MAPE target is the
  // hidden [target] test below: not met yet, see docs/inference.md.)
  for (const Row& r : rows) {
    INFO(r.id);
    CHECK(r.predicted > r.measured / 4);
    CHECK(r.predicted < r.measured * 4);
  }
}

TEST_CASE("inference validation: MAPE at most 20 % per category (issue 16 target)", "[.][target][inference]") {
  std::map<std::string, std::pair<double, int>> by_category;
  for (const Row& r : predict_cases()) {
    by_category[r.category].first += std::abs((r.predicted - r.measured) / r.measured);
    by_category[r.category].second += 1;
  }
  for (const auto& [category, sum] : by_category) {
    INFO(category);
    CHECK(sum.first / sum.second <= 0.20);
  }
}
