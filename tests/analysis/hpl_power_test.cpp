// HPL power (models/power/node_power.h through the HPL report) against the TOP500's measured power
// (tests/data/hpc/top500-*hpl.yaml, the list's Power column): a CPU node without max_power reports its packages
// at TDP, a lower bound, and every CPU row's measurement lies above it; a GPU node reports its GPUs by activity
// and the rest at max_power less the GPUs' TDP, an upper bound, and every GPU row lies below it. Nothing is
// fitted to these rows; docs/hpc.md ("Power and energy") holds the table.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/power/node_power.h"
#include "report/hpl_report.h"
#include "store/metric.h"
#include "top500_row.h"
#include "workloads/hpc/mpi_scenario.h"

using namespace hpcsim;

namespace {

struct PowerRows {
  int lower = 0, upper = 0, none = 0;
};

PowerRows check_rows(const std::string& file, const std::string& workload_keys) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const ConfigNode rows = load_config_file(std::string(HPCSIM_TEST_DATA_DIR) + "/hpc/" + file);
  PowerRows out;
  for (const ConfigNode& row : rows.items()) {
    if (row.has("expressible") || !row.has("power_kw")) continue;
    const std::string name = row.get_string("name");
    INFO(name);
    const std::string yaml = test::top500_cluster_yaml(row.at("map")) + "workload: {app: hpl, " + workload_keys +
                             "n: " + std::to_string(row.get_int("nmax")) + "}\n";
    const MpiScenario s = parse_mpi_scenario(parse_config_text(yaml, "row.yaml"), catalog, "row");
    const std::vector<Metric> m = hpl_metrics(s, simulate_hpl(s.cluster, s.hpl, AnalyticMpiComm(s.cluster)));
    const std::optional<double> kw = metric_value(m, "power.nodes_kw");
    if (!kw) {
      CHECK(s.cluster.node.cpu.tdp_w == 0);  // only a spec without the figure reports no power
      ++out.none;
      continue;
    }
    const double measured = row.get_number("power_kw");
    const bool lower = *metric_value(m, "power.lower_bound") == 1.0;
    WARN(name << ": measured " << measured << " kW, model " << *kw << " kW (" << (lower ? "lower" : "upper")
              << " bound), ratio " << *kw / measured << ", " << *metric_value(m, "gflops_per_watt") << " GFLOP/s/W");
    if (lower) {
      CHECK(*kw <= measured);
      ++out.lower;
    } else {
      CHECK(*kw >= measured);
      ++out.upper;
    }
    // Energy is the power over the run, and the Green500 figure Rmax over the power.
    CHECK(*metric_value(m, "energy_kwh") == Approx(*kw * *metric_value(m, "time_s") / 3600));
    CHECK(*metric_value(m, "gflops_per_watt") == Approx(*metric_value(m, "gflops") / (*kw * 1e3)));
  }
  return out;
}

}  // namespace

TEST_CASE("HPL power: CPU packages at TDP bound the TOP500's CPU systems from below", "[hpl][power][validation]") {
  const PowerRows r = check_rows("top500-hpl.yaml", "nb: 256, ");
  CHECK(r.lower == 4);  // CEA-HF, Karolina, Cheyenne, Crossroads
  CHECK(r.upper == 0);
  CHECK(r.none == 1);   // Fugaku: Fujitsu publishes no A64FX TDP
}

TEST_CASE("HPL power: GPU nodes at max_power bound the TOP500's GPU systems from above", "[hpl][power][validation]") {
  const PowerRows r = check_rows("top500-gpu-hpl.yaml", "accelerator: gpu, nb: 1024, ");
  CHECK(r.upper == 2);  // Selene, Gefion
  CHECK(r.lower == 0);
}

TEST_CASE("Node power under full load from the spec's figures", "[power]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  auto node = [&](const std::string& name) {
    return parse_node_spec(catalog.load("nodes", ConfigNode::make_scalar(name, {}), "node"), name, catalog);
  };
  // Two EPYC 7763 packages at AMD's 280 W default TDP; no max_power: the packages alone, a lower bound.
  const NodeSpec cpu = node("epyc-7763-2s");
  const std::optional<NodeLoadPower> p = full_load_node_power(cpu, 0, 0.0);
  REQUIRE(p);
  CHECK(p->node_w() == 560.0);
  CHECK(p->bound == PowerBound::lower);
  // A DGX A100: 8 A100s between 60 W idle and 400 W TDP by activity, the rest 6.5 kW less 3.2 kW.
  const NodeSpec dgx = node("dgx-a100-80gb");
  const std::optional<NodeLoadPower> busy = full_load_node_power(dgx, 8, 1.0);
  const std::optional<NodeLoadPower> idle = full_load_node_power(dgx, 8, 0.0);
  REQUIRE(busy);
  REQUIRE(idle);
  CHECK(busy->node_w() == Approx(6500.0));
  CHECK(idle->node_w() == Approx(6500.0 - 8 * 340.0));
  CHECK(busy->bound == PowerBound::upper);
  // Four of its GPUs busy, the other four idle.
  CHECK(full_load_node_power(dgx, 4, 1.0)->node_w() == Approx(6500.0 - 4 * 340.0));
  // A CPU node given max_power draws it whole: its packages at TDP and the rest.
  NodeSpec rated = cpu;
  rated.max_power_w = 900;
  CHECK(full_load_node_power(rated, 0, 0.0)->node_w() == 900.0);
  CHECK(full_load_node_power(rated, 0, 0.0)->bound == PowerBound::upper);
  // Without the figures there is no power.
  NodeSpec bare = cpu;
  bare.cpu.tdp_w = 0;
  CHECK_FALSE(full_load_node_power(bare, 0, 0.0));
}
