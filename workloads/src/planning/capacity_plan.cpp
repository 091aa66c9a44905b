#include "workloads/planning/capacity_plan.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include "configs/config_error.h"
#include "configs/yaml_text.h"
#include "models/network/topology.h"
#include "workloads/training/input_pipeline.h"
#include "workloads/planning/pareto.h"
#include "workloads/scenario/simulate_scenario.h"

namespace hpcsim {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

constexpr double kSecondsPerHour = 3600.0;

// The smallest non-blocking fat tree (2 levels, else 3) of the switch that holds the cluster's NIC ports,
// as the simulator builds it: its switch count feeds the power model. levels 0: none holds them.
struct FabricSize {
  int levels = 0, switches = 0;
};

FabricSize fabric_size(const NodeSpec& node, int nodes, const SwitchSpec& sw) {
  for (int levels : {2, 3}) {
    TopologySpec spec;
    spec.kind = TopologyKind::fat_tree;
    spec.levels = levels;
    spec.radix = sw.ports;
    try {
      const Topology t = Topology::build(spec, nodes, node.nics.count, std::max(1, node.nics.rails));
      return {levels, t.switch_count()};
    } catch (const std::exception&) {
      // too small at this many levels: try one more
    }
  }
  return {};
}

bool meets(const PlanSpec& plan, const PlanOutcome& o) {
  return (!plan.max_time_to_train_s || o.time_to_train_s <= *plan.max_time_to_train_s) &&
         (!plan.budget_usd || o.cost_usd <= *plan.budget_usd) && (!plan.max_energy_kwh || o.energy_kwh <= *plan.max_energy_kwh);
}

// Layout combinations that the model, the node and the global batch allow.
bool valid_layout(const PlanSpec& plan, const NodeSpec& node, int blocks, ScreenLayout& l) {
  const int gpus = l.nodes * node.gpus;
  if (node.gpus % l.tp != 0) return false;         // tensor parallelism stays inside a node (NVLink)
  if (gpus % (l.tp * l.pp) != 0) return false;
  if (l.pp > blocks) return false;                  // a stage needs at least one block
  if (l.zero >= 2 && l.pp > 1) return false;        // as parse_training_scenario: ZeRO-2/3 shard what pipelines accumulate
  l.dp = gpus / (l.tp * l.pp);
  const std::int64_t per_step = l.micro_batch * l.dp;
  if (plan.global_batch % per_step != 0) return false;
  l.microbatches = static_cast<int>(plan.global_batch / per_step);
  return true;
}

// The next candidates to simulate: the cheapest that the screen says meet the constraints, then the screened
// Pareto front by cost, alternately, so both the ranking and the front get simulated points. The screen's
// outcomes are scaled by `correction` (how much slower the simulations so far found the steps than the
// screen said), so a screen that is optimistic for this model does not keep proposing misses.
std::vector<std::size_t> simulation_order(const PlanSpec& plan, const std::vector<PlanCandidate>& all, double correction,
                                          std::size_t wanted) {
  std::vector<std::size_t> meeting, usable;
  std::vector<std::vector<double>> points;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].simulated || !all[i].screen.fits_in_memory) continue;
    usable.push_back(i);
    PlanOutcome o = all[i].screened;
    o.time_to_train_s *= correction, o.cost_usd *= correction, o.energy_kwh *= correction;
    points.push_back({o.time_to_train_s, o.cost_usd, o.energy_kwh});
    if (meets(plan, o)) meeting.push_back(i);
  }
  std::vector<std::size_t> front;
  for (std::size_t f : pareto_front(points)) front.push_back(usable[f]);
  const auto by_cost = [&](std::size_t a, std::size_t b) {
    return std::tie(all[a].screened.cost_usd, a) < std::tie(all[b].screened.cost_usd, b);
  };
  std::sort(meeting.begin(), meeting.end(), by_cost);
  std::sort(front.begin(), front.end(), by_cost);
  std::vector<std::size_t> order;
  std::vector<bool> taken(all.size(), false);
  for (std::size_t k = 0; k < std::max(meeting.size(), front.size()) && order.size() < wanted; ++k) {
    for (const auto* list : {&meeting, &front}) {
      if (k < list->size() && !taken[(*list)[k]] && order.size() < wanted) {
        taken[(*list)[k]] = true;
        order.push_back((*list)[k]);
      }
    }
  }
  return order;
}

// Median of simulated / screened step time over the candidates simulated so far (1 before any).
double screen_correction(const std::vector<PlanCandidate>& all) {
  std::vector<double> ratios;
  for (const PlanCandidate& c : all) {
    if (c.simulated && c.status == "ok" && c.screened.step_s > 0) ratios.push_back(c.simulated_outcome.step_s / c.screened.step_s);
  }
  if (ratios.empty()) return 1.0;
  std::sort(ratios.begin(), ratios.end());
  const std::size_t n = ratios.size();
  return n % 2 == 1 ? ratios[n / 2] : 0.5 * (ratios[n / 2 - 1] + ratios[n / 2]);
}

// A failure-free outcome made that of the whole run with failures: the job holds its nodes (and pays for its
// hot spares) for the mean wall time over the replicas, drawing its training power throughout (an upper
// bound: a job waiting on detection or a re-queue draws less).
void with_failures(const PlanSpec& plan, const PlanNode& node, const LongRunSummary& s, PlanOutcome& o) {
  const double scale = s.mean_wall_s / o.time_to_train_s;
  o.failure_free_s = o.time_to_train_s;
  o.ettr = s.ettr;
  o.time_to_train_s = s.mean_wall_s;
  o.energy_kwh *= scale;
  o.cost_usd *= scale;
  const double per_node_hour = plan.pricing == Pricing::cloud ? node.price.cloud_per_hour : node.price.purchase_per_hour();
  o.cost_usd += plan.spares * per_node_hour * s.mean_wall_s / kSecondsPerHour;
}

void simulate_in_full(const PlanSpec& plan, const SpecCatalog& catalog, PlanCandidate& c) {
  const PlanNode& node = plan.nodes[c.node];
  const PlanNetwork& net = plan.networks[c.network];
  c.simulated = true;
  try {
    const ConfigNode root = candidate_scenario(plan, c, node.spec.name, net.spec.name);
    c.scenario_text = to_yaml_text(root);
    const TrainingScenario scenario = parse_training_scenario(root, catalog, plan.name);
    const TrainingStepReport step = simulate_scenario(scenario);
    const TrainingStepResult& r = step.result;
    const double busy = r.breakdown.compute + r.breakdown.optimizer;
    const PlanFileSystem* fs = candidate_filesystem(plan, c);
    c.simulated_outcome = plan_outcome(plan, node, c.layout.nodes, c.switches, net.network_switch, r.step_time_s,
                                       r.step_time_s > 0 ? busy / r.step_time_s : 0, fs ? fs->usd_per_hour : 0);
    c.simulated_outcome.io_stall_s = r.breakdown.io_stall;
    if (scenario.resilience && r.fits_in_memory) {  // the whole run with failures, from the simulated step
      const ResilienceConfig& rc = *scenario.resilience;
      with_failures(plan, node, simulate_long_run(rc.model(r.step_time_s), rc.replicas, rc.seed),
                    c.simulated_outcome);
    }
    c.status = r.fits_in_memory ? "ok" : "oom";
    if (!r.fits_in_memory) {
      c.message = "needs " + std::to_string(r.memory_per_gpu_bytes / (1024.0 * 1024 * 1024)) + " GiB per GPU";
    }
  } catch (const ConfigError& e) {
    c.status = "error";
    c.message = e.message();
  } catch (const std::invalid_argument& e) {
    c.status = "error";
    c.message = e.what();
  }
}

// Simulated and fitting, meeting the constraints first, each group by cost; then screened-only ones by their
// estimated cost; then those that do not fit or failed.
int rank_group(const PlanCandidate& c) {
  if (c.simulated && c.status == "ok") return c.meets_constraints ? 0 : 1;
  if (!c.simulated && c.screen.fits_in_memory) return c.meets_constraints ? 2 : 3;
  return 4;
}

}  // namespace

int PlanResult::simulated() const {
  return static_cast<int>(std::count_if(candidates.begin(), candidates.end(), [](const PlanCandidate& c) { return c.simulated; }));
}

const PlanFileSystem* candidate_filesystem(const PlanSpec& plan, const PlanCandidate& c) {
  return plan.filesystems.empty() ? nullptr : &plan.filesystems[c.filesystem];
}

PlanOutcome plan_outcome(const PlanSpec& plan, const PlanNode& node, int nodes, int switches, const SwitchSpec& network_switch,
                         double step_s, double gpu_activity, double storage_usd_per_hour) {
  PlanOutcome o;
  o.step_s = step_s;
  o.gpu_activity = gpu_activity;
  const double steps = std::ceil(plan.samples_to_train / static_cast<double>(plan.global_batch));
  o.time_to_train_s = steps * step_s;
  const double hours = o.time_to_train_s / kSecondsPerHour;
  const ClusterPower power = cluster_power(power_inputs(node.spec, nodes, switches, network_switch, plan.pue), gpu_activity);
  o.power_kw = power.facility_w / 1000.0;
  o.energy_kwh = o.power_kw * hours;
  const double per_node_hour = plan.pricing == Pricing::cloud ? node.price.cloud_per_hour : node.price.purchase_per_hour();
  o.cost_usd = (nodes * per_node_hour + storage_usd_per_hour) * hours;
  if (plan.pricing == Pricing::purchase) o.cost_usd += o.energy_kwh * plan.electricity_usd_per_kwh;
  return o;
}

ConfigNode candidate_scenario(const PlanSpec& plan, const PlanCandidate& c, const std::string& node_name,
                              const std::string& network_name) {
  const SourceLoc at = plan.workload_node.loc();
  const auto scalar = [&](const std::string& text) { return ConfigNode::make_scalar(text, at); };
  const auto number = [&](std::int64_t v) { return scalar(std::to_string(v)); };
  ConfigNode root = ConfigNode::make_map(at);
  const PlanFileSystem* fs = candidate_filesystem(plan, c);
  root.set("name", scalar(plan.name + ": " + std::to_string(c.layout.nodes) + "x " + node_name + " " + network_name +
                          (fs ? " " + fs->spec.name : "")));
  ConfigNode cluster = ConfigNode::make_map(at);
  cluster.set("node", scalar(node_name));
  cluster.set("nodes", number(c.layout.nodes));
  cluster.set("network", scalar(network_name));
  if (fs) cluster.set("filesystem", scalar(fs->spec.name));
  ConfigNode topology = ConfigNode::make_map(at);
  topology.set("kind", scalar("fat-tree"));
  topology.set("levels", number(c.topology_levels));
  topology.set("radix", number(plan.networks[c.network].network_switch.ports));
  cluster.set("topology", topology);
  root.set("cluster", cluster);
  ConfigNode workload = plan.workload_node;
  for (const char* key : {"batch_per_gpu", "tokens_per_gpu"}) workload.erase(key);
  workload.set("micro_batch", number(c.layout.micro_batch));
  root.set("workload", workload);
  ConfigNode parallelism = ConfigNode::make_map(at);
  parallelism.set("tp", number(c.layout.tp));
  parallelism.set("pp", number(c.layout.pp));
  parallelism.set("dp", number(c.layout.dp));
  parallelism.set("zero", number(c.layout.zero));
  parallelism.set("schedule", scalar(std::string(kPipelineScheduleNames.name(plan.schedule))));
  root.set("parallelism", parallelism);
  if (plan.resilience) root.set("resilience", *plan.resilience);
  return root;
}

PlanResult run_capacity_plan(const PlanSpec& plan, const SpecCatalog& catalog, const PlanProgress& after_each) {
  PlanResult result;
  const std::size_t per_count = plan.micro_batch.size() * plan.tp.size() * plan.pp.size() * plan.zero.size();
  const std::size_t filesystems = std::max<std::size_t>(plan.filesystems.size(), 1);
  const std::size_t combinations =
      plan.nodes.size() * plan.networks.size() * plan.node_counts.size() * per_count * filesystems;
  // The input pipeline depends on the file system, node type and count, loaders per node and batch alone.
  std::map<std::tuple<std::size_t, std::size_t, int, int, std::int64_t>, InputPipelineResult> pipelines;
  const auto input_stall = [&](std::size_t f, std::size_t n, const ScreenLayout& l, double step_s) {
    if (!plan.dataset || plan.filesystems.empty()) return 0.0;
    const NodeSpec& spec = plan.nodes[n].spec;
    const int loaders = loading_gpus_per_node(l.dp, l.nodes, spec.gpus);
    const std::int64_t batch = l.micro_batch * l.microbatches;
    auto [it, fresh] = pipelines.try_emplace({f, n, l.nodes, loaders, batch});
    if (fresh) {
      it->second = simulate_input_pipeline(*plan.dataset, plan.filesystems[f].spec, spec, loaders, l.nodes, batch,
                                           plan.workload.loader(plan.loader_workers_per_gpu));
    }
    return io_stall_s(it->second, step_s);
  };
  std::size_t screened = 0;
  auto tick = [&](std::size_t n) {
    screened += n;
    if (after_each) after_each(PlanStage::screen, screened, combinations);
  };
  const Clock::time_point screen_start = Clock::now();
  std::map<std::int64_t, ModelFootprint> footprints;
  for (int micro : plan.micro_batch) footprints.emplace(micro, model_footprint(plan.workload, micro));
  for (std::size_t n = 0; n < plan.nodes.size(); ++n) {
    const PlanNode& node = plan.nodes[n];
    for (std::size_t w = 0; w < plan.networks.size(); ++w) {
      const PlanNetwork& net = plan.networks[w];
      for (int count : plan.node_counts) {
        const FabricSize fabric = fabric_size(node.spec, count, net.network_switch);
        if (fabric.levels == 0) {
          ++result.unbuildable_networks;
          tick(per_count * filesystems);
          continue;
        }
        for (int micro : plan.micro_batch) {
          const ModelFootprint& model = footprints.at(micro);
          for (int tp : plan.tp) {
            for (int pp : plan.pp) {
              for (int zero : plan.zero) {
                PlanCandidate base;
                base.node = n, base.network = w;
                base.layout = ScreenLayout{count, tp, pp, 1, zero, micro, 1};
                if (!valid_layout(plan, node.spec, model.blocks, base.layout)) {
                  ++result.invalid_layouts;
                  tick(filesystems);
                  continue;
                }
                base.topology_levels = fabric.levels;
                base.switches = fabric.switches;
                base.screen = screen_estimate(model, plan.workload, node.spec, net.spec, base.layout);
                for (std::size_t f = 0; f < filesystems; ++f) {
                  tick(1);
                  PlanCandidate c = base;
                  c.filesystem = f;
                  // The input the loaders cannot hide behind the step lengthens it; the GPUs idle meanwhile.
                  c.screen.io_stall_s = input_stall(f, n, c.layout, c.screen.step_s);
                  if (c.screen.io_stall_s > 0) {
                    c.screen.gpu_activity *= c.screen.step_s / (c.screen.step_s + c.screen.io_stall_s);
                    c.screen.step_s += c.screen.io_stall_s;
                  }
                  const PlanFileSystem* fs = candidate_filesystem(plan, c);
                  c.screened = plan_outcome(plan, node, count, fabric.switches, net.network_switch, c.screen.step_s,
                                            c.screen.gpu_activity, fs ? fs->usd_per_hour : 0);
                  c.screened.io_stall_s = c.screen.io_stall_s;
                  c.meets_constraints = meets(plan, c.screened);
                  result.candidates.push_back(std::move(c));
                }
              }
            }
          }
        }
      }
    }
  }
  result.screen_wall_s = seconds_since(screen_start);

  const Clock::time_point simulate_start = Clock::now();
  // In rounds of a quarter of the simulations, each picked with the screen corrected by the rounds before.
  const int round_size = std::max(1, plan.full_simulations / 4);
  for (int done = 0; done < plan.full_simulations;) {
    const std::size_t wanted = static_cast<std::size_t>(std::min(round_size, plan.full_simulations - done));
    const std::vector<std::size_t> next = simulation_order(plan, result.candidates, screen_correction(result.candidates), wanted);
    if (next.empty()) break;
    for (std::size_t i : next) {
      PlanCandidate& c = result.candidates[i];
      simulate_in_full(plan, catalog, c);
      c.meets_constraints = c.status == "ok" && meets(plan, c.simulated_outcome);
      ++done;
      if (after_each) after_each(PlanStage::simulate, static_cast<std::size_t>(done), static_cast<std::size_t>(plan.full_simulations));
    }
  }
  result.screen_correction = screen_correction(result.candidates);
  result.simulate_wall_s = seconds_since(simulate_start);

  std::stable_sort(result.candidates.begin(), result.candidates.end(), [](const PlanCandidate& a, const PlanCandidate& b) {
    const int ga = rank_group(a), gb = rank_group(b);
    if (ga != gb) return ga < gb;
    return a.outcome().cost_usd < b.outcome().cost_usd;
  });
  std::vector<std::size_t> simulated;
  std::vector<std::vector<double>> points;
  for (std::size_t i = 0; i < result.candidates.size(); ++i) {
    const PlanCandidate& c = result.candidates[i];
    if (!c.simulated || c.status != "ok") continue;
    simulated.push_back(i);
    points.push_back({c.outcome().time_to_train_s, c.outcome().cost_usd, c.outcome().energy_kwh});
  }
  for (std::size_t f : pareto_front(points)) result.pareto.push_back(simulated[f]);
  std::sort(result.pareto.begin(), result.pareto.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(result.candidates[a].outcome().time_to_train_s, a) < std::tie(result.candidates[b].outcome().time_to_train_s, b);
  });
  return result;
}

}  // namespace hpcsim
