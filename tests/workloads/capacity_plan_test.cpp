// Capacity planning (workloads/planning): the Pareto front, candidate enumeration, ranking, and the plan
// file's errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/planning/capacity_plan.h"
#include "workloads/planning/pareto.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

// A small GPT on one or two DGX A100s: quick to simulate in full.
const char* kSmallPlan = R"(kind: plan
name: small
workload: {model: gpt, layers: 8, hidden: 1024, heads: 16, seq_len: 1024, vocab: 50257, micro_batch: 1,
           global_batch: 64, precision: bf16, optimizer: adamw}
train: {tokens: 1e9}
hardware:
  nodes: [dgx-a100-80gb]
  node_counts: [1, 2]
  networks: [{network: ib-hdr, switch: quantum-qm8700}]
layouts: {tp: [1, 2, 8], pp: [1, 2, 4], micro_batch: [1, 2], zero: [0, 1, 2]}
pue: 1.2
constraints:
  max_time_to_train: 2400 h
search: {full_simulations: 4}
)";

PlanSpec small_plan(const std::string& extra = "") {
  return parse_plan(parse_config_text(std::string(kSmallPlan) + extra, "plan.yaml"), catalog(), "small");
}

std::string error_of(const std::string& text) {
  try {
    parse_plan(parse_config_text(text, "plan.yaml"), catalog(), "x");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("the Pareto front keeps exactly the non-dominated points", "[plan]") {
  // (time, cost, energy)
  const std::vector<std::vector<double>> points = {
      {10, 100, 5},  // 0: front (fastest)
      {20, 50, 5},   // 1: front (cheaper)
      {20, 60, 6},   // 2: dominated by 1
      {30, 50, 4},   // 3: front (least energy)
      {10, 100, 5},  // 4: equal to 0: kept
      {40, 200, 9},  // 5: dominated by all
  };
  CHECK(pareto_front(points) == std::vector<std::size_t>{0, 1, 3, 4});
  CHECK(dominates({1, 1}, {1, 2}));
  CHECK_FALSE(dominates({1, 1}, {1, 1}));
  CHECK_FALSE(dominates({0, 3}, {1, 2}));
  CHECK(pareto_front({}).empty());
}

TEST_CASE("every screened candidate is a valid layout of the plan's GPUs and batch", "[plan]") {
  const PlanSpec plan = small_plan();
  const PlanResult result = run_capacity_plan(plan, catalog());
  REQUIRE(result.screened() > 10);
  CHECK(result.invalid_layouts > 0);  // e.g. tp 8 x pp 4 on one node, zero 2 with pp > 1
  for (const PlanCandidate& c : result.candidates) {
    const ScreenLayout& l = c.layout;
    CHECK(l.dp * l.tp * l.pp == l.nodes * 8);
    CHECK(l.micro_batch * l.microbatches * l.dp == plan.global_batch);
    CHECK(8 % l.tp == 0);
    CHECK((l.pp == 1 || l.zero < 2));
    CHECK(c.screen.step_s > 0);
  }
  CHECK(result.simulated() == 4);
}

TEST_CASE("candidates are ranked and the front is the simulated non-dominated set", "[plan]") {
  const PlanSpec plan = small_plan();
  const PlanResult result = run_capacity_plan(plan, catalog());
  // Simulated, fitting and meeting the constraints come first, cheapest first.
  bool left_group = false;
  double last_cost = 0;
  for (const PlanCandidate& c : result.candidates) {
    const bool first = c.simulated && c.status == "ok" && c.meets_constraints;
    if (!first) {
      left_group = true;
      continue;
    }
    CHECK_FALSE(left_group);
    CHECK(c.outcome().cost_usd >= last_cost);
    last_cost = c.outcome().cost_usd;
  }
  REQUIRE_FALSE(result.pareto.empty());
  for (std::size_t i : result.pareto) {
    const PlanCandidate& p = result.candidates[i];
    CHECK(p.simulated);
    for (const PlanCandidate& q : result.candidates) {
      if (!q.simulated || q.status != "ok") continue;
      CHECK_FALSE(dominates({q.outcome().time_to_train_s, q.outcome().cost_usd, q.outcome().energy_kwh},
                            {p.outcome().time_to_train_s, p.outcome().cost_usd, p.outcome().energy_kwh}));
    }
  }
}

TEST_CASE("time to train, cost and energy follow from the step time", "[plan]") {
  const PlanSpec plan = small_plan();
  const PlanNode& node = plan.nodes[0];
  const PlanOutcome o = plan_outcome(plan, node, 2, 3, plan.networks[0].network_switch, 0.5, 1.0);
  const double steps = std::ceil(1e9 / 1024.0 / 64.0);
  CHECK(o.time_to_train_s == Approx(steps * 0.5));
  CHECK(o.cost_usd == Approx(2 * node.price.cloud_per_hour * o.time_to_train_s / 3600));
  // At full activity two DGX A100 draw their 6.5 kW maximum each, plus 3 switches, times the PUE.
  CHECK(o.power_kw == Approx((2 * 6.5 + 3 * plan.networks[0].network_switch.power_w / 1000) * 1.2));
  CHECK(o.energy_kwh == Approx(o.power_kw * o.time_to_train_s / 3600));
}

TEST_CASE("a bad constraint is an error at its key that names it", "[plan]") {
  std::string text = kSmallPlan;
  text.replace(text.find("2400 h"), 6, "24 parsecs");
  const std::string e = error_of(text);
  CHECK_THAT(e, Catch::StartsWith("plan.yaml:13:22: ") && Catch::Contains("constraints.max_time_to_train") &&
                    Catch::Contains("parsecs"));
  std::string euros = kSmallPlan;
  euros.replace(euros.find("max_time_to_train: 2400 h"), 25, "budget: 2e6 EUR");
  CHECK_THAT(error_of(euros),
             Catch::Contains("constraints.budget") && Catch::Contains("EUR"));
  CHECK_THAT(error_of("kind: training\n"), Catch::Contains("kind: plan"));
  std::string no_switch = kSmallPlan;
  no_switch.replace(no_switch.find("quantum-qm8700"), 14, "quantum-qm8701");
  CHECK_THAT(error_of(no_switch), Catch::Contains("unknown switch 'quantum-qm8701'"));
}
