#include "workloads/campaign/campaign.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "models/platform/cluster_config.h"
#include "sim-core/simulator.h"
#include "workloads/scenario/training_scenario.h"

namespace hpcsim {

namespace {

// The scenario's own schema for a section, so a trial's workload is checked exactly as `hpcsim run` would.
const Schema& scenario_section_schema(const std::string& key) {
  for (const Field& field : training_scenario_schema().fields()) {
    if (field.key == key) return field.schema;
  }
  throw std::logic_error("scenario schema without " + key);
}

Schema positive_int() { return Schema::integer().at_least(1); }

}  // namespace

const Schema& campaign_schema() {
  static const Schema schema = Schema::map({
      optional("name", Schema::string(), "the campaign's name in outputs", "the file's name without .yaml"),
      optional("description", Schema::string(), "free text (not read)", "none"),
      required("cluster", cluster_schema(), "the machine the queue runs on, as a scenario's cluster"),
      required("trial", Schema::map({
                            optional("nodes", positive_int(), "nodes per trial job (its scenario's cluster.nodes)", "1"),
                            required("workload", scenario_section_schema("workload"),
                                     "what each trial trains, as a scenario's workload"),
                            optional("parallelism", scenario_section_schema("parallelism"),
                                     "as a scenario's parallelism", "data parallelism over every GPU"),
                        }), "what each trial trains"),
      required("search", Schema::map({
                             optional("method", Schema::one_of(kSearchMethodNames.names()),
                                      "random draws or grid (every combination, last parameter fastest)", "random"),
                             optional("trials", positive_int(), "trials to run (grid: the first N combinations)",
                                      "none: required for random; grid: every combination"),
                             optional("seed", Schema::integer().wide().at_least(0), "seed of the draws and the evaluation noise",
                                      "0"),
                             required("space", Schema::map_of(search_parameter_schema()).non_empty(),
                                      "the hyperparameters, by name; workload.KEY or parallelism.KEY also sets the "
                                      "trial's scenario, other names only shape the learning curve"),
                             required("budget", Schema::map({
                                                    optional("min_steps", positive_int(),
                                                             "asha: the first rung's steps; max_steps / min_steps must be "
                                                             "a power of eta",
                                                             "max_steps / 27"),
                                                    required("max_steps", positive_int(), "steps of a fully trained trial"),
                                                    optional("eta", Schema::integer().at_least(2),
                                                             "asha: each rung trains eta times the steps of the one "
                                                             "before and keeps 1 / eta of the trials",
                                                             "3"),
                                                }),
                                      "training steps per trial"),
                             optional("early_stopping", Schema::one_of(kEarlyStoppingNames.names()),
                                      "asha: successive halving over rungs; none: every trial trains max_steps", "none"),
                             optional("max_concurrent", positive_int(), "trial jobs in the queue at once (the array throttle)",
                                      "as many as the cluster holds: cluster nodes / trial nodes"),
                         }), "the hyperparameter search"),
      optional("curve", learning_curve_schema(), "the synthetic learning curve trials are scored with",
               "the defaults below"),
      optional("scheduler", Schema::map({
                                optional("policy", Schema::one_of(kQueuePolicyNames.names()), "the batch queue's policy",
                                         "easy"),
                                optional("limit_factor", Schema::number().at_least(1),
                                         "each job's wall-time limit is this x its predicted run time", "1.25"),
                            }), "the batch queue trials run through", "easy backfilling, limit_factor 1.25"),
  });
  return schema;
}

CampaignSpec parse_campaign(const ConfigNode& root, const SpecCatalog& catalog, std::string name) {
  campaign_schema().validate(root);
  CampaignSpec spec;
  spec.name = root.get_string_or("name", std::move(name));
  spec.cluster = root.at("cluster");
  const ClusterConfig cluster = parse_cluster(spec.cluster, catalog);
  spec.cluster_nodes = cluster.nodes;
  spec.gpus_per_node = cluster.gpus_per_node;

  const ConfigNode& trial = root.at("trial");
  // Compared before the cast to int: 2^32 nodes would wrap to 0 and divide by zero downstream.
  const auto trial_nodes = trial.get_int_or("nodes", 1);
  if (trial_nodes > spec.cluster_nodes) {
    throw ConfigError(trial.at("nodes").loc(), "a trial needs " + std::to_string(trial_nodes) +
                                                   " nodes but the cluster has " + std::to_string(spec.cluster_nodes));
  }
  spec.trial_nodes = static_cast<int>(trial_nodes);
  spec.workload = trial.at("workload");
  spec.parallelism = trial.has("parallelism") ? trial.at("parallelism") : ConfigNode::make_map(trial.loc());

  const ConfigNode& search = root.at("search");
  spec.method = *kSearchMethodNames.parse(search.get_string_or("method", "random"));
  spec.early_stopping = *kEarlyStoppingNames.parse(search.get_string_or("early_stopping", "none"));
  spec.seed = static_cast<std::uint64_t>(search.get_int_or("seed", 0));
  const ConfigNode& space = search.at("space");
  spec.space = parse_search_space(space);
  for (std::size_t k = 0; k < spec.space.parameters.size(); ++k) {
    const std::string& key = spec.space.parameters[k].name;
    const std::string section = key.substr(0, key.find('.'));
    const bool dotted = key.find('.') != std::string::npos;
    if (dotted && ((section != "workload" && section != "parallelism") || key.find('.', key.find('.') + 1) != std::string::npos)) {
      throw ConfigError(space.entries()[k].key_loc, "parameter '" + key +
                                                        "': a dotted name sets a key of the trial's scenario and "
                                                        "must be workload.KEY or parallelism.KEY");
    }
  }

  if (spec.method == SearchMethod::grid) {
    double combinations = 1;  // counted before the grid is built
    std::string sizes;
    for (const SearchParameter& p : spec.space.parameters) {
      const double n = p.kind == SpaceKind::choice ? static_cast<double>(p.choices.size()) : p.points;
      combinations *= n;
      sizes += (sizes.empty() ? "" : " x ") + std::to_string(static_cast<long long>(n));
    }
    check_count(CountLimit::trials, combinations, space.loc(), "the grid (" + sizes + ")");
    spec.trials = grid_trials(spec.space);
    if (const ConfigNode* trials = search.find("trials")) {
      const auto n = static_cast<std::size_t>(trials->as_int());
      if (n > spec.trials.size()) {
        throw ConfigError(trials->loc(), "the grid has " + std::to_string(spec.trials.size()) + " combinations, fewer than " +
                                             std::to_string(n) + " trials");
      }
      spec.trials.resize(n);
    }
  } else {
    const std::int64_t n = search.get_int("trials");  // required for a random search
    check_count(CountLimit::trials, static_cast<double>(n), search.at("trials").loc(), "the search");
    for (std::int64_t i = 0; i < n; ++i) spec.trials.push_back(random_trial(spec.space, spec.seed, i));
  }

  const ConfigNode& budget = search.at("budget");
  const std::int64_t max_steps = budget.get_int("max_steps");
  try {
    if (spec.early_stopping == EarlyStopping::asha) {
      spec.rungs = RungSchedule::successive_halving(budget.get_int_or("min_steps", max_steps / 27),
                                                    max_steps, static_cast<int>(budget.get_int_or("eta", 3)));
    } else {
      spec.rungs = RungSchedule::single(max_steps);
    }
  } catch (const std::invalid_argument& e) {
    throw ConfigError(budget.loc(), e.what());
  }

  // The throttle defaults to what the cluster holds at once: more would only wait in the queue.
  spec.max_concurrent = static_cast<int>(search.get_int_or("max_concurrent", spec.cluster_nodes / spec.trial_nodes));
  if (const ConfigNode* curve = root.find("curve")) spec.curve = parse_learning_curve(*curve);
  if (const ConfigNode* scheduler = root.find("scheduler")) {
    spec.policy = *kQueuePolicyNames.parse(scheduler->get_string_or("policy", "easy"));
    spec.limit_factor = scheduler->get_number_or("limit_factor", spec.limit_factor);
  }
  return spec;
}

CampaignResult run_campaign(const CampaignSpec& spec, const TrialStepTime& step_time, std::vector<int> node_leaf) {
  CampaignResult result;
  for (const TrialValues& values : spec.trials) {
    result.trials.push_back(CampaignTrial{values, learning_curve(spec.curve, spec.space, values), -1, std::nullopt, 0});
  }
  AshaScheduler asha(spec.rungs, static_cast<std::int64_t>(spec.trials.size()));
  Simulator sim;
  QueueSetup setup;
  setup.nodes = spec.cluster_nodes;
  setup.node_leaf = std::move(node_leaf);
  // A job's kind is its index in result.jobs: the hook trains its steps at the trial's step time.
  BatchScheduler queue(sim, setup, spec.policy, [&](const BatchJob& job, const std::vector<int>& node_ids) {
    const CampaignJob& cj = result.jobs[static_cast<std::size_t>(job.kind)];
    return static_cast<double>(cj.steps) * step_time(cj.trial, node_ids);
  });
  int active = 0;

  // Fills the throttle's free slots with ASHA's next jobs (promotions first), queued at this instant.
  const auto fill = [&] {
    while (active < spec.max_concurrent) {
      const std::optional<AshaJob> next = asha.next_job();
      if (!next) return;
      CampaignJob cj;
      cj.trial = next->trial;
      cj.rung = next->rung;
      cj.steps = spec.rungs.segment_steps(next->rung);
      cj.budget = spec.rungs.budgets[static_cast<std::size_t>(next->rung)];
      BatchJob job;
      job.id = static_cast<std::int64_t>(result.jobs.size());
      job.nodes = spec.trial_nodes;
      job.kind = static_cast<int>(result.jobs.size());
      // The wall-time limit a user would ask for: the predicted run time with a margin.
      job.run_s = static_cast<double>(cj.steps) * step_time(cj.trial, {});
      job.estimate_s = job.run_s * spec.limit_factor;
      result.jobs.push_back(std::move(cj));
      queue.submit(job);
      ++active;
    }
  };

  queue.on_end([&](std::size_t, const QueueRun& run) {
    CampaignJob& cj = result.jobs[static_cast<std::size_t>(run.scheduled.job.kind)];
    cj.run = run;
    --active;
    const AshaJob job{cj.trial, cj.rung};
    if (run.scheduled.killed) {
      asha.report_failure(job);
    } else {
      CampaignTrial& trial = result.trials[static_cast<std::size_t>(cj.trial)];
      cj.loss = observed_loss(spec.curve, trial.curve, static_cast<double>(cj.budget), spec.seed, cj.trial);
      trial.rung = cj.rung;
      trial.loss = cj.loss;
      trial.known_s = run.scheduled.end_s;
      asha.report(job, *cj.loss);
    }
    result.makespan_s = std::max(result.makespan_s, run.scheduled.end_s);
    fill();
  });
  fill();
  sim.run();

  // The best trial: lowest loss among those that reached the highest rung any trial reached.
  int top = -1;
  for (const CampaignTrial& t : result.trials) top = std::max(top, t.rung);
  for (std::size_t i = 0; i < result.trials.size(); ++i) {
    const CampaignTrial& t = result.trials[i];
    if (top < 0 || t.rung != top) continue;
    if (!result.best_trial || *t.loss < *result.trials[static_cast<std::size_t>(*result.best_trial)].loss) {
      result.best_trial = static_cast<std::int64_t>(i);
    }
  }
  return result;
}

}  // namespace hpcsim
