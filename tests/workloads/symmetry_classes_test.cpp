// Issue 17's acceptance: the training step with symmetric data-parallel groups run as one representative
// per class (the default) against every group simulated in full (TrainingStepConfig::exact, `hpcsim run --exact`),
// on configurations of up to 2,048 GPUs: rail-optimized and plain fat trees, an oversubscribed one, a
// crossbar, a dragonfly and a deliberately lopsided edge-list network, under several tp x pp x dp layouts,
// each routed as its network does (InfiniBand: destination-based D-mod-K) and, where that differs, by
// per-flow ECMP hashing (cluster.routing: ecmp).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/training/model_training_step.h"
#include "workloads/scenario/simulate_scenario.h"

using namespace hpcsim;

namespace {

struct Pair {
  TrainingStepReport classes, exact;
  double difference() const {
    return std::abs(classes.result.step_time_s - exact.result.step_time_s) / exact.result.step_time_s;
  }
};

Pair both(const std::string& cluster, const std::string& parallelism, int zero = 1) {
  const std::string yaml = "name: symmetry\ncluster: " + cluster +
                           "\nworkload: {model: gpt, layers: 8, hidden: 1024, heads: 16, seq_len: 512, micro_batch: 1,"
                           " precision: bf16, optimizer: adam, framework: megatron}\n"
                           "parallelism: " + parallelism.substr(0, parallelism.size() - 1) + ", zero: " +
                           std::to_string(zero) + "}\n";
  const TrainingScenario s = parse_training_scenario(parse_config_text(yaml, "symmetry.yaml"), SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR),
                                    "symmetry");
  TrainingStepConfig run = training_step_config(s);
  Pair p;
  p.classes = simulate_training_step(s.workload.built, s.cluster, run);
  run.exact = true;
  p.exact = simulate_training_step(s.workload.built, s.cluster, run);
  return p;
}

}  // namespace

TEST_CASE("Symmetry classes give the full simulation's step exactly on symmetric fabrics", "[symmetry][training]") {
  // ib-ndr and ib-hdr route D-mod-K (by destination); the _ecmp variants hash each flow instead.
  const char* rail3 = "{node: dgx-h100, nodes: 256, network: ib-ndr, topology: {kind: rail-optimized, levels: 3, radix: 64}}";
  const char* rail3_ecmp = "{node: dgx-h100, nodes: 256, network: ib-ndr, routing: ecmp, "
                           "topology: {kind: rail-optimized, levels: 3, radix: 64}}";
  // 2-level, 64 nodes per rail leaf would not fit radix 40's 20 ports: rings of 32 nodes cross leaves.
  const char* rail2 = "{node: dgx-a100-80gb, nodes: 32, network: ib-hdr, topology: {kind: rail-optimized, levels: 2, radix: 40}}";
  const char* rail2_ecmp = "{node: dgx-a100-80gb, nodes: 32, network: ib-hdr, routing: ecmp, "
                           "topology: {kind: rail-optimized, levels: 2, radix: 40}}";
  const char* fat3 = "{node: dgx-h100, nodes: 128, network: ib-ndr, topology: {kind: fat-tree, levels: 3, radix: 32}}";
  const char* crossbar = "{node: dgx-h100, nodes: 16, network: ib-ndr}";
  struct Case {
    const char* cluster;
    const char* parallelism;
    int zero;
    // Whether groups form classes: a stage's ring that crosses leaves goes through spines chosen by ECMP
    // hashing of each GPU pair, which no rail rotation preserves, so those groups are simulated in full;
    // D-mod-K picks spines by the destination's index, which a rail rotation maps onto another rail's.
    bool classes;
  };
  for (const Case& c : {Case{rail3, "{tp: 8, pp: 8, dp: 32, microbatches: 8}", 1, true},
                        Case{rail3, "{tp: 8, pp: 4, dp: 64, microbatches: 8}", 1, true},
                        Case{rail3_ecmp, "{tp: 8, pp: 4, dp: 64, microbatches: 8}", 1, false},
                        Case{rail3, "{tp: 8, pp: 2, dp: 128, microbatches: 4}", 1, true},
                        Case{rail3, "{tp: 4, pp: 2, dp: 256, microbatches: 4}", 0, true},
                        Case{rail3_ecmp, "{tp: 4, pp: 2, dp: 256, microbatches: 4}", 0, true},
                        Case{rail2, "{tp: 8, pp: 2, dp: 16, microbatches: 4}", 1, true},
                        // No classes under either routing: on DGX A100 GPU and NIC pairs share PCIe
                        // switches, and the matcher finds no rail map taking tp rank 0's GPUs onto tp
                        // rank 1's (a limit of the matcher, not of the routing; not investigated further).
                        Case{rail2, "{tp: 2, pp: 1, dp: 128}", 0, false},
                        Case{rail2_ecmp, "{tp: 2, pp: 1, dp: 128}", 0, false},
                        Case{fat3, "{tp: 8, pp: 2, dp: 64, microbatches: 4}", 1, true},
                        // ib-ndr routes by destination and a crossbar is no fat tree: no classes there.
                        Case{crossbar, "{tp: 8, pp: 2, dp: 8, microbatches: 4}", 1, false}}) {
    INFO(c.cluster << " " << c.parallelism << " zero " << c.zero);
    const Pair p = both(c.cluster, c.parallelism, c.zero);
    CHECK(p.classes.result.step_time_s == p.exact.result.step_time_s);
    // Classes put fewer flows on the solver, so fewer completion events. Without them the class-based run
    // still replays ring steps on links no other stage holds (LinkLedger), which --exact never does, so
    // events no longer tell whether classes formed there: only that the run did no more work.
    if (c.classes) {
      CHECK(p.classes.result.events < p.exact.result.events);
    } else {
      CHECK(p.classes.result.events <= p.exact.result.events);
    }
  }
}

TEST_CASE("Symmetry classes stay within 0.5 % of the full simulation on uneven fabrics", "[symmetry][training]") {
  const char* oversubscribed =
      "{node: dgx-a100-80gb, nodes: 64, network: ib-hdr, topology: {kind: fat-tree, levels: 2, radix: 32, oversubscription: 3}}";
  const char* oversubscribed_ecmp =
      "{node: dgx-a100-80gb, nodes: 64, network: ib-hdr, routing: ecmp, "
      "topology: {kind: fat-tree, levels: 2, radix: 32, oversubscription: 3}}";
  const char* dragonfly =
      "{node: dgx-h100, nodes: 72, network: ib-ndr, topology: {kind: dragonfly, groups: 9, routers_per_group: 4, "
      "nodes_per_router: 2, global_links_per_router: 2}}";
  const char* dragonfly_ecmp =
      "{node: dgx-h100, nodes: 72, network: ib-ndr, routing: ecmp, topology: {kind: dragonfly, groups: 9, "
      "routers_per_group: 4, nodes_per_router: 2, global_links_per_router: 2}}";
  const char* part_filled =
      "{node: dgx-h100, nodes: 64, network: ib-hdr, topology: {kind: fat-tree, levels: 2, radix: 40}}";
  // Three switches in a line, nodes crowded on the first: groups of different tp ranks meet different loads.
  const char* lopsided =
      "{node: dgx-h100, nodes: 8, network: ib-ndr, topology: {kind: edge-list, switches: [a, b, c], "
      "links: [[a, b], [b, c]], attach: [a, a, a, a, a, b, c, c]}}";
  struct Case {
    const char* cluster;
    const char* parallelism;
  };
  double worst = 0;
  for (const Case& c : {Case{oversubscribed, "{tp: 8, pp: 2, dp: 32, microbatches: 4}"},
                        Case{oversubscribed_ecmp, "{tp: 8, pp: 2, dp: 32, microbatches: 4}"},
                        Case{oversubscribed, "{tp: 4, pp: 4, dp: 32, microbatches: 8}"},
                        Case{oversubscribed_ecmp, "{tp: 4, pp: 4, dp: 32, microbatches: 8}"},
                        // Dragonflies simulate every group (symmetry_classes refuses them): both answers agree.
                        Case{dragonfly_ecmp, "{tp: 8, pp: 4, dp: 18, microbatches: 8}"},
                        // The capacity-plan example's HDR case: 512 NICs on 40-port switches (20 down per
                        // leaf) leave the last leaf part-filled; the class-based step is 0.0023 % off.
                        Case{part_filled, "{tp: 4, pp: 16, dp: 8, microbatches: 8}"},
                        Case{lopsided, "{tp: 8, pp: 2, dp: 4, microbatches: 4}"},
                        Case{lopsided, "{tp: 2, pp: 1, dp: 32}"}}) {
    INFO(c.cluster << " " << c.parallelism);
    const Pair p = both(c.cluster, c.parallelism);
    CHECK(p.difference() <= 0.005);
    worst = std::max(worst, p.difference());
  }
  WARN("largest class-vs-full step-time difference on uneven fabrics: " << worst);
}

// On this dragonfly routed by destination (ib-ndr's d-mod-k) classes used to form and the class-based step
// was 3.1 % off the full one; the cause is not found, so symmetry_classes refuses destination-routed fabrics
// that are not trees and the run simulates every group: the two answers must agree again.
TEST_CASE("Symmetry classes on a destination-routed dragonfly fall back to full simulation", "[symmetry][training]") {
  const Pair p = both("{node: dgx-h100, nodes: 72, network: ib-ndr, topology: {kind: dragonfly, groups: 9, "
                      "routers_per_group: 4, nodes_per_router: 2, global_links_per_router: 2}}",
                      "{tp: 8, pp: 4, dp: 18, microbatches: 8}");
  WARN("dragonfly, d-mod-k: class-vs-full step-time difference " << p.difference());
  CHECK(p.difference() <= 0.005);
}

TEST_CASE("A step's progress hears its ops finish, up to all of them, and moves no answer", "[symmetry][training]") {
  const std::string yaml = "name: progress\ncluster: {node: dgx-h100, nodes: 16, network: ib-ndr}\n"
                           "workload: {model: gpt, layers: 8, hidden: 1024, heads: 16, seq_len: 512, micro_batch: 1,"
                           " precision: bf16, optimizer: adam, framework: megatron}\n"
                           "parallelism: {tp: 8, pp: 2, dp: 8, microbatches: 16}\n";
  const TrainingScenario s = parse_training_scenario(parse_config_text(yaml, "progress.yaml"), SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR),
                                                     "progress");
  TrainingStepConfig run = training_step_config(s);
  run.exact = true;
  std::size_t calls = 0, last_done = 0, total = 0;
  bool rising = true;
  const TrainingStepReport heard = simulate_training_step(s.workload.built, s.cluster, run, [&](std::size_t done, std::size_t of) {
    rising = rising && done >= last_done && done <= of;
    last_done = done, total = of, ++calls;
  });
  const TrainingStepReport quiet = simulate_training_step(s.workload.built, s.cluster, run);
  CHECK(calls >= 1);
  CHECK(calls == heard.result.events / 256);
  CHECK(rising);
  CHECK(total > 0);
  CHECK(heard.result.step_time_s == quiet.result.step_time_s);
  CHECK(heard.result.events == quiet.result.events);
}
