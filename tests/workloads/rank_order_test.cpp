// Megatron's rank orders: tp, cp, dp, pp by default; tp, cp, pp, dp with --use-tp-pp-dp-mapping
// (parallelism.tp_pp_dp_mapping), which keeps one model replica's stages on adjacent GPUs.
#include <catch2/catch.hpp>

#include <set>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "workloads/scenario/simulate_scenario.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/training/parallel_layout.h"

using namespace hpcsim;

TEST_CASE("The rank order puts a replica's stages together or its data-parallel peers", "[training][layout]") {
  ParallelLayout l;
  l.tp = 2, l.cp = 2, l.pp = 4, l.dp = 3;
  CHECK(l.gpu(1, 0, 0, 0) == 2 * 2 * 3);  // default: stage 1 after every replica of stage 0
  CHECK(l.gpu(0, 1, 0, 0) == 2 * 2);
  l.tp_pp_dp = true;
  CHECK(l.gpu(1, 0, 0, 0) == 2 * 2);      // stage 1 right after stage 0 of the same replica
  CHECK(l.gpu(0, 1, 0, 0) == 2 * 2 * 4);
  std::set<int> gpus;  // still a permutation of all GPUs
  for (int s = 0; s < l.pp; ++s)
    for (int d = 0; d < l.dp; ++d)
      for (int r = 0; r < l.tp; ++r)
        for (int c = 0; c < l.cp; ++c) gpus.insert(l.gpu(s, d, r, c));
  CHECK(static_cast<int>(gpus.size()) == l.gpus());
  CHECK(*gpus.rbegin() == l.gpus() - 1);
}

TEST_CASE("parallelism.tp_pp_dp_mapping reaches the simulated step", "[training][layout]") {
  // Two 8-GPU nodes, tp 4 x pp 2 x dp 2: by default stage 0's replicas fill node 0 and the pipeline's
  // sends cross the network; with the mapping each node holds one replica and they stay on NVLink.
  const auto step = [](bool mapping) {
    const std::string yaml = std::string("name: order\ncluster: {node: dgx-h100, nodes: 2, network: ib-ndr}\n") +
                             "workload: {model: gpt, layers: 8, hidden: 2048, heads: 16, seq_len: 1024, micro_batch: 1,"
                             " global_batch: 16, precision: bf16, optimizer: adam, framework: megatron}\n"
                             "parallelism: {tp: 4, pp: 2, dp: 2, tp_pp_dp_mapping: " + (mapping ? "true" : "false") + "}\n";
    const TrainingScenario s = parse_training_scenario(parse_config_text(yaml, "order.yaml"),
                                                       SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR), "order");
    CHECK(s.parallelism.layout.tp_pp_dp == mapping);
    return simulate_scenario(s).result.step_time_s;
  };
  CHECK(step(true) != step(false));
}
