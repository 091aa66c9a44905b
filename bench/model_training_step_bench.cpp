// Wall time and peak memory of simulating one training step of a zoo model: data parallel at 8 to
// 4,096 A100 GPUs, and the example scenarios (GPT-3 175B on 1,024 A100 with tp 8 x pp 16 x dp 8, ResNet-50
// on 4,096 A100) exactly as `hpcsim run` simulates them; plus the single-node ResNet-50 figures the
// DeepLearningExamples README publishes, printed beside the prediction for a first look (the
// validation test owns the real comparison).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "workloads/scenario/simulate_scenario.h"
#include "workloads/training/model_training_step.h"
#include "workloads/zoo/zoo.h"

using namespace hpcsim;

namespace {

ClusterConfig cluster(int nodes, int gpus_per_node, const std::string& network) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const std::string yaml = "cluster:\n  node: dgx-a100-80gb\n  nodes: " + std::to_string(nodes) +
                           "\n  gpus_per_node: " + std::to_string(gpus_per_node) + "\n  network: " + network + "\n";
  return parse_cluster(parse_config_text(yaml, "bench.yaml").at("cluster"), catalog);
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

void run(const char* label, const Model& model, const ClusterConfig& c, const TrainingStepConfig& config) {
  const auto t0 = std::chrono::steady_clock::now();
  const TrainingStepReport rep = simulate_training_step(model, c, config);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-44s gpus %5d  step %.4f s  %10.0f samples/s  MFU %.3f  exposed comm %.4f s of %.4f s  "
              "events %llu  wall %.3f s  peak RSS %.0f MiB",
              label, rep.result.gpus, rep.result.step_time_s, rep.result.samples_per_s, rep.result.mfu,
              rep.result.breakdown.communication_exposed, rep.allreduce_time_s,
              static_cast<unsigned long long>(rep.result.events), wall, peak_rss_mib());
  std::printf("\n");
}

void run_example(const char* file) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const std::string path = std::string(HPCSIM_SOURCE_CONFIG_DIR) + "/../examples/" + file;
  const auto t0 = std::chrono::steady_clock::now();
  const TrainingScenario s = parse_training_scenario(load_config(path, {}), catalog, file);
  const TrainingStepReport rep = simulate_scenario(s);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-44s gpus %5d  step %.4f s  %10.0f samples/s  MFU %.3f  bubble %.3f  events %llu  "
              "wall %.3f s (parse + simulate)  peak RSS %.0f MiB\n",
              file, rep.result.gpus, rep.result.step_time_s, rep.result.samples_per_s, rep.result.mfu,
              rep.pipeline_bubble_fraction, static_cast<unsigned long long>(rep.result.events), wall, peak_rss_mib());
}

}  // namespace

int main() {
  run_example("gpt3-175b-1024-a100.yaml");
  run_example("resnet50-4096-a100.yaml");
  const Model rn50 = build_model("resnet50", {}, HPCSIM_SOURCE_CONFIG_DIR);
  TrainingStepConfig amp;  // plain data parallelism over every GPU (layout.dp 0)
  amp.micro_batch = 256;
  amp.precision = Precision::fp16;
  amp.optimizer = OptimizerKind::momentum;
  TrainingStepConfig tf32 = amp;
  tf32.precision = Precision::tf32;
  // Kernel-level steps only (NHWC, no host dispatch, no input pipeline): speed of the step engine, not a
  // prediction of a published run; `hpcsim validate` compares published runs as configured.
  run("resnet50 tf32 b256 1xA100", rn50, cluster(1, 1, "ib-hdr"), tf32);
  run("resnet50 amp b256 1xA100", rn50, cluster(1, 1, "ib-hdr"), amp);
  run("resnet50 tf32 b256 8xA100", rn50, cluster(1, 8, "ib-hdr"), tf32);
  run("resnet50 amp b256 8xA100", rn50, cluster(1, 8, "ib-hdr"), amp);
  for (const char* net : {"ib-hdr", "eth-100g-tcp"}) {
    for (int nodes : {8, 64, 512}) {
      run(("resnet50 amp b256 " + std::to_string(nodes) + " DGX A100 " + net).c_str(), rn50, cluster(nodes, 8, net), amp);
    }
  }
  return 0;
}
