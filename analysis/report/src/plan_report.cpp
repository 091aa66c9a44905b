#include "report/plan_report.h"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <string_view>

#include "configs/json_writer.h"
#include "report_format.h"

namespace hpcsim {

namespace {

using json::quote;

constexpr double kGiB = 1024.0 * 1024 * 1024;

std::string num(double v) { return json::number(v, 9); }

std::string layout_text(const PlanSpec& plan, const ScreenLayout& l) {
  return "dp " + std::to_string(l.dp) + " tp " + std::to_string(l.tp) + " pp " + std::to_string(l.pp) + " mb " +
         std::to_string(l.micro_batch) + "x" + std::to_string(l.microbatches) + " zero " + std::to_string(l.zero) +
         (l.pp > 1 ? std::string(" ").append(kPipelineScheduleNames.name(plan.schedule)) : std::string());
}

std::string candidate_json(const PlanSpec& plan, const PlanCandidate& c, std::size_t rank) {
  const PlanOutcome& o = c.outcome();
  const ScreenLayout& l = c.layout;
  const PlanNode& node = plan.nodes[c.node];
  std::ostringstream s;
  s << "{\"rank\": " << rank << ", \"node\": " << quote(node.spec.name) << ", \"nodes\": " << l.nodes
    << ", \"gpus\": " << l.nodes * node.spec.gpus << ", \"network\": " << quote(plan.networks[c.network].spec.name);
  if (const PlanFileSystem* fs = candidate_filesystem(plan, c)) s << ", \"filesystem\": " << quote(fs->spec.name);
  s
    << ", \"parallelism\": {\"dp\": " << l.dp << ", \"tp\": " << l.tp << ", \"pp\": " << l.pp
    << ", \"micro_batch\": " << l.micro_batch << ", \"microbatches\": " << l.microbatches << ", \"zero\": " << l.zero
    << ", \"schedule\": " << quote(std::string(kPipelineScheduleNames.name(plan.schedule))) << "}"
    << ", \"time_to_train_s\": " << num(o.time_to_train_s) << ", \"cost_usd\": " << num(o.cost_usd)
    << ", \"energy_kwh\": " << num(o.energy_kwh) << ", \"step_time_s\": " << num(o.step_s)
    << ", \"power_kw\": " << num(o.power_kw) << ", \"gpu_activity\": " << num(o.gpu_activity)
    << ", \"io_stall_s\": " << num(o.io_stall_s)
    << ", \"memory_per_gpu_gib\": " << num(c.screen.memory_per_gpu_bytes / kGiB)
    << ", \"screened_time_to_train_s\": " << num(c.screened.time_to_train_s)
    << ", \"screened_cost_usd\": " << num(c.screened.cost_usd)
    << ", \"simulated\": " << (c.simulated ? "true" : "false") << ", \"source\": \""
    << (c.simulated ? "simulation" : "screen") << "\", \"status\": " << quote(c.status)
    << ", \"meets_constraints\": " << (c.meets_constraints ? "true" : "false")
    << ", \"message\": " << quote(c.message);
  if (o.ettr) s << ", \"ettr\": " << num(*o.ettr) << ", \"failure_free_time_to_train_s\": " << num(o.failure_free_s);
  s << "}";
  return s.str();
}

// The network column, with the file system after it when the plan searches file systems.
std::string network_columns(const std::string& network, const std::string* filesystem) {
  char buf[96];
  if (filesystem) {
    std::snprintf(buf, sizeof buf, "%-10s %-16s", network.c_str(), filesystem->c_str());
  } else {
    std::snprintf(buf, sizeof buf, "%-10s", network.c_str());
  }
  return buf;
}

std::string network_text(const PlanSpec& plan, const PlanCandidate& c) {
  const PlanFileSystem* fs = candidate_filesystem(plan, c);
  return network_columns(plan.networks[c.network].spec.name, fs ? &fs->spec.name : nullptr);
}

std::string row(const PlanSpec& plan, const PlanCandidate& c, std::size_t rank) {
  const PlanOutcome& o = c.outcome();
  char buf[360];
  std::snprintf(buf, sizeof buf, "%4zu  %-14s %5d  %s %-38s %9.1f %14.0f %12.0f  %-10s %s\n", rank,
                plan.nodes[c.node].spec.name.c_str(), c.layout.nodes, network_text(plan, c).c_str(),
                layout_text(plan, c.layout).c_str(), o.time_to_train_s / 3600.0, o.cost_usd, o.energy_kwh,
                c.simulated ? c.status.c_str() : "screened", c.meets_constraints ? "yes" : "no");
  if (o.ettr) return std::string(buf, std::strlen(buf) - 1) + report_format::format("  ETTR %.1f %%\n", 100 * *o.ettr);
  return buf;
}

std::string header(const PlanSpec& plan) {
  char buf[360];
  const std::string title = "file system";
  const std::string network = network_columns("network", plan.filesystems.empty() ? nullptr : &title);
  std::snprintf(buf, sizeof buf, "%4s  %-14s %5s  %s %-38s %9s %14s %12s  %-10s %s\n", "rank", "node", "nodes",
                network.c_str(), "parallelism", "time (h)", "cost (USD)", "energy (kWh)", "source", "meets");
  return buf;
}

}  // namespace

std::string plan_rates(const PlanResult& r) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "screened %d configurations in %.3f s (%.0f/s); simulated %d in %.2f s (%.2f/s)",
                r.screened(), r.screen_wall_s, r.screen_wall_s > 0 ? r.screened() / r.screen_wall_s : 0.0, r.simulated(),
                r.simulate_wall_s, r.simulate_wall_s > 0 ? r.simulated() / r.simulate_wall_s : 0.0);
  return buf;
}

std::string plan_to_json(const PlanSpec& plan, const PlanResult& r) {
  std::ostringstream s;
  s << "{\"plan\": " << quote(plan.name) << ",\n \"candidates\": [";
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    s << (i ? ",\n  " : "\n  ") << candidate_json(plan, r.candidates[i], i + 1);
  }
  s << "\n ],\n \"pareto\": [";
  for (std::size_t i = 0; i < r.pareto.size(); ++i) {
    s << (i ? ",\n  " : "\n  ") << candidate_json(plan, r.candidates[r.pareto[i]], r.pareto[i] + 1);
  }
  // Wall times are left out so that the same plan prints the same JSON.
  s << "\n ],\n \"figures\": {\"screened\": " << r.screened() << ", \"simulated\": " << r.simulated()
    << ", \"screen_correction\": " << num(r.screen_correction) << ", \"invalid_layouts\": " << r.invalid_layouts << ", \"unbuildable_networks\": " << r.unbuildable_networks
    << "}}\n";
  return s.str();
}

std::string plan_to_table(const PlanSpec& plan, const PlanResult& r) {
  std::ostringstream s;
  s << "capacity plan " << plan.name << ": " << r.screened() << " configurations screened, " << r.simulated()
    << " simulated in full (" << r.invalid_layouts << " layout combinations not valid for the model); simulated steps "
    << "took " << report_format::format("%.2f", r.screen_correction) << "x the screen's estimate (median)\n";
  s << "constraints:";
  if (plan.max_time_to_train_s) s << " time to train <= " << num(*plan.max_time_to_train_s / 3600.0) << " h";
  if (plan.budget_usd) s << " cost <= " << num(*plan.budget_usd) << " USD";
  if (plan.max_energy_kwh) s << " energy <= " << num(*plan.max_energy_kwh) << " kWh";
  if (!plan.max_time_to_train_s && !plan.budget_usd && !plan.max_energy_kwh) s << " none";
  s << "; pricing " << (plan.pricing == Pricing::cloud ? "cloud on-demand" : "purchase, amortized") << ", PUE " << num(plan.pue) << "\n";
  bool example = false;
  for (const PlanNode& n : plan.nodes) example = example || n.price.example;
  if (example) s << "note: some prices are marked as examples in configs/prices, not sourced list prices\n";
  if (!plan.filesystems.empty()) {
    s << "file systems: the workload's data is read from the configuration's file system and its checkpoints written "
         "to it; its price_per_hour is in the cost";
    bool unpriced = false;
    for (const PlanFileSystem& f : plan.filesystems) unpriced = unpriced || f.usd_per_hour == 0;
    if (unpriced) s << " (a file system without one costs nothing here)";
    s << "\n";
  }
  if (plan.resilience) {
    s << "with failures (resilience: section): a simulated configuration's time to train, cost and energy are the "
         "mean of its whole run with failures, checkpoints and restarts (ETTR: failure-free time / that); the "
         "screen ignores failures\n";
  }

  s << "\ncheapest configurations that meet the constraints (simulated in full):\n" << header(plan);
  int shown = 0;
  for (std::size_t i = 0; i < r.candidates.size() && shown < plan.top; ++i) {
    const PlanCandidate& c = r.candidates[i];
    if (!c.simulated || c.status != "ok" || !c.meets_constraints) continue;
    s << row(plan, c, i + 1);
    ++shown;
  }
  if (shown == 0) s << "  none of the simulated configurations meets the constraints\n";

  s << "\nPareto front: time to train against cost and energy (simulated in full):\n" << header(plan);
  for (std::size_t i : r.pareto) s << row(plan, r.candidates[i], i + 1);

  int failed = 0;
  for (const PlanCandidate& c : r.candidates) failed += c.simulated && c.status != "ok";
  if (failed > 0) {
    s << "\nsimulated but not usable:\n";
    for (std::size_t i = 0; i < r.candidates.size(); ++i) {
      const PlanCandidate& c = r.candidates[i];
      if (c.simulated && c.status != "ok") s << row(plan, c, i + 1) << "      " << c.status << ": " << c.message << "\n";
    }
  }
  return s.str();
}

RunRecord plan_record(const PlanSpec& plan, const PlanResult& r, std::string plan_text, std::string tool_version,
                      double wall_s) {
  RunRecord record;
  record.report.scenario = plan.name;
  record.report.kind = "plan";
  std::vector<Metric>& m = record.report.metrics;
  m.push_back({"candidates.screened", static_cast<double>(r.screened()), "count"});
  m.push_back({"candidates.simulated", static_cast<double>(r.simulated()), "count"});
  m.push_back({"rates.screened_per_s", r.screen_wall_s > 0 ? r.screened() / r.screen_wall_s : 0.0, "1/s"});
  m.push_back({"rates.simulated_per_s", r.simulate_wall_s > 0 ? r.simulated() / r.simulate_wall_s : 0.0, "1/s"});
  for (const PlanCandidate& c : r.candidates) {
    if (!c.simulated || c.status != "ok" || !c.meets_constraints) continue;
    m.push_back({"cheapest.time_to_train_s", c.outcome().time_to_train_s, "s"});
    m.push_back({"cheapest.cost_usd", c.outcome().cost_usd, "USD"});
    m.push_back({"cheapest.energy_kwh", c.outcome().energy_kwh, "kWh"});
    m.push_back({"cheapest.gpus", static_cast<double>(c.layout.nodes * plan.nodes[c.node].spec.gpus), "count"});
    break;
  }
  struct Column {
    const char* name;
    const char* unit;
    double (*get)(const PlanSpec&, const PlanCandidate&);
  };
  static const Column columns[] = {
      {"time_to_train_s", "s", [](const PlanSpec&, const PlanCandidate& c) { return c.outcome().time_to_train_s; }},
      {"cost_usd", "USD", [](const PlanSpec&, const PlanCandidate& c) { return c.outcome().cost_usd; }},
      {"energy_kwh", "kWh", [](const PlanSpec&, const PlanCandidate& c) { return c.outcome().energy_kwh; }},
      {"gpus", "count", [](const PlanSpec& p, const PlanCandidate& c) { return double(c.layout.nodes * p.nodes[c.node].spec.gpus); }},
      {"nodes", "count", [](const PlanSpec&, const PlanCandidate& c) { return double(c.layout.nodes); }},
      {"node_index", "count", [](const PlanSpec&, const PlanCandidate& c) { return double(c.node); }},
      {"network_index", "count", [](const PlanSpec&, const PlanCandidate& c) { return double(c.network); }},
      {"filesystem_index", "count", [](const PlanSpec&, const PlanCandidate& c) { return double(c.filesystem); }},
      {"dp", "count", [](const PlanSpec&, const PlanCandidate& c) { return double(c.layout.dp); }},
      {"tp", "count", [](const PlanSpec&, const PlanCandidate& c) { return double(c.layout.tp); }},
      {"pp", "count", [](const PlanSpec&, const PlanCandidate& c) { return double(c.layout.pp); }},
      {"ettr", "ratio", [](const PlanSpec&, const PlanCandidate& c) { return c.outcome().ettr.value_or(-1.0); }},
  };
  // Parallel arrays, one entry per front point in time order (names "pareto.cost_usd[0]", ...).
  for (const Column& col : columns) {
    if (!plan.resilience && std::string_view(col.name) == "ettr") continue;  // failure-free: no ETTR
    if (plan.filesystems.empty() && std::string_view(col.name) == "filesystem_index") continue;
    for (std::size_t i = 0; i < r.pareto.size(); ++i) {
      m.push_back({std::string("pareto.") + col.name + "[" + std::to_string(i) + "]", col.get(plan, r.candidates[r.pareto[i]]),
                   col.unit});
    }
  }
  record.scenario_text = std::move(plan_text);
  record.tool_version = std::move(tool_version);
  record.wall_s = wall_s;
  return record;
}

}  // namespace hpcsim
