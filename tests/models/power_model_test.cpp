// The power model of capacity planning (models/power): GPU power between idle and TDP, the node's other
// parts, switches and PUE.
#include <catch2/catch.hpp>

#include "configs/catalog.h"
#include "models/node/node_spec.h"
#include "models/power/power_model.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

NodeSpec shipped_node(const std::string& name) {
  return parse_node_spec(catalog().load("nodes", ConfigNode::make_scalar(name, {}), "node"), name, catalog());
}

SwitchSpec shipped_switch(const std::string& name) {
  return parse_switch_spec(catalog().load("switches", ConfigNode::make_scalar(name, {}), "switch"), name);
}

}  // namespace

TEST_CASE("a GPU draws between idle and TDP by its activity", "[power]") {
  CHECK(gpu_power_w(60, 400, 0) == Approx(60));
  CHECK(gpu_power_w(60, 400, 1) == Approx(400));
  CHECK(gpu_power_w(60, 400, 0.5) == Approx(230));
  CHECK(gpu_power_w(60, 400, 1.5) == Approx(400));  // activity is a share: clamped
  CHECK(gpu_power_w(60, 400, -1) == Approx(60));
}

TEST_CASE("cluster power adds GPUs, the nodes' other parts and switches, times the PUE", "[power]") {
  ClusterPowerInputs in;
  in.nodes = 2, in.gpus_per_node = 8, in.gpu_idle_w = 60, in.gpu_tdp_w = 400, in.node_other_w = 3300;
  in.switches = 3, in.switch_w = 253, in.pue = 1.1;
  const ClusterPower p = cluster_power(in, 0.5);
  CHECK(p.gpus_w == Approx(16 * 230.0));
  CHECK(p.node_other_w == Approx(6600));
  CHECK(p.switches_w == Approx(759));
  CHECK(p.it_w() == Approx(3680 + 6600 + 759));
  CHECK(p.facility_w == Approx((3680 + 6600 + 759) * 1.1));
}

TEST_CASE("power inputs come from the shipped node, GPU and switch specs", "[power]") {
  const NodeSpec dgx = shipped_node("dgx-a100-80gb");
  const SwitchSpec sw = shipped_switch("quantum-qm8700");
  CHECK(sw.ports == 40);
  const ClusterPowerInputs in = power_inputs(dgx, 4, 2, sw, 1.2);
  CHECK(in.gpu_tdp_w == Approx(400));
  CHECK(in.gpu_idle_w > 0);
  CHECK(in.gpu_idle_w < in.gpu_tdp_w);
  CHECK(in.node_other_w == Approx(6500 - 8 * 400));  // datasheet max less the GPUs' TDP
  // At full activity the nodes draw their datasheet maximum.
  const ClusterPower full = cluster_power(in, 1.0);
  CHECK(full.gpus_w + full.node_other_w == Approx(4 * 6500));
  // A node spec without max_power cannot be powered.
  CHECK_THROWS_AS(power_inputs(shipped_node("dgx-1v-16gb"), 1, 1, sw, 1.0), std::invalid_argument);
}
