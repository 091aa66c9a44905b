// Mixed GPU generations in one synchronous data-parallel job (issue 40 item 4, `mixed_nodes:`): the even
// split runs at the slower generation's homogeneous step; the proportional split lies between the two
// homogeneous throughputs and above the even split; the faster generation's idle share; hostile input at
// its key.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/mixed/mixed_step.h"
#include "workloads/scenario/simulate_scenario.h"

using namespace hpcsim;

namespace {

// A small GPT on 2 DGX A100 + 2 DGX H100 (mixed_nodes appended by the caller), data parallel.
std::string job(const std::string& node = "dgx-a100-80gb", int nodes = 4) {
  return "name: mixed\ncluster:\n  node: " + node + "\n  nodes: " + std::to_string(nodes) +
         "\n  network: ib-hdr\nworkload:\n  model: gpt\n  layers: 4\n  hidden: 1024\n  heads: 16\n  seq_len: 1024\n"
         "  vocab: 50257\n  batch_per_gpu: 4\n  precision: bf16\n  optimizer: adamw\n";
}

TrainingScenario parse(const std::string& text) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return parse_training_scenario(parse_config_text(text, "m.yaml"), catalog, "test");
}

MixedSteps steps(const std::string& text) {
  const TrainingScenario s = parse(text);
  return mixed_steps(s, simulate_scenario(s).result);
}

// The error a text gives, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

const std::string kMixed = "mixed_nodes:\n  node: dgx-h100\n  nodes: 2\n";

}  // namespace

TEST_CASE("mixed nodes: the even split runs at the slower generation's homogeneous step", "[mixed]") {
  const TrainingStepResult a100 = simulate_scenario(parse(job())).result;
  const TrainingStepResult h100 = simulate_scenario(parse(job("dgx-h100"))).result;
  REQUIRE(h100.step_time_s < a100.step_time_s);
  const MixedSteps even = steps(job() + kMixed);
  CHECK(even.split == BatchSplit::even);
  CHECK(even.first.replicas == 16);
  CHECK(even.second.replicas == 16);
  CHECK(even.first.micro_batch == 4);
  CHECK(even.second.micro_batch == 4);
  CHECK(even.first.step_s == a100.step_time_s);
  CHECK(even.second.step_s == Approx(h100.step_time_s).epsilon(1e-12));
  CHECK(even.job_s == a100.step_time_s);
  CHECK(even.global_batch == 4 * 32);
  CHECK(even.samples_per_s == Approx(128 / a100.step_time_s).epsilon(1e-12));
  CHECK(even.idle_fraction == Approx(1 - h100.step_time_s / a100.step_time_s).epsilon(1e-12));
  CHECK(!even.speedup_vs_even);
  // Deterministic.
  CHECK(steps(job() + kMixed).job_s == even.job_s);
}

TEST_CASE("mixed nodes: the proportional split lies between the homogeneous throughputs, above the even split",
          "[mixed]") {
  const TrainingStepResult a100 = simulate_scenario(parse(job())).result;
  const TrainingStepResult h100 = simulate_scenario(parse(job("dgx-h100"))).result;
  const MixedSteps even = steps(job() + kMixed);
  const MixedSteps prop = steps(job() + kMixed + "  batch_split: proportional\n");
  CHECK(prop.split == BatchSplit::proportional);
  CHECK(prop.second.micro_batch > prop.first.micro_batch);
  CHECK(prop.first.microbatches == 1);
  CHECK(prop.second.microbatches == 1);
  CHECK(prop.first.micro_batch >= 1);
  // The global batch as close to the file's 128 as whole micro batches allow (16 replicas a side).
  CHECK(std::abs(static_cast<double>(prop.global_batch) - 128) <= 16);
  CHECK(prop.global_batch == (prop.first.micro_batch + prop.second.micro_batch) * 16);
  CHECK(prop.job_s == std::max(prop.first.step_s, prop.second.step_s));
  CHECK(prop.samples_per_s == Approx(prop.global_batch / prop.job_s).epsilon(1e-12));
  CHECK(prop.samples_per_s > a100.samples_per_s);
  CHECK(prop.samples_per_s < h100.samples_per_s);
  CHECK(prop.samples_per_s > even.samples_per_s);
  REQUIRE(prop.speedup_vs_even);
  CHECK(*prop.speedup_vs_even == Approx(prop.samples_per_s / even.samples_per_s).epsilon(1e-12));
  CHECK(*prop.speedup_vs_even > 1);
  // The compute times come closer: the faster generation idles less than with the even split.
  CHECK(prop.idle_fraction < even.idle_fraction);
  CHECK(prop.idle_fraction == Approx(1 - std::min(prop.first.step_s, prop.second.step_s) / prop.job_s).epsilon(1e-12));
}

TEST_CASE("mixed nodes: with several microbatches the proportional split divides their count", "[mixed]") {
  // Gradient accumulation (8 passes a step): each generation runs its own number of passes at the file's
  // micro batch, so every kernel keeps its shape.
  const std::string accumulation = job() + "parallelism: {microbatches: 8}\n";
  const MixedSteps even = steps(accumulation + kMixed);
  const MixedSteps prop = steps(accumulation + kMixed + "  batch_split: proportional\n");
  CHECK(even.first.microbatches == 8);
  CHECK(even.global_batch == 4 * 8 * 32);
  CHECK(prop.first.micro_batch == 4);
  CHECK(prop.second.micro_batch == 4);
  CHECK(prop.second.microbatches > prop.first.microbatches);
  CHECK(prop.global_batch == 4 * (prop.first.microbatches + prop.second.microbatches) * 16);
  CHECK(std::abs(static_cast<double>(prop.global_batch) - 1024) <= 4 * 16);
  CHECK(prop.samples_per_s > even.samples_per_s);
  CHECK(prop.idle_fraction < even.idle_fraction);
  // The interleaved schedule needs microbatches a multiple of pp: the split keeps them so.
  const MixedSteps interleaved = steps(job() + "parallelism: {pp: 2, vp: 2, microbatches: 8}\n" + kMixed +
                                       "  batch_split: proportional\n");
  CHECK(interleaved.first.microbatches % 2 == 0);
  CHECK(interleaved.second.microbatches % 2 == 0);
  CHECK(interleaved.first.micro_batch == 4);
  CHECK(interleaved.global_batch == 4 * (interleaved.first.microbatches + interleaved.second.microbatches) * 8);
}

TEST_CASE("mixed nodes: bad values are errors at their keys", "[mixed]") {
  const auto at = [](const std::string& text, const std::string& where, const std::string& what) {
    const std::string e = error_of(text);
    INFO(e);
    CHECK(e.find(where) != std::string::npos);
    CHECK(e.find(what) != std::string::npos);
  };
  const std::string head = job() + "mixed_nodes:\n";  // mixed_nodes at line 16, its keys from line 17
  at(head + "  node: dgx-h10\n  nodes: 2\n", "m.yaml:17:9:", "dgx-h10");
  at(head + "  node: dgx-h100\n  nodes: 0\n", "m.yaml:18:10:", "must be >= 1");
  at(head + "  node: dgx-h100\n  nodes: 4\n", "m.yaml:18:10:", "at least one must be cluster.node");
  at(head + "  node: dgx-h100\n  nodes: 5\n", "m.yaml:18:10:", "give 1 to 3");
  at(head + "  node: dgx-h100\n", "m.yaml:17:3:", "missing required key 'nodes'");
  at(head + "  node: dgx-h100\n  nodes: 2\n  batch_split: uneven\n", "m.yaml:19:16:", "uneven");
  at(head + "  node: dgx-h100\n  nodes: 2\n  gpus: 8\n", "m.yaml:19:", "gpus");
  // Fewer GPUs than the job uses per node; a precision the second GPU lacks (a V100 has no bf16 units).
  at(head + "  node: g5-2xlarge\n  nodes: 2\n", "m.yaml:17:9:", "uses 8 per node");
  at(head + "  node: dgx-1v-32gb\n  nodes: 2\n", "m.yaml:17:9:", "no bf16 math units");
  // Replicas of tp x pp = 16 GPUs cannot lie within 1 node of 8 GPUs.
  at(job() + "parallelism: {tp: 8, pp: 2}\nmixed_nodes:\n  node: dgx-h100\n  nodes: 1\n", "m.yaml:19:10:",
     "do not divide into replicas");
  // GPUs left out of the job.
  at(job() + "parallelism: {dp: 16}\nmixed_nodes:\n  node: dgx-h100\n  nodes: 2\n", "m.yaml:16:19:", "idle");
  // Not with stragglers (each takes the step of one node type).
  at(job() + "stragglers: {slow_gpus: 0.01, gpu_clock: 0.8}\n" + kMixed,
     "m.yaml:18:", "not modelled");
  // A well-formed section parses, with tp x pp = 16 replicas on 2 nodes of each type.
  CHECK(error_of(job() + "parallelism: {tp: 8, pp: 2}\n" + kMixed) == "");
}
