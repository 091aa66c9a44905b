// Mixed partitions: a batch queue over a machine whose partitions hold different node types
// (partitions[].node), each partition's training jobs timed on its own node type.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/scheduling/job_list.h"
#include "workloads/scheduling/node_leaves.h"
#include "workloads/scheduling/partition_nodes.h"
#include "workloads/scheduling/partition_training_timers.h"
#include "workloads/scheduling/training_job_timer.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

ClusterConfig cluster(const std::string& node, const std::string& topology = "") {
  const std::string text = "cluster:\n  node: " + node + "\n  nodes: 4\n  network: ib-hdr\n" + topology;
  return parse_cluster(parse_config_text(text, "cluster.yaml").at("cluster"), catalog());
}

// Four nodes, two under each leaf of a 2-level fat tree (as training_jobs_test.cpp's).
const char* kFatTree = "  topology: {kind: fat-tree, levels: 2, radix: 20, oversubscription: 4}\n";

JobList jobs(const std::string& text) { return parse_job_list(parse_config_text(text, "jobs.yaml")); }

// The same 1.3B-parameter GPT job (training_jobs_test.cpp's kGptJob) in each partition.
const char* kGpt =
    "training: {workload: {model: gpt, layers: 24, hidden: 2048, heads: 16, seq_len: 128, vocab: 50257,\n"
    "           batch_per_gpu: 1, precision: bf16, optimizer: sgd, overlap_gradient_reduce: false}, steps: 100}";

const std::string kMixed = std::string("partitions:\n  - {name: a100, nodes: 2}\n  - {name: h100, nodes: 2, node: dgx-h100}\n") +
                           "jobs:\n  - {id: 1, submit: 0 s, nodes: 2, partition: a100, " + kGpt +
                           "}\n  - {id: 2, submit: 0 s, nodes: 2, partition: h100, " + kGpt + "}\n";

std::vector<int> training_partitions(const JobList& list) {
  std::vector<int> out(list.training.size());
  for (const BatchJob& j : list.jobs) {
    if (j.kind >= 0) out[static_cast<std::size_t>(j.kind)] = j.partition;
  }
  return out;
}

}  // namespace

TEST_CASE("A partition's nodes are its node type on the cluster's layout", "[mixed-partitions]") {
  const ClusterConfig a100 = cluster("dgx-a100-80gb", kFatTree);
  const JobList list = jobs(kMixed);
  const std::vector<ClusterConfig> clusters = partition_clusters(list, a100, node_leaves(a100), catalog());
  REQUIRE(clusters.size() == 2);
  CHECK(clusters[0].node.name == "dgx-a100-80gb");
  CHECK(clusters[1].node.name == "dgx-h100");
  CHECK(clusters[1].nodes == 4);  // the whole machine: node ids are the machine's
  CHECK(clusters[1].gpus_per_node == 8);
  CHECK(node_leaves(clusters[1]) == node_leaves(a100));
  // Without a partitions table: the cluster itself.
  const JobList plain = jobs("jobs:\n  - {submit: 0 s, nodes: 1, run: 1 h}\n");
  REQUIRE(partition_clusters(plain, a100, node_leaves(a100), catalog()).size() == 1);
}

TEST_CASE("The same training job runs shorter in an H100 partition than in an A100 one", "[mixed-partitions]") {
  const ClusterConfig a100 = cluster("dgx-a100-80gb", kFatTree);
  const JobList list = jobs(kMixed);
  const std::vector<ClusterConfig> clusters = partition_clusters(list, a100, node_leaves(a100), catalog());
  PartitionTrainingTimers timers(clusters, catalog(), list.training, training_partitions(list));
  CHECK(timers.timers() == 2);
  const double on_a100 = timers.run_s(0, {0, 1});
  const double on_h100 = timers.run_s(1, {2, 3});
  INFO("a100 " << on_a100 << " s, h100 " << on_h100 << " s");
  CHECK(on_h100 < 0.9 * on_a100);
  // Each matches a timer on a cluster of that node type alone, on the same nodes.
  const std::vector<TrainingJobSpec> one{list.training[0]};
  TrainingJobTimer all_a100(a100, catalog(), one);
  TrainingJobTimer all_h100(cluster("dgx-h100", kFatTree), catalog(), one);
  CHECK(on_a100 == all_a100.run_s(0, {0, 1}));
  CHECK(on_h100 == all_h100.run_s(0, {2, 3}));
  CHECK(timers.estimate_s(1) == all_h100.estimate_s(0));

  // Through the queue: each job runs its partition's prediction on the nodes it got.
  QueueSetup setup = resolve_queue_setup(queue_setup(list, a100.nodes, node_leaves(a100)));
  std::vector<BatchJob> queued = list.jobs;
  for (BatchJob& j : queued) j.estimate_s = 1e6;
  const std::vector<QueueRun> runs = simulate_batch_queue(queued, setup, QueuePolicy::easy, timers.hook());
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].node_ids == std::vector<int>{0, 1});
  CHECK(runs[1].node_ids == std::vector<int>{2, 3});
  CHECK(runs[0].scheduled.run_s == on_a100);
  CHECK(runs[1].scheduled.run_s == on_h100);
}

TEST_CASE("GPU and memory requests use the partition's node type", "[mixed-partitions]") {
  // A crossbar, so any NIC count keeps the one leaf layout.
  const ClusterConfig a100 = cluster("dgx-a100-80gb");
  const JobList list = jobs(
      "partitions:\n  - {name: a100, nodes: 2}\n  - {name: v100, nodes: 1, node: dgx-2}\n"
      "  - {name: cpu, nodes: 1, node: epyc-7763-2s}\n"
      "jobs:\n  - {submit: 0 s, gpus: 24, run: 1 h, partition: a100}\n  - {submit: 0 s, gpus: 24, run: 1 h, partition: v100}\n"
      "  - {submit: 0 s, gpus: 1, run: 1 h, partition: cpu}\n  - {submit: 0 s, nodes: 1, memory: 1 TiB, run: 1 h, partition: cpu}\n");
  const std::vector<ClusterConfig> clusters = partition_clusters(list, a100, node_leaves(a100), catalog());
  const auto fit = [&](std::size_t i, int& nodes) {
    BatchJob job = list.jobs[i];
    const std::string why = fit_to_nodes(job, machine_nodes(clusters[static_cast<std::size_t>(job.partition)]));
    nodes = job.nodes;
    return why;
  };
  int nodes = 0;
  CHECK(fit(0, nodes).empty());
  CHECK(nodes == 3);  // 8 A100s per node
  CHECK(fit(1, nodes).empty());
  CHECK(nodes == 2);  // 16 V100s per DGX-2
  CHECK(fit(2, nodes) == "asks for GPUs; a epyc-7763-2s has none");
  CHECK_THAT(fit(3, nodes), Catch::Contains("per node; a node has 256 GB"));  // the EPYC node's, not the DGX's 2 TiB
  // A training job in the CPU partition is an error at the job.
  const JobList trains = jobs(std::string("partitions:\n  - {name: a100, nodes: 3}\n  - {name: cpu, nodes: 1, node: epyc-7763-2s}\n") +
                              "jobs:\n  - {submit: 0 s, nodes: 1, partition: cpu, " + kGpt + "}\n");
  const std::vector<ClusterConfig> cpu = partition_clusters(trains, a100, node_leaves(a100), catalog());
  CHECK_THROWS_WITH(PartitionTrainingTimers(cpu, catalog(), trains.training, training_partitions(trains)),
                    Catch::Contains("jobs.yaml:5:") && Catch::Contains("a epyc-7763-2s has no GPUs to train on"));
}

TEST_CASE("Bad partition node types are ConfigErrors at their key", "[mixed-partitions][errors]") {
  const ClusterConfig a100 = cluster("dgx-a100-80gb", kFatTree);
  const auto error_of = [&](const std::string& partitions) -> std::string {
    try {
      const JobList list = jobs("partitions:\n" + partitions + "jobs:\n  - {submit: 0 s, nodes: 1, run: 1 h}\n");
      partition_clusters(list, a100, node_leaves(a100), catalog());
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK_THAT(error_of("  - {name: a, nodes: 2}\n  - {name: b, nodes: 2, node: dgx-h1000}\n"),
             Catch::Contains("jobs.yaml:3:31") && Catch::Contains("dgx-h1000"));
  // A DGX-1 has 4 NIC ports, so under this fat tree its nodes would sit under other leaves.
  CHECK_THAT(error_of("  - {name: a, nodes: 2}\n  - {name: b, nodes: 2, node: dgx-1v-32gb}\n"),
             Catch::Contains("jobs.yaml:3:31") && Catch::Contains("another leaf switch"));
  CHECK_THAT(error_of("  - {name: a, nodes: 2, node: [dgx-h100]}\n"), Catch::Contains("jobs.yaml:2:"));
  // With --nodes N the machine's nodes have no type.
  const JobList list = jobs(kMixed);
  CHECK_THROWS_WITH(refuse_partition_nodes(list), Catch::Contains("jobs.yaml:3:34") && Catch::Contains("--cluster"));
  // A model too large for the partition's GPUs is an error at the job, as on one node type.
  const JobList big = jobs(
      "partitions:\n  - {name: a, nodes: 2}\n  - {name: b, nodes: 2, node: dgx-h100}\n"
      "jobs:\n  - {submit: 0 s, nodes: 2, partition: b,\n     training: {workload: {model: gpt3-175b, batch_per_gpu: 1, precision: bf16, optimizer: adamw}, steps: 5}}\n");
  const std::vector<ClusterConfig> clusters = partition_clusters(big, a100, node_leaves(a100), catalog());
  CHECK_THROWS_WITH(PartitionTrainingTimers(clusters, catalog(), big.training, training_partitions(big)),
                    Catch::Contains("jobs.yaml:6:") && Catch::Contains("does not fit in GPU memory") &&
                        Catch::Contains("h100-sxm5-80gb"));
}
