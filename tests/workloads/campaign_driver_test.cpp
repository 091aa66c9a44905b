// The campaign driver on the batch queue: the array throttle, determinism, ASHA against running every
// trial to the full budget, cluster size, and a trial's step time from the training model.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "workloads/campaign/campaign.h"
#include "workloads/campaign/trial_step_time.h"

using namespace hpcsim;

namespace {

const char* kCampaign = R"(name: driver
cluster: {node: dgx-a100-80gb, nodes: 8, network: ib-hdr}
trial:
  nodes: 1
  workload: {model: resnet50, batch_per_gpu: 64, precision: bf16, optimizer: sgd}
search:
  method: random
  trials: 27
  seed: 11
  space:
    lr: {log_uniform: [1.0e-4, 1.0e-1], optimum: 3.0e-3}
    workload.batch_per_gpu: {choice: [64, 128]}
  budget: {min_steps: 100, max_steps: 2700, eta: 3}
  early_stopping: asha
  max_concurrent: 4
)";

CampaignSpec spec_with(const std::string& from = {}, const std::string& to = {}) {
  std::string text = kCampaign;
  if (!from.empty()) {
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  return parse_campaign(parse_config_text(text, "campaign.yaml"), SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR), "driver");
}

// A stand-in for the training model: a trial with batch 128 takes twice as long per step.
TrialStepTime fake_step_time(const CampaignSpec& spec) {
  return [&spec](std::int64_t trial, const std::vector<int>&) {
    return spec.trials[static_cast<std::size_t>(trial)][1].text == "128" ? 0.2 : 0.1;
  };
}

double gpu_hours(const CampaignSpec& spec, const CampaignResult& r) {
  double node_s = 0;
  for (const CampaignJob& j : r.jobs) node_s += (j.run.scheduled.end_s - j.run.scheduled.start_s) * j.run.scheduled.job.nodes;
  return node_s * spec.gpus_per_node / 3600;
}

}  // namespace

TEST_CASE("a campaign never has more jobs queued or running than its throttle", "[campaign][driver]") {
  const CampaignSpec spec = spec_with();
  const CampaignResult r = run_campaign(spec, fake_step_time(spec));
  REQUIRE(!r.jobs.empty());
  // At every submit instant, count the jobs submitted and not yet ended (ends at that instant are applied
  // before the new submits).
  for (const CampaignJob& job : r.jobs) {
    const double t = job.run.scheduled.job.submit_s;
    int live = 0;
    for (const CampaignJob& other : r.jobs) {
      if (other.run.scheduled.job.submit_s <= t && other.run.scheduled.end_s > t) ++live;
    }
    CHECK(live <= spec.max_concurrent);
  }
  // Each job trains its rung's segment, at the trial's step time; every trial started once at rung 0.
  std::vector<int> starts(spec.trials.size(), 0);
  for (const CampaignJob& job : r.jobs) {
    CHECK(job.steps == spec.rungs.segment_steps(job.rung));
    const double per_step = spec.trials[static_cast<std::size_t>(job.trial)][1].text == "128" ? 0.2 : 0.1;
    CHECK(job.run.scheduled.end_s - job.run.scheduled.start_s == Approx(per_step * static_cast<double>(job.steps)));
    CHECK(job.loss.has_value());
    if (job.rung == 0) ++starts[static_cast<std::size_t>(job.trial)];
  }
  CHECK(std::all_of(starts.begin(), starts.end(), [](int n) { return n == 1; }));
  // A trial's rung k + 1 job is submitted no earlier than its rung k result.
  for (const CampaignJob& job : r.jobs) {
    if (job.rung == 0) continue;
    const auto before = std::find_if(r.jobs.begin(), r.jobs.end(), [&](const CampaignJob& j) {
      return j.trial == job.trial && j.rung == job.rung - 1;
    });
    REQUIRE(before != r.jobs.end());
    CHECK(before->run.scheduled.end_s <= job.run.scheduled.job.submit_s);
  }
}

TEST_CASE("the same campaign gives identical results", "[campaign][driver]") {
  const CampaignSpec spec = spec_with();
  const CampaignResult a = run_campaign(spec, fake_step_time(spec));
  const CampaignResult b = run_campaign(spec, fake_step_time(spec));
  REQUIRE(a.jobs.size() == b.jobs.size());
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    CHECK(a.jobs[i].trial == b.jobs[i].trial);
    CHECK(a.jobs[i].rung == b.jobs[i].rung);
    CHECK(a.jobs[i].run.scheduled.start_s == b.jobs[i].run.scheduled.start_s);
    CHECK(a.jobs[i].run.node_ids == b.jobs[i].run.node_ids);
    CHECK(a.jobs[i].loss == b.jobs[i].loss);
  }
  CHECK(a.best_trial == b.best_trial);
  const CampaignSpec other_seed = spec_with("seed: 11", "seed: 12");
  const CampaignResult c = run_campaign(other_seed, fake_step_time(other_seed));
  CHECK(c.trials[0].values[0].number != a.trials[0].values[0].number);
}

TEST_CASE("ASHA spends fewer GPU-hours than running every trial to the full budget", "[campaign][driver]") {
  const CampaignSpec asha = spec_with();
  const CampaignSpec full = spec_with("early_stopping: asha", "early_stopping: none");
  const CampaignResult a = run_campaign(asha, fake_step_time(asha));
  const CampaignResult f = run_campaign(full, fake_step_time(full));
  CHECK(f.jobs.size() == full.trials.size());
  CHECK(std::all_of(f.trials.begin(), f.trials.end(), [](const CampaignTrial& t) { return t.rung == 0 && t.loss; }));
  CHECK(gpu_hours(asha, a) < 0.5 * gpu_hours(full, f));
  CHECK(a.makespan_s < f.makespan_s);
  // ASHA's best reached the full budget; without early stopping the best is the lowest of all at R.
  REQUIRE(a.best_trial);
  CHECK(a.trials[static_cast<std::size_t>(*a.best_trial)].rung == asha.rungs.top());
  REQUIRE(f.best_trial);
  for (const CampaignTrial& t : f.trials) CHECK(*t.loss >= *f.trials[static_cast<std::size_t>(*f.best_trial)].loss);
  CHECK(f.trials[static_cast<std::size_t>(*f.best_trial)].known_s <= f.makespan_s);
}

TEST_CASE("a larger cluster with a wider throttle finishes sooner for the same trials", "[campaign][driver]") {
  const CampaignSpec narrow = spec_with();
  const CampaignSpec wide = spec_with("max_concurrent: 4", "max_concurrent: 8");
  const CampaignResult n = run_campaign(narrow, fake_step_time(narrow));
  const CampaignResult w = run_campaign(wide, fake_step_time(wide));
  CHECK(w.makespan_s < n.makespan_s);
  // Four at once on eight nodes: nobody waits in the queue; the throttle is the only limit.
  for (const CampaignJob& job : n.jobs) CHECK(job.run.scheduled.wait_s() == 0);
}

TEST_CASE("a trial's step time comes from its scenario, with the search's workload keys set", "[campaign][driver]") {
  const CampaignSpec spec = spec_with();
  TrialStepTimer timer(spec, SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR));
  std::int64_t small = -1, large = -1;
  for (std::size_t i = 0; i < spec.trials.size(); ++i) {
    (spec.trials[i][1].text == "64" ? small : large) = static_cast<std::int64_t>(i);
  }
  REQUIRE((small >= 0 && large >= 0));
  const double t_small = timer.seconds_per_step(small, {0});
  const double t_large = timer.seconds_per_step(large, {0});
  CHECK(t_small > 0);
  CHECK(t_large > 1.3 * t_small);  // twice the samples per step (batch_per_gpu 128, not 64)
  CHECK(timer.seconds_per_step(small, {1}) == t_small);  // any one node of the cluster
}
