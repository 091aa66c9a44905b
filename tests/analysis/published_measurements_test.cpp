// configs/measurements: published figures in the suite's CSV schema. Every file reads with the suite's
// reader, every row names its GPU and a source the file's header cites, each source's plateaus rise from L1
// to L2 to DRAM, and the rows agree with the ranges issue 15 quotes (V100 about 28-36 / 193-221 / 400-460
// cycles; H100 about 33-40 / 260-300 / 480-700).
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include "driver/device_measurements.h"

using namespace hpcsim;

namespace {

std::vector<DeviceMeasurements> published() {
  std::vector<DeviceMeasurements> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(HPCSIM_SOURCE_CONFIG_DIR) + "/measurements")) {
    if (entry.path().extension() == ".csv") files.push_back(read_device_measurements(entry.path()));
  }
  return files;
}

struct Range {
  double low, high;
};

// The issue's plateaus by GPU name prefix and level.
const std::map<std::pair<std::string, std::string>, Range> kIssueRanges = {
    {{"v100", "l1"}, {28, 36}}, {{"v100", "l2"}, {193, 221}}, {{"v100", "hbm"}, {400, 460}},
    {{"h100", "l1"}, {33, 40}}, {{"h100", "l2"}, {260, 300}}, {{"h100", "hbm"}, {480, 700}},
};

}  // namespace

TEST_CASE("published measurements: every row has a GPU and a cited source", "[device][published]") {
  const auto files = published();
  REQUIRE(files.size() >= 3);
  int rows = 0;
  for (const DeviceMeasurements& file : files) {
    for (const DeviceMeasurement& row : file.rows) {
      INFO(file.file << ":" << row.line);
      ++rows;
      REQUIRE(row.param("gpu"));
      REQUIRE(row.param("source"));
      const auto citation = file.header_value("source." + *row.param("source"));
      REQUIRE(citation);
      CHECK(citation->size() > 40);  // a file, a commit and the figures, not a bare name
      CHECK(row.value > 0);
      if (row.benchmark == "pointer-chase") {
        CHECK(row.unit == "cycles");
        REQUIRE(row.param("level"));
        CHECK((*row.param("level") == "l1" || *row.param("level") == "l2" || *row.param("level") == "hbm"));
      }
    }
  }
  CHECK(rows >= 20);
}

TEST_CASE("published measurements: plateaus rise from L1 to L2 to DRAM and match the issue's ranges",
          "[device][published]") {
  // (gpu, source) -> level -> cycles
  std::map<std::pair<std::string, std::string>, std::map<std::string, double>> plateaus;
  int checked_against_issue = 0;
  for (const DeviceMeasurements& file : published()) {
    for (const DeviceMeasurement& row : file.rows) {
      if (row.benchmark != "pointer-chase") continue;
      const std::string gpu = *row.param("gpu");
      const std::string level = *row.param("level");
      plateaus[{gpu, *row.param("source")}][level] = row.value;
      const auto range = kIssueRanges.find({gpu.substr(0, 4), level});
      if (range == kIssueRanges.end()) continue;
      INFO(file.file << ":" << row.line << " " << gpu << " " << level << " " << row.value);
      CHECK(row.value >= range->second.low);
      CHECK(row.value <= range->second.high);
      ++checked_against_issue;
    }
  }
  CHECK(checked_against_issue >= 12);
  for (const auto& [key, levels] : plateaus) {
    INFO(key.first << " from " << key.second);
    REQUIRE(levels.size() == 3);
    CHECK(levels.at("l1") < levels.at("l2"));
    CHECK(levels.at("l2") < levels.at("hbm"));
  }
}
