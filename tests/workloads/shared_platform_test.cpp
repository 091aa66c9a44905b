// Several jobs on one platform: their data-parallel rings share the links they both cross, and only those.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/platform/platform.h"
#include "sim-core/process.h"
#include "workloads/training/training_step_job.h"
#include "workloads/zoo/zoo.h"

using namespace hpcsim;

namespace {

// Four single-GPU nodes, two per leaf switch; each leaf has one uplink to the spine, as fast as a NIC port.
ClusterConfig two_leaves() {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const std::string yaml =
      "cluster:\n  node: dgx-a100-80gb\n  gpus_per_node: 1\n  nodes: 4\n  network: ib-hdr\n"
      "  topology: {kind: edge-list, switches: [leaf0, leaf1, spine], links: [[leaf0, spine], [leaf1, spine]],\n"
      "             attach: [leaf0, leaf0, leaf1, leaf1]}\n";
  return parse_cluster(parse_config_text(yaml, "two-leaves.yaml").at("cluster"), catalog);
}

TrainingStepConfig data_parallel_run() {
  TrainingStepConfig run;
  run.micro_batch = 64;
  run.layout.dp = 2;
  run.precision = Precision::fp32;
  run.overlap_gradient_reduce = false;  // one all-reduce after backward: its time adds to the step's
  return run;
}

struct Outcome {
  double step_s, allreduce_s;
};

// Runs one step of each job at once on a shared platform, each on its nodes.
std::vector<Outcome> run_together(const Model& model, const std::vector<std::vector<int>>& placements) {
  Platform platform(two_leaves(), Platform::Tenancy::shared);
  const TrainingStepConfig run = data_parallel_run();
  std::vector<std::unique_ptr<TrainingStepJob>> jobs;
  for (std::size_t j = 0; j < placements.size(); ++j) {
    const JobId id = platform.attach("job" + std::to_string(j), placements[j]);
    jobs.push_back(std::make_unique<TrainingStepJob>(platform, id, model, run));
  }
  for (auto& job : jobs) job->start();
  platform.sim().run();
  std::vector<Outcome> out;
  for (auto& job : jobs) {
    REQUIRE(job->finished());
    const TrainingStepReport r = job->report();
    out.push_back({r.result.step_time_s, r.allreduce_time_s});
  }
  return out;
}

}  // namespace

TEST_CASE("Two jobs whose rings cross the same leaf uplinks slow each other by the shared links", "[platform]") {
  const Model model = build_model("resnet50", {}, HPCSIM_SOURCE_CONFIG_DIR);
  // Each job has one GPU under each leaf: its ring crosses leaf0 -> spine -> leaf1 and back.
  const Outcome a_alone = run_together(model, {{0, 2}})[0];
  const Outcome b_alone = run_together(model, {{1, 3}})[0];
  const std::vector<Outcome> shared = run_together(model, {{0, 2}, {1, 3}});
  INFO("alone " << a_alone.allreduce_s << " s, shared " << shared[0].allreduce_s << " s");
  REQUIRE(a_alone.allreduce_s > 1e-3);  // ResNet-50's 100 MB of fp32 gradients: bandwidth-bound
  // Both rings' flows cross each uplink in each direction, where one port's bandwidth is split two ways
  // (each NIC still carries one flow): the all-reduce takes twice as long, less its latency share.
  for (const auto& [job, alone] : {std::pair{shared[0], a_alone}, std::pair{shared[1], b_alone}}) {
    CHECK(job.allreduce_s / alone.allreduce_s == Approx(2.0).epsilon(0.03));
    CHECK(job.allreduce_s / alone.allreduce_s < 2.0);
    // Nothing else is shared: the step grows by exactly the all-reduce's growth.
    CHECK(job.step_s - alone.step_s == Approx(job.allreduce_s - alone.allreduce_s).epsilon(1e-6));
  }
}

TEST_CASE("Two jobs on disjoint switches do not slow each other", "[platform]") {
  const Model model = build_model("resnet50", {}, HPCSIM_SOURCE_CONFIG_DIR);
  const Outcome a_alone = run_together(model, {{0, 1}})[0];
  const Outcome b_alone = run_together(model, {{2, 3}})[0];
  const std::vector<Outcome> both = run_together(model, {{0, 1}, {2, 3}});
  CHECK(both[0].step_s == Approx(a_alone.step_s).epsilon(1e-9));
  CHECK(both[1].step_s == Approx(b_alone.step_s).epsilon(1e-9));
  CHECK(both[0].allreduce_s == Approx(a_alone.allreduce_s).epsilon(1e-9));
}

TEST_CASE("A job alone on a shared platform predicts what a single-job platform does", "[platform]") {
  // The single-tenant platform replays repeated ring steps; the shared one simulates every step.
  const Model model = build_model("resnet50", {}, HPCSIM_SOURCE_CONFIG_DIR);
  const TrainingStepConfig run = data_parallel_run();
  Platform single(two_leaves());
  TrainingStepJob step(single, single.attach("solo", {0, 2}), model, run);
  step.start();
  single.sim().run();
  const Outcome shared = run_together(model, {{0, 2}})[0];
  CHECK(step.report().result.step_time_s == Approx(shared.step_s).epsilon(1e-9));
}

TEST_CASE("A platform checks its jobs' placements", "[platform][errors]") {
  Platform single(two_leaves());
  single.attach("first");
  CHECK_THROWS_WITH(single.attach("second"), Catch::Contains("runs a single job (first)"));
  Platform shared(two_leaves(), Platform::Tenancy::shared);
  const JobId a = shared.attach("a", {0, 2});
  CHECK_THROWS_WITH(shared.attach("b", {1, 2}), Catch::Contains("node 2 is held by job a"));
  CHECK_THROWS_WITH(shared.attach("c", {4}), Catch::Contains("node 4 outside 0..3"));
  CHECK_THROWS_WITH(shared.attach("d", {1, 1}), Catch::Contains("node 1 listed twice"));
  CHECK(shared.placement(a).gpu(1) == 2);
  CHECK(shared.placement(a).job_view().nodes == 2);
  CHECK_FALSE(shared.alone(a));
  shared.detach(a);
  CHECK(shared.running_jobs() == 0);
  CHECK_NOTHROW(shared.attach("b", {1, 2}));
  CHECK_THROWS_WITH(shared.detach(a), Catch::Contains("already detached"));
}

TEST_CASE("A process runs training steps back to back on a platform", "[platform][process]") {
  // A long-lived job as a process: three steps, each started when the previous ends.
  const Model model = build_model("resnet50", {}, HPCSIM_SOURCE_CONFIG_DIR);
  const TrainingStepConfig run = data_parallel_run();
  Platform platform(two_leaves(), Platform::Tenancy::shared);
  const JobId id = platform.attach("looping", {0, 2});
  std::vector<double> ends;
  auto loop = [](Platform& p, JobId job, const Model& m, const TrainingStepConfig& r, std::vector<double>& out) -> Process {
    for (int step = 0; step < 3; ++step) {
      TrainingStepJob one(p, job, m, r);
      one.start();
      co_await graph_finished(one.executor());
      out.push_back(p.sim().now().to_seconds());
    }
  };
  Process process = loop(platform, id, model, run, ends);
  process.start(platform.sim());
  platform.sim().run();
  REQUIRE(ends.size() == 3);
  const double first = ends[0];
  CHECK(ends[1] == Approx(2 * first).epsilon(1e-9));
  CHECK(ends[2] == Approx(3 * first).epsilon(1e-9));
}
