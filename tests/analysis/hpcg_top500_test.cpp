// HPCG against the TOP500 (tests/data/hpc/top500-hpcg.yaml, the list's HPCG column for the CPU rows hpcsim
// expresses, copied with their source): predicted from the published hardware alone (one rank per NUMA
// domain, HPCG's default box), the rating meets the acceptance of MAPE at most 25 %. Every row is
// also a validation case (configs/validation/hpc/hpcg-*.yaml); docs/hpc.md holds the table.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "top500_row.h"
#include "workloads/hpc/mpi_scenario.h"

using namespace hpcsim;

TEST_CASE("HPCG: the TOP500 CPU rows within the acceptance MAPE", "[hpcg][validation]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const ConfigNode rows = load_config_file(std::string(HPCSIM_TEST_DATA_DIR) + "/hpc/top500-hpcg.yaml");
  double sum = 0, worst = 0;
  int n = 0;
  for (const ConfigNode& row : rows.items()) {
    const std::string name = row.get_string("name");
    INFO(name);
    const ConfigNode& map = row.at("map");
    const std::string yaml = test::top500_cluster_yaml(map) +
                             "mpi: {ranks_per_node: " + std::to_string(map.get_int("ranks_per_node")) +
                             ", threads_per_rank: " + std::to_string(map.get_int("threads_per_rank")) +
                             "}\nworkload: {app: hpcg}\n";
    const MpiScenario s = parse_mpi_scenario(parse_config_text(yaml, name + ".yaml"), catalog, name);
    const SpmdResult r = simulate_mpi_app(s, AnalyticMpiComm(s.cluster));
    // The program's FLOPs are HPCG's reference count.
    CHECK(r.flops == Approx(hpcg_counts(s.hpcg, r.grid).flops).epsilon(1e-9));
    const double measured = row.get_number("hpcg_tflops");
    const double error = (r.flop_rate / 1e12 - measured) / measured;
    std::printf("hpcg %-32s measured %10.2f predicted %10.2f TFLOP/s  %+6.1f %%\n", name.c_str(), measured,
                r.flop_rate / 1e12, 100 * error);
    sum += std::abs(error);
    worst = std::max(worst, std::abs(error));
    ++n;
  }
  CHECK(n == 8);
  std::printf("hpcg MAPE %.1f %% worst %.1f %%\n", 100 * sum / n, 100 * worst);
  CHECK(sum / n <= 0.25);
}
