#include "workloads/planning/plan_spec.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/loader.h"
#include "workloads/resilience/checkpoint_state.h"
#include "workloads/scenario/scenario_kind.h"
#include "workloads/training/framework_profile.h"

namespace hpcsim {

namespace {

Schema positive_ints() { return Schema::list(Schema::integer().at_least(1)).non_empty(); }

const Schema& workload_schema() {
  for (const Field& f : training_scenario_schema().fields()) {
    if (f.key == "workload") return f.schema;
  }
  throw std::logic_error("scenario schema has no workload section");
}

// The constraint keys are read before the schema check so that a bad value names its key.
void check_named(const ConfigNode& node, const std::string& key, const Schema& schema) {
  try {
    schema.validate(node);
  } catch (const ConfigError& e) {
    throw ConfigError(e.where(), key + ": " + e.message());
  }
}

std::vector<int> ints(const ConfigNode& list) {
  std::vector<int> out;
  for (const ConfigNode& item : list.items()) out.push_back(static_cast<int>(item.as_int()));
  return out;
}

}  // namespace

const Schema& plan_schema() {
  static const Schema schema = Schema::map({
      required("kind", scenario_kind_schema(), "plan: this file is a capacity plan (hpcsim plan)"),
      optional("name", Schema::string(), "the plan's name in outputs and the results store",
               "the file's name without .yaml"),
      optional("description", Schema::string(), "free text for the reader", "none"),
      required("workload", workload_schema(),
               "what is trained, as a scenario's workload section; global_batch is required (every layout keeps it)"),
      required("train", Schema::map({optional("tokens", Schema::number().positive(),
                                              "tokens to train (sequence models); give tokens or samples",
                                              "none: samples is given"),
                                     optional("samples", Schema::number().positive(),
                                              "samples to train; give tokens or samples", "none: tokens is given")}),
               "the training run's size: time to train = its steps x the step time"),
      required("hardware", Schema::map({
                               required("nodes", Schema::list(Schema::string()).non_empty(),
                                        "node types to consider (names in configs/nodes; each needs a price in "
                                        "configs/prices and its power figures)"),
                               required("node_counts", positive_ints(), "cluster sizes to consider, in nodes"),
                               required("networks",
                                        Schema::list(Schema::map({required("network", Schema::string(),
                                                                           "a name in configs/networks"),
                                                                  required("switch", Schema::string(),
                                                                           "its switch, a name in configs/switches "
                                                                           "(ports, power)")}))
                                            .non_empty(),
                                        "networks to consider, each with the switch that builds its fat tree"),
                               optional("filesystems",
                                        Schema::list(Schema::map({required("filesystem", Schema::string(),
                                                                           "a name in configs/filesystems"),
                                                                  optional("price_per_hour", Schema::string(),
                                                                           "what the file system costs per hour of the "
                                                                           "run (rented, or its purchase amortized), e.g. "
                                                                           "'40 USD'",
                                                                           "0 USD: not priced")}))
                                            .non_empty(),
                                        "file systems to consider (docs/storage.md): the workload's dataset is read "
                                        "from each (cluster.filesystem) and checkpoints written to it",
                                        "none: no file system is searched"),
                           }),
               "the hardware catalogue the search takes node types, counts, networks and file systems from"),
      optional("layouts", Schema::map({
                              optional("tp", positive_ints(), "tensor-parallel widths to consider", "[1]"),
                              optional("pp", positive_ints(), "pipeline depths to consider", "[1]"),
                              optional("micro_batch", positive_ints(), "micro batches (samples per pass) to consider",
                                       "[the workload's batch per GPU]"),
                              optional("zero", Schema::list(Schema::integer().at_least(0).at_most(3)).non_empty(),
                                       "ZeRO stages to consider", "[0]"),
                              optional("schedule", Schema::one_of({"1f1b", "gpipe"}), "the pipeline schedule", "1f1b"),
                          }),
               "the parallel layouts to search; dp takes the GPUs left and must divide the global batch",
               "tp 1, pp 1, the workload's micro batch, ZeRO 0"),
      optional("pricing", Schema::one_of({"cloud", "purchase"}),
               "cloud: on-demand price per node-hour; purchase: price amortized over its period, plus electricity",
               "cloud"),
      optional("electricity", Schema::string(), "price of energy for purchase pricing, e.g. '0.10 USD/kWh'",
               "0 (cloud prices include power)"),
      optional("pue", Schema::number().at_least(1).at_most(3),
               "power usage effectiveness: facility energy / IT energy",
               "1.58 (Uptime Institute Global Data Center Survey 2023 average)"),
      optional("constraints", Schema::map({
                                  optional("max_time_to_train", Schema::quantity(Dimension::time).positive(),
                                           "the longest acceptable time to train", "no limit"),
                                  optional("budget", Schema::string(), "the most the run may cost, e.g. '2e6 USD'",
                                           "no limit"),
                                  optional("max_energy", Schema::number().positive(),
                                           "the most energy the run may use, in kWh", "no limit"),
                              }),
               "what a configuration must meet to be ranked", "none: every configuration qualifies"),
      optional("resilience", resilience_schema(),
               "rank by goodput: the whole run with failures, checkpoints and restarts, as a training scenario's "
               "resilience: section without its length (the plan's train: sets it; docs/resilience.md)",
               "none: failure-free"),
      optional("search", Schema::map({optional("full_simulations", Schema::integer().at_least(1),
                                               "screened configurations simulated in full", "12"),
                                      optional("top", Schema::integer().at_least(1),
                                               "cheapest configurations printed", "5")}),
               "how much the search simulates and prints", "12 full simulations, top 5"),
  });
  return schema;
}

PlanSpec parse_plan(const ConfigNode& root, const SpecCatalog& catalog, std::string name) {
  if (scenario_kind(root) != ScenarioKind::plan) {
    throw ConfigError(root.is_map() && root.has("kind") ? root.at("kind").loc() : root.loc(),
                      "not a plan: hpcsim plan reads a file with 'kind: plan'");
  }
  if (const ConfigNode* c = root.find("constraints"); c != nullptr && c->is_map()) {
    if (const ConfigNode* t = c->find("max_time_to_train")) {
      check_named(*t, "constraints.max_time_to_train", Schema::quantity(Dimension::time).positive());
    }
    if (const ConfigNode* b = c->find("budget")) parse_usd(*b, "constraints.budget");
    if (const ConfigNode* e = c->find("max_energy")) check_named(*e, "constraints.max_energy (kWh)", Schema::number().positive());
  }
  plan_schema().validate(root);
  if (const ConfigNode* layers = root.at("workload").find("layers")) {  // before the model is built
    check_count(CountLimit::layers, static_cast<double>(layers->as_int()), layers->loc(), "the model");
  }
  PlanSpec p;
  p.name = root.get_string_or("name", std::move(name));
  const ConfigNode& w = root.at("workload");
  p.workload_node = w;
  p.workload = parse_workload(w, catalog.root());
  if (!w.has("global_batch")) throw ConfigError(w.loc(), "workload: a plan needs global_batch (the batch every layout keeps)");
  p.global_batch = w.get_int("global_batch");

  const ConfigNode& train = root.at("train");
  if (train.has("tokens") == train.has("samples")) {
    throw ConfigError(train.loc(), "train: give tokens or samples (how much to train), one of them");
  }
  if (train.has("tokens")) {
    const std::int64_t per_sample = p.workload.built.counted_tokens();
    if (per_sample <= 0) throw ConfigError(train.at("tokens").loc(), "train.tokens: model '" + p.workload.model + "' has no token input; give train.samples");
    p.samples_to_train = train.get_number("tokens") / static_cast<double>(per_sample);
  } else {
    p.samples_to_train = train.get_number("samples");
  }

  p.pricing = root.get_string_or("pricing", "cloud") == "purchase" ? Pricing::purchase : Pricing::cloud;
  const ConfigNode& hw = root.at("hardware");
  for (const ConfigNode& n : hw.at("nodes").items()) {
    PlanNode node{parse_node_spec(catalog.load("nodes", n, "node"), n.as_string(), catalog), load_price(catalog, n, p.pricing)};
    if (node.spec.gpus == 0) throw ConfigError(n.loc(), "node " + n.as_string() + " has no GPUs");
    if (node.spec.gpu.idle_power_w <= 0 || node.spec.max_power_w <= 0) {
      throw ConfigError(n.loc(), "node " + n.as_string() + ": the power model needs its GPU's idle_power and the node's max_power");
    }
    if (!node.spec.gpu.supports(p.workload.precision)) {
      throw ConfigError(n.loc(), "the " + node.spec.gpu.name + " of node " + n.as_string() + " has no " +
                                     std::string(to_string(p.workload.precision)) + " math units");
    }
    p.nodes.push_back(std::move(node));
  }
  p.node_counts = ints(hw.at("node_counts"));
  for (const ConfigNode& n : hw.at("networks").items()) {
    const ConfigNode& net = n.at("network");
    const ConfigNode& sw = n.at("switch");
    p.networks.push_back({parse_network_spec(catalog.load("networks", net, "network"), net.as_string()),
                          parse_switch_spec(catalog.load("switches", sw, "switch"), sw.as_string())});
  }

  if (const ConfigNode* filesystems = hw.find("filesystems")) {
    for (const ConfigNode& f : filesystems->items()) {
      const ConfigNode& fs = f.at("filesystem");
      PlanFileSystem entry{parse_filesystem_spec(catalog.load("filesystems", fs, "file system"), fs.as_string(), catalog), 0};
      if (const ConfigNode* price = f.find("price_per_hour")) entry.usd_per_hour = parse_usd(*price, "price_per_hour");
      p.filesystems.push_back(std::move(entry));
    }
  }
  if (const ConfigNode* dataset = w.find("dataset")) {
    p.dataset = load_dataset_spec(catalog, *dataset);
    if (!p.dataset->synthetic && p.filesystems.empty()) {
      throw ConfigError(dataset->loc(), "dataset " + dataset->as_string() +
                                            " is read from storage: give the plan hardware.filesystems to read it from");
    }
    const ConfigNode pytorch = ConfigNode::make_scalar("pytorch", w.loc());
    const FrameworkProfile framework = load_framework_profile(catalog, w.has("framework") ? w.at("framework") : pytorch);
    p.loader_workers_per_gpu = p.workload.loader_workers.value_or(framework.loader_workers_per_gpu);
  }

  const ConfigNode* layouts = root.find("layouts");
  auto choices = [&](const char* key, std::vector<int> fallback) {
    return layouts != nullptr && layouts->has(key) ? ints(layouts->at(key)) : fallback;
  };
  p.tp = choices("tp", {1});
  p.pp = choices("pp", {1});
  p.micro_batch = choices("micro_batch", {p.workload.batch_per_gpu});
  p.zero = choices("zero", {0});
  if (layouts != nullptr && layouts->has("schedule")) p.schedule = *kPipelineScheduleNames.parse(layouts->get_string("schedule"));
  {  // every combination is screened (and the best simulated in full): counted before any is
    const double combinations = static_cast<double>(std::max<std::size_t>(p.filesystems.size(), 1)) *
                                static_cast<double>(p.nodes.size()) * static_cast<double>(p.networks.size()) *
                                static_cast<double>(p.node_counts.size()) * static_cast<double>(p.micro_batch.size()) *
                                static_cast<double>(p.tp.size()) * static_cast<double>(p.pp.size()) *
                                static_cast<double>(p.zero.size());
    check_count(CountLimit::configurations, combinations, layouts != nullptr ? layouts->loc() : hw.loc(),
                "the plan's combinations of nodes, networks, file systems, node counts and layouts");
    int most_gpus = 0;
    for (const PlanNode& node : p.nodes) most_gpus = std::max(most_gpus, node.spec.gpus);
    for (const ConfigNode& count : hw.at("node_counts").items()) {
      check_count(CountLimit::gpus, static_cast<double>(count.as_int()) * most_gpus, count.loc(),
                  count.as_string() + " nodes of " + std::to_string(most_gpus) + " GPUs");
    }
  }

  if (const ConfigNode* e = root.find("electricity")) {
    const std::string text = e->as_string();
    const std::string suffix = "/kWh";
    if (text.size() <= suffix.size() || text.substr(text.size() - suffix.size()) != suffix) {
      throw ConfigError(e->loc(), "electricity: expected a price per kWh like '0.10 USD/kWh', got '" + text + "'");
    }
    ConfigNode amount = ConfigNode::make_scalar(text.substr(0, text.size() - suffix.size()), e->loc());
    p.electricity_usd_per_kwh = parse_usd(amount, "electricity");
  }
  // Uptime Institute Global Data Center Survey 2023: average annual PUE 1.58 over the surveyed data centres.
  p.pue = root.get_number_or("pue", 1.58);
  if (const ConfigNode* c = root.find("constraints")) {
    if (c->has("max_time_to_train")) p.max_time_to_train_s = c->get_quantity("max_time_to_train", Dimension::time);
    if (c->has("budget")) p.budget_usd = parse_usd(c->at("budget"), "constraints.budget");
    if (c->has("max_energy")) p.max_energy_kwh = c->get_number("max_energy");
  }
  if (const ConfigNode* r = root.find("resilience")) {
    for (const char* key : {"steps", "tokens", "compute_time"}) {
      if (r->has(key)) {
        throw ConfigError(r->at(key).loc(), std::string("resilience.") + key +
                                                ": a plan's run is as long as its train: section says; leave it out");
      }
    }
    ConfigNode section = *r;
    const double steps = std::ceil(p.samples_to_train / static_cast<double>(p.global_batch));
    section.set("steps", ConfigNode::make_scalar(std::to_string(static_cast<std::int64_t>(steps)), r->loc()));
    // Checked once against the smallest job the plan considers, so that a bad value (more spares than nodes,
    // an interval shorter than the checkpoint's write) is an error at its key before anything is simulated.
    ResilienceJob job;
    job.nodes = *std::min_element(p.node_counts.begin(), p.node_counts.end());
    int fewest_gpus = p.nodes.front().spec.gpus;
    for (const PlanNode& node : p.nodes) fewest_gpus = std::min(fewest_gpus, node.spec.gpus);
    job.gpus = job.nodes * fewest_gpus;
    job.node_leaf.assign(static_cast<std::size_t>(job.nodes), 0);
    job.state_bytes = checkpoint_state_bytes(p.workload);
    if (!p.filesystems.empty()) job.filesystem = &p.filesystems.front().spec;  // each candidate checkpoints to its own
    p.spares = parse_resilience(section, catalog, job).spares;
    p.resilience = std::move(section);
  }
  if (const ConfigNode* s = root.find("search")) {
    p.full_simulations = static_cast<int>(s->get_int_or("full_simulations", p.full_simulations));
    p.top = static_cast<int>(s->get_int_or("top", p.top));
  }
  return p;
}

}  // namespace hpcsim
