// Campaign building blocks: ASHA's promotion order on a hand-checked case, rung schedules, grid and
// seeded random sampling, the learning curve, and the campaign file's errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/campaign/asha.h"
#include "workloads/campaign/campaign.h"
#include "workloads/campaign/learning_curve.h"
#include "workloads/campaign/search_space.h"

using namespace hpcsim;

namespace {

// Runs ASHA with one slot: each job's result is reported before the next job is asked for.
std::vector<std::pair<std::int64_t, int>> sequential_asha(AshaScheduler& asha,
                                                          const std::map<std::pair<std::int64_t, int>, double>& loss) {
  std::vector<std::pair<std::int64_t, int>> order;
  while (const std::optional<AshaJob> job = asha.next_job()) {
    order.emplace_back(job->trial, job->rung);
    asha.report(*job, loss.at({job->trial, job->rung}));
    REQUIRE(order.size() < 100);
  }
  return order;
}

SearchSpace space_from(const std::string& yaml) { return parse_search_space(parse_config_text(yaml, "space.yaml")); }

const char* kCampaign = R"(name: tiny
cluster: {node: dgx-a100-80gb, nodes: 4, network: ib-hdr}
trial:
  nodes: 1
  workload: {model: resnet50, batch_per_gpu: 64, precision: bf16, optimizer: sgd}
search:
  method: random
  trials: 9
  seed: 3
  space:
    lr: {log_uniform: [1.0e-4, 1.0e-1]}
  budget: {min_steps: 100, max_steps: 900, eta: 3}
  early_stopping: asha
)";

CampaignSpec campaign_with(const std::vector<std::string>& overrides) {
  ConfigNode root = parse_config_text(kCampaign, "campaign.yaml");
  // The loader's --set machinery, applied to the in-memory file.
  for (const std::string& flag : overrides) {
    const std::size_t eq = flag.find('=');
    const std::string path = flag.substr(0, eq);
    ConfigNode value = parse_config_text(flag.substr(eq + 1), "--set");
    ConfigNode* node = &root;
    std::size_t start = 0;
    for (std::size_t dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1) {
      node = node->find(path.substr(start, dot - start));
    }
    node->set(path.substr(start), value);
  }
  return parse_campaign(root, SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR), "campaign");
}

}  // namespace

TEST_CASE("ASHA with eta 3 on 9 trials promotes as worked out by hand", "[campaign][asha]") {
  // Rungs at 1, 3, 9 steps. Rung-0 losses: t0 .5, t1 .3, t2 .7, t3 .2, t4 .9, t5 .4, t6 .6, t7 .1, t8 .8;
  // rung 1: t1 .25, t3 .15, t7 .12; rung 2: t7 .08. One slot, scanning rungs top down at each free slot:
  //  t0, t1, t2 start (rung 0 has < 3 results, floor(n/3) = 0 promotable);
  //  rung 0 has 3: top 1 is t1 -> t1 to rung 1; then top 1 is still t1 (promoted) -> new t3;
  //  t3 (.2) is now rung 0's top 1 -> t3 to rung 1; rung 1 has 2 (none promotable), rung 0's top 1 promoted
  //  -> t4, t5 (rung 0 n = 6, top 2 = t3, t1: promoted), t6 (n = 7, top 2 the same), t7 (n = 8, top 2 = t7, t3);
  //  t7 to rung 1 (rung 1: t7 .12, t3 .15, t1 .25, top 1 = t7) -> t7 to rung 2 (the top: no further);
  //  then nothing to promote (rung 1's top 1 t7 done; rung 0's top 2 t7, t3 done) -> t8 (n = 9, top 3 t7, t3,
  //  t1: all promoted); every trial started and nothing promotable: ASHA stops.
  const std::map<std::pair<std::int64_t, int>, double> loss{
      {{0, 0}, .5}, {{1, 0}, .3}, {{2, 0}, .7}, {{3, 0}, .2}, {{4, 0}, .9}, {{5, 0}, .4}, {{6, 0}, .6},
      {{7, 0}, .1}, {{8, 0}, .8}, {{1, 1}, .25}, {{3, 1}, .15}, {{7, 1}, .12}, {{7, 2}, .08}};
  AshaScheduler asha(RungSchedule::successive_halving(1, 9, 3), 9);
  const std::vector<std::pair<std::int64_t, int>> expected{{0, 0}, {1, 0}, {2, 0}, {1, 1}, {3, 0}, {3, 1}, {4, 0},
                                                           {5, 0}, {6, 0}, {7, 0}, {7, 1}, {7, 2}, {8, 0}};
  CHECK(sequential_asha(asha, loss) == expected);
  CHECK(asha.done());
  CHECK(asha.finished(0) == 9);
  CHECK(asha.finished(1) == 3);
  CHECK(asha.finished(2) == 1);
}

TEST_CASE("ASHA promotes asynchronously: a free slot takes a promotion before a new trial", "[campaign][asha]") {
  AshaScheduler asha(RungSchedule::successive_halving(1, 9, 3), 9);
  // Three slots start trials 0, 1, 2; with trial 1's result alone nothing is promotable (floor(1/3) = 0).
  const AshaJob a = *asha.next_job(), b = *asha.next_job(), c = *asha.next_job();
  CHECK((a.trial == 0 && b.trial == 1 && c.trial == 2));
  asha.report(b, 0.4);
  const AshaJob d = *asha.next_job();
  CHECK((d.trial == 3 && d.rung == 0));
  asha.report(a, 0.6);
  asha.report(d, 0.5);
  // Rung 0 has 3 results (t1 .4, t3 .5, t0 .6) while t2 still runs: t1 is promoted at once.
  const AshaJob e = *asha.next_job();
  CHECK((e.trial == 1 && e.rung == 1));
  CHECK_FALSE(asha.done());
}

TEST_CASE("without early stopping every trial runs to the full budget in order", "[campaign][asha]") {
  AshaScheduler asha(RungSchedule::single(500), 4);
  for (std::int64_t i = 0; i < 4; ++i) {
    const std::optional<AshaJob> job = asha.next_job();
    REQUIRE(job);
    CHECK(job->trial == i);
    CHECK(asha.rungs().segment_steps(job->rung) == 500);
    asha.report(*job, 1.0 / static_cast<double>(i + 1));
  }
  CHECK_FALSE(asha.next_job());
  CHECK(asha.done());
}

TEST_CASE("rungs grow by eta up to the full budget: each job trains the steps since the last rung", "[campaign][asha]") {
  const RungSchedule s = RungSchedule::successive_halving(250, 6750, 3);
  CHECK(s.budgets == std::vector<std::int64_t>{250, 750, 2250, 6750});
  CHECK(s.segment_steps(0) == 250);
  CHECK(s.segment_steps(2) == 1500);
  CHECK(s.segment_steps(3) == 4500);
  CHECK_THROWS_AS(RungSchedule::successive_halving(100, 1000, 3), std::invalid_argument);
  CHECK_THROWS_AS(RungSchedule::successive_halving(100, 900, 1), std::invalid_argument);
}

TEST_CASE("a grid enumerates every combination, the last parameter fastest", "[campaign][search]") {
  const SearchSpace space = space_from(R"(
lr: {log_uniform: [1.0e-4, 1.0e-1], points: 4}
workload.batch_per_gpu: {choice: [128, 256]}
)");
  const std::vector<TrialValues> grid = grid_trials(space);
  REQUIRE(grid.size() == 8);
  CHECK(grid[0][0].number == 1e-4);
  CHECK(grid[7][0].number == 1e-1);
  CHECK(grid[2][0].number == Approx(1e-3));
  CHECK(grid[4][0].number == Approx(1e-2));
  for (std::size_t i = 0; i < grid.size(); ++i) {
    CHECK(grid[i][1].text == (i % 2 == 0 ? "128" : "256"));
    CHECK(grid[i][0].number == grid[i - i % 2][0].number);
  }
  CHECK(describe(space, grid[1]) == "lr=1e-04 workload.batch_per_gpu=256");
}

TEST_CASE("random trials are seeded, in range and independent of the number drawn", "[campaign][search]") {
  const SearchSpace space = space_from(R"(
lr: {log_uniform: [1.0e-4, 1.0e-1]}
dropout: {uniform: [0.0, 0.5]}
opt: {choice: [sgd, adamw, lamb]}
)");
  std::vector<double> lrs;
  std::map<std::string, int> opts;
  for (std::int64_t i = 0; i < 2000; ++i) {
    const TrialValues v = random_trial(space, 7, i);
    CHECK(describe(space, v) == describe(space, random_trial(space, 7, i)));
    CHECK((v[0].number >= 1e-4 && v[0].number <= 1e-1));
    CHECK((v[1].number >= 0 && v[1].number <= 0.5));  // rounded to 4 digits: the end can be reached
    lrs.push_back(v[0].number);
    ++opts[v[2].text];
  }
  // Log-uniform: the median near the geometric middle (3.2e-3), not the arithmetic one (0.05).
  std::nth_element(lrs.begin(), lrs.begin() + 1000, lrs.end());
  CHECK(lrs[1000] == Approx(std::sqrt(1e-4 * 1e-1)).epsilon(0.25));
  REQUIRE(opts.size() == 3);
  for (const auto& [name, count] : opts) CHECK((count > 550 && count < 780));
  CHECK(describe(space, random_trial(space, 7, 0)) != describe(space, random_trial(space, 8, 0)));
}

TEST_CASE("the learning curve falls with the budget and is best at the optimum", "[campaign][curve]") {
  const SearchSpace space = space_from("lr: {log_uniform: [1.0e-4, 1.0e-1], optimum: 1.0e-2}\n");
  LearningCurveModel model;
  model.noise = 0;
  const auto value = [](double lr) {
    ParameterValue v;
    v.number = lr;
    return TrialValues{v};
  };
  const LearningCurve best = learning_curve(model, space, value(1e-2));
  const LearningCurve high = learning_curve(model, space, value(1e-1));
  const LearningCurve low = learning_curve(model, space, value(1e-4));
  CHECK(best.floor == Approx(model.floor));
  CHECK(high.floor > best.floor);
  CHECK(low.floor > best.floor);
  CHECK(high.alpha > best.alpha);  // above the optimum: faster early, higher floor
  CHECK(low.alpha < best.alpha);
  for (const LearningCurve& c : {best, high, low}) {
    for (double b = 10; b < 1e5; b *= 1.5) CHECK(c.loss(b * 1.5) < c.loss(b));
    CHECK(observed_loss(model, c, 300, 1, 0) == c.loss(300));  // no noise
  }
  CHECK(best.loss(1e6) < high.loss(1e6));
  CHECK(best.loss(1e6) < low.loss(1e6));
}

TEST_CASE("evaluation noise is seeded per trial and budget", "[campaign][curve]") {
  const SearchSpace space = space_from("lr: {uniform: [0, 1]}\n");
  LearningCurveModel model;
  model.noise = 0.05;
  ParameterValue v;
  v.number = 0.5;
  const LearningCurve curve = learning_curve(model, space, TrialValues{v});
  CHECK(observed_loss(model, curve, 300, 1, 4) == observed_loss(model, curve, 300, 1, 4));
  CHECK(observed_loss(model, curve, 300, 1, 4) != observed_loss(model, curve, 300, 1, 5));
  CHECK(observed_loss(model, curve, 300, 1, 4) != observed_loss(model, curve, 300, 2, 4));
  double sum = 0, sum2 = 0;
  const int n = 4000;
  for (int t = 0; t < n; ++t) {
    const double rel = observed_loss(model, curve, 300, 9, t) / curve.loss(300) - 1;
    sum += rel;
    sum2 += rel * rel;
  }
  CHECK(std::abs(sum / n) < 0.005);
  CHECK(std::sqrt(sum2 / n) == Approx(0.05).epsilon(0.1));
}

TEST_CASE("a campaign file is read with its defaults", "[campaign][config]") {
  const CampaignSpec spec = campaign_with({});
  CHECK(spec.name == "tiny");
  CHECK(spec.trials.size() == 9);
  CHECK(spec.cluster_nodes == 4);
  CHECK(spec.gpus_per_node == 8);
  CHECK(spec.max_concurrent == 4);  // what the cluster holds at once
  CHECK(spec.rungs.budgets == std::vector<std::int64_t>{100, 300, 900});
  CHECK(spec.policy == QueuePolicy::easy);
  const CampaignSpec grid = campaign_with({"search.method=grid", "search.trials=2"});
  CHECK(grid.trials.size() == 2);  // the first two of a 3-point grid
  const CampaignSpec none = campaign_with({"search.early_stopping=none"});
  CHECK(none.rungs.budgets == std::vector<std::int64_t>{900});
}

TEST_CASE("bad campaign files are errors at their key", "[campaign][config]") {
  const auto error_of = [](const std::vector<std::string>& overrides) -> std::string {
    try {
      campaign_with(overrides);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  using Catch::Matchers::Contains;
  CHECK_THAT(error_of({"search.budget.max_steps=1000"}), Contains("campaign.yaml:") && Contains("power of eta"));
  CHECK_THAT(error_of({"search.space.lr={log_uniform: [0, 1]}"}), Contains("above 0"));
  CHECK_THAT(error_of({"search.space.lr={uniform: [1, 0]}"}), Contains("low < high"));
  // A width past a double's range made every trial's loss NaN.
  CHECK_THAT(error_of({"search.space.lr={uniform: [-1e308, 1e308]}"}),
             Contains("a range's width high - low must be a finite number"));
  CHECK(error_of({"search.space.lr={uniform: [-1e300, 1e300]}"}) == "no error");
  CHECK_THAT(error_of({"search.space.lr={uniform: [0, 1], choice: [1]}"}), Contains("two distributions"));
  CHECK_THAT(error_of({"search.space.lr={optimum: 1}"}), Contains("needs a distribution"));
  CHECK_THAT(error_of({"search.space.lr={uniform: [0, 1], optimum: 2}"}), Contains("in the range"));
  CHECK_THAT(error_of({"search.space.lr={choice: [1, 2], penalties: [0]}"}), Contains("one per choice"));
  CHECK_THAT(error_of({"search.method=grid", "search.trials=4"}), Contains("fewer than 4"));
  CHECK_THAT(error_of({"trial.nodes=8"}), Contains("cluster has 4"));
  // 2^32 nodes wrapped to 0 in an int and divided by zero (SIGFPE; found by tests/fuzz).
  // Integer keys are refused past 2^31-1 at the key now (Schema::integer); inside it, the count is checked.
  CHECK_THAT(error_of({"trial.nodes=4294967296"}), Contains("an integer here may be at most 2147483647"));
  CHECK_THAT(error_of({"trial.nodes=2147483647"}), Contains("a trial needs 2147483647 nodes but the cluster has 4"));
  CHECK_THAT(error_of({"search.early_stoping=asha"}), Contains("did you mean 'early_stopping'"));
  CHECK_THAT(error_of({"scheduler={policy: lottery}"}), Contains("one of"));
  // Edits of the file itself, located at their line and column.
  const auto error_of_text = [](const std::string& from, const std::string& to) -> std::string {
    std::string text = kCampaign;
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    try {
      parse_campaign(parse_config_text(text, "campaign.yaml"), SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR), "campaign");
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK_THAT(error_of_text("method: random", "method: bogus"), Contains("campaign.yaml:7:11:") && Contains("grid"));
  CHECK_THAT(error_of_text("    lr:", "    cluster.nodes:"), Contains("campaign.yaml:11:5:") && Contains("workload.KEY or parallelism.KEY"));
  CHECK_THAT(error_of_text("  trials: 9\n", ""), Contains("trials"));
}
