// The MLPerf Storage category: the hosts' reader rate per busy core is derived from the shipped cases (the
// number in models/storage/dlio.cpp is that derivation, not a hand-set constant), and the scores.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "configs/catalog.h"
#include "driver/mlperf_storage_validation.h"

using namespace hpcsim;

namespace {

std::vector<MlperfStorageCase> shipped_cases() {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return load_mlperf_storage_cases(std::string(HPCSIM_SOURCE_CONFIG_DIR) + "/validation/storage/mlperf-storage.yaml",
                                   catalog);
}

}  // namespace

TEST_CASE("MLPerf Storage: dlio.cpp's reader rates are the derivation over the shipped cases") {
  const std::vector<MlperfStorageCase> cases = shipped_cases();
  REQUIRE(cases.size() == 10);
  const auto rates = derive_reader_rates(cases);
  REQUIRE(rates.size() == 2);
  for (const auto& [format, rate] : rates) {
    INFO(format);
    CHECK(rate.bytes_per_core_s == Approx(find_dlio_reader(format)->bytes_per_core_s).epsilon(1e-9));
    CHECK(rate.bytes_per_cycle == Approx(find_dlio_reader(format)->bytes_per_cycle).epsilon(1e-9));
    // Each submitter contributes rows of each format (3 rows of 2 sources at least).
    int rows = 0;
    for (const auto& c : cases) rows += c.workload.format == format ? 1 : 0;
    CHECK(rows >= 3);
    CHECK(derive_reader_rates(cases, "DDN").count(format) == 1);
    CHECK(derive_reader_rates(cases, "IEI").count(format) == 1);
  }
  // DDN's 2017 Skylake hosts decode less per core than IEI's 2023 hosts: leaving DDN out raises the rate.
  CHECK(derive_reader_rates(cases, "DDN").at("npz").bytes_per_core_s > rates.at("npz").bytes_per_core_s);
  CHECK(derive_reader_rates(cases, "IEI").at("tfrecord").bytes_per_core_s < rates.at("tfrecord").bytes_per_core_s);
}

TEST_CASE("MLPerf Storage: the validation counts with the hosts' readers and their clocks") {
  const std::vector<MlperfStorageCase> cases = shipped_cases();
  for (const MlperfStorageCase& c : cases) CHECK(c.host.clock_hz > 0);
  const MlperfStorageValidation v = validate_mlperf_storage(cases);
  CHECK(v.scored_counts == 10);
  CHECK(v.family_out_rows == 10);
  // The figures docs/storage.md reports: with the cores' base clocks 2 of 10 within one step in sample
  // (23.7 %) and 3 of 10 left out by submitter (26.8 %); without them 4 of 10 (18.2 %) and 1 of 10 (36.8 %).
  CHECK(v.within_step == 2);
  CHECK(v.throughput_mape == Approx(0.237).margin(0.002));
  CHECK(v.within_step_family_out == 3);
  CHECK(v.throughput_mape_family_out == Approx(0.268).margin(0.002));
  int host_bound = 0;
  for (const MlperfStorageRow& r : v.rows) {
    host_bound += r.bottleneck == "host readers" ? 1 : 0;
    // At the published count the hosts pass it or fall short; the furthest, IEI's Intel host, whose 2.1 GHz
    // base clock understates its cores (docs/storage.md), reaches 46 % of the asked rate.
    CHECK(r.predicted_au > 0.4);
    CHECK(r.predicted_accelerators % r.hosts == 0);
  }
  CHECK(host_bound >= 7);
  // The same cases without the clocks: the per-core rate alone (the scores before the clock term).
  std::vector<MlperfStorageCase> unclocked = cases;
  for (MlperfStorageCase& c : unclocked) c.host.clock_hz = 0;
  const MlperfStorageValidation before = validate_mlperf_storage(unclocked);
  CHECK(before.within_step == 4);
  CHECK(before.throughput_mape == Approx(0.182).margin(0.002));
  CHECK(before.within_step_family_out == 1);
  CHECK(before.throughput_mape_family_out == Approx(0.368).margin(0.002));
  // The clock term's gain is left out by submitter (what the protocol scores), not in sample.
  CHECK(v.throughput_mape_family_out < before.throughput_mape_family_out);
  CHECK(v.within_step_family_out > before.within_step_family_out);
}

TEST_CASE("MLPerf Storage: the opens at the create rate from one directory are refuted by the published rows") {
  // With the IO500-fitted create rate (7,943 per second per server) standing in for an open, DLIO's one
  // directory caps cosmoflow at 7,943 files of 2.8 MB per second: below what DDN and IEI published, so the
  // shipped cases give no open rate (docs/storage.md).
  std::vector<MlperfStorageCase> cases = shipped_cases();
  for (MlperfStorageCase& c : cases) c.fs.metadata.open_ops_per_s = c.fs.metadata.ops_per_s;
  const MlperfStorageValidation v = validate_mlperf_storage(cases);
  int refuted = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const MlperfStorageCase& c = cases[i];
    if (c.workload.model != "cosmoflow") continue;
    const double cap = c.fs.metadata.ops_per_s * c.workload.record_bytes / 1048576.0;
    if (c.throughput_MiBps > cap) {
      ++refuted;
      CHECK(v.rows[i].bottleneck == "metadata opens");
      CHECK(v.rows[i].predicted_throughput_MiBps == Approx(cap).epsilon(1e-3));
    }
  }
  CHECK(refuted == 3);  // DDN's 30 hosts, IEI AMD's 6 hosts (a100, h100)
}
