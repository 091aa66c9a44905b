// Training jobs in a batch queue: run times from the training model on the nodes they get.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/scheduling/node_leaves.h"
#include "workloads/scheduling/placement_shape.h"
#include "workloads/scheduling/training_job.h"
#include "workloads/scheduling/training_job_timer.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

ClusterConfig cluster(const std::string& body) {
  return parse_cluster(parse_config_text("cluster:\n" + body, "cluster.yaml").at("cluster"), catalog());
}

// Four DGX A100 nodes (8 GPUs, 8 HDR NIC ports each), two under each leaf of a 2-level fat tree whose
// radix-20 leaves split their ports 16 down : 4 up, so a ring between the leaves gets a quarter of the
// nodes' NIC bandwidth.
ClusterConfig oversubscribed(const std::string& network = "ib-hdr") {
  return cluster("  node: dgx-a100-80gb\n  nodes: 4\n  network: " + network +
                 "\n  topology: {kind: fat-tree, levels: 2, radix: 20, oversubscription: 4}\n");
}

// A 1.3B-parameter GPT (the quickstart's shape) on short sequences, one sample per GPU, trained with SGD
// and one all-reduce after backward: 2.6 GB of bf16 gradients against a few milliseconds of compute, so
// the step is mostly communication. (On one GPU per node the GPU's own PCIe link, not the network, would
// bound the all-reduce.)
const char* kGptJob =
    "workload: {model: gpt, layers: 24, hidden: 2048, heads: 16, seq_len: 128, vocab: 50257, batch_per_gpu: 1,\n"
    "           precision: bf16, optimizer: sgd, overlap_gradient_reduce: false}\n"
    "steps: 100\n";

std::vector<TrainingJobSpec> specs(const std::string& training, int nodes) {
  return {parse_training_job(parse_config_text(training, "jobs.yaml"), nodes)};
}

}  // namespace

TEST_CASE("Node leaves follow the topology's first NIC port of each node", "[trainjobs]") {
  CHECK(node_leaves(oversubscribed()) == std::vector<int>{0, 0, 1, 1});
  const ClusterConfig crossbar = cluster("  node: dgx-a100-80gb\n  nodes: 3\n  network: ib-hdr\n");
  CHECK(node_leaves(crossbar) == std::vector<int>{0, 0, 0});
  const PlacementShapes shapes(oversubscribed());
  CHECK(shapes.node_leaf() == node_leaves(oversubscribed()));
  CHECK(shapes.symmetric());
}

TEST_CASE("Placement shapes rank a job leaf by leaf, fullest first", "[trainjobs]") {
  // Eight nodes, three per leaf (radix 32 at 3:1 gives 24 ports down = 3 nodes): leaves 0, 0, 0, 1, 1, 1, 2, 2.
  const PlacementShapes shapes(cluster("  node: dgx-a100-80gb\n  gpus_per_node: 1\n  nodes: 8\n  network: ib-hdr\n"
                                       "  topology: {kind: fat-tree, levels: 2, radix: 32, oversubscription: 3}\n"));
  CHECK(shapes.node_leaf() == std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2});
  REQUIRE(shapes.symmetric());
  CHECK(shapes.rank_order({7, 0, 4, 5}) == std::vector<int>{4, 5, 0, 7});  // leaf 1 holds two
  CHECK(shapes.key({7, 0, 4, 5}) == std::vector<int>{2, 1, 1});
  CHECK(shapes.key({1, 3, 2, 6}) == std::vector<int>{2, 1, 1});
  CHECK(shapes.timed_nodes({2, 1, 1}) == std::vector<int>{0, 1, 3, 6});
  CHECK(shapes.compact(2) == std::vector<int>{6, 7});        // best fit: the smallest leaf that holds it
  CHECK(shapes.compact(3) == std::vector<int>{0, 1, 2});
  CHECK(shapes.compact(5) == std::vector<int>{0, 1, 2, 3, 4});
  CHECK_THROWS_WITH(shapes.key({1, 1}), Catch::Contains("listed twice"));
  CHECK_THROWS_WITH(shapes.key({8}), Catch::Contains("outside 0..7"));
}

TEST_CASE("A job across oversubscribed leaves runs slower than the same job under one leaf", "[trainjobs]") {
  TrainingJobTimer timer(oversubscribed(), catalog(), specs(kGptJob, 2));
  const double one_leaf = timer.run_s(0, {0, 1});
  const double two_leaves = timer.run_s(0, {1, 2});
  INFO("one leaf " << one_leaf << " s, two leaves " << two_leaves << " s");
  CHECK(two_leaves > 1.2 * one_leaf);
  CHECK(timer.estimate_s(0) == one_leaf);  // the compact placement is under one leaf
  CHECK(timer.run_s(0, {0, 1}) == 100 * timer.step_s(0, {0, 1}));
}

TEST_CASE("The placement memo returns one time per shape and simulates each shape once", "[trainjobs]") {
  TrainingJobTimer timer(oversubscribed(), catalog(), specs(kGptJob, 2));
  const int first = timer.simulations();  // the compact placement, timed when the job is read
  CHECK(first == 1);
  const double a = timer.run_s(0, {0, 2});
  CHECK(timer.simulations() == first + 1);
  CHECK(timer.run_s(0, {1, 3}) == a);
  CHECK(timer.run_s(0, {3, 0}) == a);
  CHECK(timer.run_s(0, {2, 3}) == timer.run_s(0, {0, 1}));
  CHECK(timer.run_s(0, {0, 1}) != a);
  CHECK(timer.simulations() == first + 1);
  CHECK_THROWS_WITH(timer.run_s(0, {0, 1, 2}), Catch::Contains("asks for 2 nodes, given 3"));
  CHECK_THROWS_WITH(timer.run_s(1, {0, 1}), Catch::Contains("kind 1 outside 0..0"));
}

TEST_CASE("Identical training jobs share their simulations", "[trainjobs]") {
  std::vector<TrainingJobSpec> jobs = specs(kGptJob, 2);
  jobs.push_back(jobs[0]);
  jobs[1].steps = 300;
  TrainingJobTimer timer(oversubscribed(), catalog(), jobs);
  CHECK(timer.simulations() == 1);
  CHECK(timer.run_s(1, {0, 2}) == Approx(3 * timer.run_s(0, {1, 3})).epsilon(1e-12));
  CHECK(timer.simulations() == 2);
}

TEST_CASE("Without a symmetric topology the memo keys on the exact nodes", "[trainjobs]") {
  // An edge list: leaf1 hangs off leaf0, so leaves are not interchangeable.
  const ClusterConfig chain = cluster(
      "  node: dgx-a100-80gb\n  nodes: 4\n  network: ib-hdr\n"
      "  topology: {kind: edge-list, switches: [leaf0, leaf1, leaf2], links: [[leaf0, leaf1], [leaf1, leaf2]],\n"
      "             attach: [leaf0, leaf0, leaf1, leaf2]}\n");
  TrainingJobTimer timer(chain, catalog(), specs(kGptJob, 2));
  REQUIRE_FALSE(timer.shapes().symmetric());
  CHECK(timer.shapes().key({3, 1}) == std::vector<int>{1, 3});
  const int before = timer.simulations();
  const double near = timer.run_s(0, {1, 2});  // one hop
  const double far = timer.run_s(0, {1, 3});   // two hops
  CHECK(timer.simulations() == before + 2);
  CHECK(far > near);
}

TEST_CASE("Ethernet gives a communication-heavy job a longer run time than InfiniBand", "[trainjobs]") {
  TrainingJobTimer ib(oversubscribed("ib-hdr"), catalog(), specs(kGptJob, 2));
  TrainingJobTimer eth(oversubscribed("eth-100g-tcp"), catalog(), specs(kGptJob, 2));
  INFO("ib " << ib.estimate_s(0) << " s, eth " << eth.estimate_s(0) << " s");
  CHECK(eth.estimate_s(0) > 1.2 * ib.estimate_s(0));
  CHECK(eth.run_s(0, {0, 3}) > ib.run_s(0, {0, 3}));
}

TEST_CASE("Bad training jobs are ConfigErrors at their place", "[trainjobs][errors]") {
  const auto error_of = [](const std::string& training, int nodes) -> std::string {
    try {
      TrainingJobTimer timer(oversubscribed(), catalog(), specs(training, nodes));
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string workload = "workload: {model: resnet50, batch_per_gpu: 32, precision: fp32, optimizer: momentum}\n";
  CHECK_THAT(error_of(workload, 1), Catch::Contains("jobs.yaml") && Catch::Contains("steps"));
  CHECK_THAT(error_of("workload: {model: resnet50, batch_per_gpu: 32, precision: fp32, optimizer: momentum, steps: 5}\nsteps: 5\n", 1),
             Catch::Contains("jobs.yaml:1:") && Catch::Contains("beside its workload"));
  CHECK_THAT(error_of(workload + "steps: 5\nwall: 1 h\n", 1), Catch::Contains("jobs.yaml:3:1") && Catch::Contains("wall"));
  CHECK_THAT(error_of("workload: {model: resnet5, batch_per_gpu: 32, precision: fp32, optimizer: momentum}\nsteps: 5\n", 1),
             Catch::Contains("jobs.yaml:1:") && Catch::Contains("resnet50"));
  CHECK_THAT(error_of(workload + "steps: 5\n", 5), Catch::Contains("jobs.yaml:1:1") && Catch::Contains("asks for 5 nodes; the cluster has 4"));
  CHECK_THAT(error_of(workload + "parallelism: {tp: 3}\nsteps: 5\n", 2),
             Catch::Contains("jobs.yaml:2:") && Catch::Contains("tp x pp x cp"));
  // 175 billion parameters on two 80 GB GPUs.
  CHECK_THAT(error_of("workload: {model: gpt3-175b, batch_per_gpu: 1, precision: bf16, optimizer: adamw}\nsteps: 5\n", 2),
             Catch::Contains("jobs.yaml:1:11") && Catch::Contains("does not fit in GPU memory"));
}

TEST_CASE("A queue of training jobs runs them for their predicted times on the nodes it gives them", "[trainjobs]") {
  // Three 2-node jobs on the 4-node cluster, submitted together: two start at once (one per leaf: best
  // fit), the third follows the first to end. On Ethernet every run is longer, and so is the makespan.
  std::vector<TrainingJobSpec> training = specs(kGptJob, 2);
  training.push_back(training[0]);
  training.push_back(training[0]);
  std::vector<BatchJob> jobs(3);
  for (int i = 0; i < 3; ++i) jobs[i].id = i + 1, jobs[i].nodes = 2, jobs[i].kind = i, jobs[i].estimate_s = 1e6;
  const auto makespan = [&](const std::string& network) {
    const ClusterConfig c = oversubscribed(network);
    TrainingJobTimer timer(c, catalog(), training);
    QueueSetup setup;
    setup.nodes = c.nodes;
    setup.node_leaf = timer.node_leaf();
    const std::vector<QueueRun> runs = simulate_batch_queue(jobs, setup, QueuePolicy::easy, timer.hook());
    REQUIRE(runs.size() == 3);
    for (const QueueRun& r : runs) {
      CHECK(r.scheduled.run_s == timer.run_s(r.scheduled.job.kind, r.node_ids));
      CHECK(timer.shapes().key(r.node_ids) == std::vector<int>{2});  // each under one leaf
    }
    CHECK(runs[2].scheduled.start_s == Approx(runs[0].scheduled.end_s).epsilon(1e-9));
    return runs[2].scheduled.end_s;
  };
  const double ib = makespan("ib-hdr"), eth = makespan("eth-100g-tcp");
  INFO("makespan ib " << ib << " s, eth " << eth << " s");
  CHECK(eth > ib);
}
