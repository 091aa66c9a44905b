#include "report/report_data.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <string_view>
#include <utility>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/yaml_text.h"
#include "report/report_csv.h"
#include "figure_lines.h"

namespace hpcsim {

using report_detail::FlatConfig;
using report_detail::find_value;
using report_detail::flatten;

namespace {

// The keys that set a training run's GPU count (what `run --scale` and a nodes sweep vary): runs that
// differ only in these are points of one scaling line.
constexpr std::string_view kGpuCountKeys[][2] = {
    {"cluster", "nodes"}, {"cluster", "gpus_per_node"}, {"parallelism", "dp"}};

// When no study holds training runs, the breakdown shows the latest this many runs.
constexpr std::size_t kMaxLooseBars = 12;

bool is_ok_training(const StoredRun& run) { return run.kind == "training" && run.status == "ok"; }

// The scenario with its GPU-count keys removed, or nullopt when the stored text does not parse.
std::optional<ConfigNode> scenario_without_gpu_count(const StoredRun& run) {
  std::optional<ConfigNode> root = report_detail::stored_scenario(run);
  if (!root) return std::nullopt;
  for (const auto& [section, key] : kGpuCountKeys)
    if (ConfigNode* s = root->find(section); s != nullptr && s->is_map()) s->erase(key);
  return root;
}

struct LineDraft {
  FlatConfig config;                        // the shared scenario, GPU count removed
  std::map<double, std::size_t> by_gpus;    // GPU count -> index of the latest run
};

// A study point's values ({"cluster.network": "ib-hdr", ...}, JSON and so YAML) as "network=ib-hdr, ...":
// the last part of each key is enough under a bar.
std::string point_label(const std::string& values_json) {
  FlatConfig values;
  try {
    const ConfigNode root = parse_config_text(values_json, "study point");
    if (root.is_map())
      for (const ConfigNode::Entry& e : root.entries()) values.emplace_back(e.key, e.value.is_scalar() ? e.value.text() : "");
  } catch (const ConfigError&) {
    return values_json;
  }
  std::string label;
  for (const auto& [k, v] : values) {
    const std::size_t dot = k.rfind('.');
    label += (label.empty() ? "" : ", ") + (dot == std::string::npos ? k : k.substr(dot + 1)) + "=" + v;
  }
  return label;
}

std::optional<BreakdownBar> breakdown_bar(const StoredRun& run, const std::vector<Metric>& metrics, std::string label) {
  const auto step = metric_value(metrics, "step_time_s");
  if (!is_ok_training(run) || !step) return std::nullopt;
  const auto part = [&](const char* name) { return metric_value(metrics, name).value_or(0.0); };
  return BreakdownBar{run.id,
                      std::move(label),
                      *step,
                      part("breakdown_s.compute"),
                      part("breakdown_s.communication_exposed"),
                      part("breakdown_s.optimizer"),
                      part("breakdown_s.pipeline_bubble"),
                      part("breakdown_s.io_stall"),
                      part("breakdown_s.other")};
}

// The bars of the study with the most ok training points (the latest on a tie), in point order; without
// one, the latest training runs.
BreakdownFigure breakdown_figure(const ResultsStore& store, const std::vector<StoredRun>& runs,
                                 const std::vector<std::vector<Metric>>& metrics) {
  std::map<std::int64_t, std::size_t> index_of;
  for (std::size_t i = 0; i < runs.size(); ++i) index_of[runs[i].id] = i;
  BreakdownFigure best;
  for (const StoredStudy& study : store.studies()) {
    BreakdownFigure figure{"study " + std::to_string(study.id) + ": " + study.name, {}};
    for (const StoredStudyPoint& p : store.study_points(study.id)) {
      if (!p.run_id || !index_of.count(*p.run_id)) continue;
      const std::size_t i = index_of[*p.run_id];
      if (auto bar = breakdown_bar(runs[i], metrics[i], point_label(p.values_json))) figure.bars.push_back(*bar);
    }
    if (!figure.bars.empty() && figure.bars.size() >= best.bars.size()) best = std::move(figure);
  }
  if (!best.bars.empty()) return best;
  best.source = "the latest training runs";
  for (std::size_t i = runs.size(); i-- > 0 && best.bars.size() < kMaxLooseBars;)
    if (auto bar = breakdown_bar(runs[i], metrics[i], "run " + std::to_string(runs[i].id))) best.bars.push_back(*bar);
  std::reverse(best.bars.begin(), best.bars.end());
  return best;
}

}  // namespace

ScalingFigure scaling_figure(const std::vector<StoredRun>& runs, const std::vector<std::vector<Metric>>& metrics) {
  std::vector<LineDraft> drafts;
  std::map<std::string, std::size_t> draft_of;  // scenario text without GPU count -> draft
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto gpus = metric_value(metrics[i], "gpus");
    const auto samples = metric_value(metrics[i], "throughput.samples_per_s");
    if (!is_ok_training(runs[i]) || !gpus || !samples || *gpus <= 0.0 || *samples <= 0.0) continue;
    const std::optional<ConfigNode> shared = scenario_without_gpu_count(runs[i]);
    if (!shared) continue;
    const auto [it, added] = draft_of.emplace(to_yaml_text(*shared), drafts.size());
    if (added) {
      drafts.emplace_back();
      flatten(*shared, "", drafts.back().config);
    }
    drafts[it->second].by_gpus[*gpus] = i;  // runs come by id, so the latest run of a GPU count wins
  }
  std::erase_if(drafts, [](const LineDraft& d) { return d.by_gpus.size() < 2; });

  ScalingFigure figure;
  std::vector<const FlatConfig*> configs;
  for (const LineDraft& d : drafts) configs.push_back(&d.config);
  const std::vector<std::string> labels = report_detail::line_labels(configs, figure.legend_title);
  for (std::size_t l = 0; l < drafts.size(); ++l) {
    const LineDraft& d = drafts[l];
    ScalingLine line{labels[l], {}};
    for (const auto& [gpus, i] : d.by_gpus) {
      ScalingLinePoint p{runs[i].id, gpus, *metric_value(metrics[i], "throughput.samples_per_s"),
                     metric_value(metrics[i], "throughput.tokens_per_s"), 1.0};
      const ScalingLinePoint& base = line.points.empty() ? p : line.points.front();
      p.scaling_efficiency = (p.samples_per_s / p.gpus) / (base.samples_per_s / base.gpus);
      line.points.push_back(p);
    }
    figure.lines.push_back(std::move(line));
  }
  return figure;
}

namespace {

// Item `index` of the plan text's list hardware.KEY as a name: a scalar, or a map's `name_key` entry.
std::optional<std::string> plan_hardware_name(const ConfigNode* hardware, const char* key, const char* name_key,
                                              std::optional<double> index) {
  if (hardware == nullptr || !hardware->is_map() || !index || *index < 0) return std::nullopt;
  const ConfigNode* list = hardware->find(key);
  if (list == nullptr || !list->is_sequence() || *index >= static_cast<double>(list->items().size())) return std::nullopt;
  const ConfigNode& item = list->items()[static_cast<std::size_t>(*index)];
  if (item.is_scalar()) return item.text();
  if (const ConfigNode* name = item.is_map() ? item.find(name_key) : nullptr; name != nullptr && name->is_scalar()) {
    return name->text();
  }
  return std::nullopt;
}

// "128 x dgx-h100, ib-ndr, tp 8 pp 8 dp 16" (with a file system after the network when the plan searched them)
// from front point `at`'s metrics and the plan's text.
std::string pareto_label(const StoredRun& run, const std::vector<Metric>& metrics, const std::string& at) {
  const std::optional<ConfigNode> plan = report_detail::stored_scenario(run);
  const ConfigNode* hardware = plan ? plan->find("hardware") : nullptr;
  const auto count = [&](const char* name) -> std::string {
    const auto v = metric_value(metrics, std::string("pareto.") + name + at);
    return v ? csv_number(*v) : "?";
  };
  std::string label = count("nodes") + " x ";
  label += plan_hardware_name(hardware, "nodes", "node", metric_value(metrics, "pareto.node_index" + at)).value_or("nodes");
  if (auto network = plan_hardware_name(hardware, "networks", "network", metric_value(metrics, "pareto.network_index" + at))) {
    label += ", " + *network;
  }
  // A plan that searches file systems stores each point's (pareto.filesystem_index).
  if (auto fs = plan_hardware_name(hardware, "filesystems", "filesystem", metric_value(metrics, "pareto.filesystem_index" + at))) {
    label += ", " + *fs;
  }
  return label + ", tp " + count("tp") + " pp " + count("pp") + " dp " + count("dp");
}

}  // namespace

std::vector<ParetoRow> pareto_rows(const std::vector<StoredRun>& runs, const std::vector<std::vector<Metric>>& metrics) {
  for (std::size_t i = runs.size(); i-- > 0;) {
    if (runs[i].kind != "plan" || runs[i].status != "ok") continue;
    std::vector<ParetoRow> rows;
    for (std::size_t k = 0;; ++k) {
      // hpcsim plan stores the front as parallel arrays: pareto.time_to_train_s[k], pareto.cost_usd[k], ...
      const std::string at = report_detail::array_index(k);
      const auto time = metric_value(metrics[i], "pareto.time_to_train_s" + at);
      const auto cost = metric_value(metrics[i], "pareto.cost_usd" + at);
      const auto energy = metric_value(metrics[i], "pareto.energy_kwh" + at);
      if (!time || !cost) break;
      rows.push_back({runs[i].id, *time, *cost, energy, pareto_label(runs[i], metrics[i], at)});
    }
    return rows;
  }
  return {};
}

IntervalFigure interval_figure(const std::vector<StoredRun>& runs, const std::vector<std::vector<Metric>>& metrics) {
  struct Group {
    std::string name;
    std::map<double, std::size_t> by_interval;  // interval -> index of the latest run
    std::size_t latest = 0;
  };
  std::vector<Group> groups;
  std::map<std::string, std::size_t> group_of;  // scenario text without the interval -> group
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto interval = metric_value(metrics[i], "resilience.checkpoint.interval_s");
    if (!is_ok_training(runs[i]) || !interval || !metric_value(metrics[i], "resilience.time_to_train_s.mean")) continue;
    std::optional<ConfigNode> root = report_detail::stored_scenario(runs[i]);
    if (!root) continue;
    if (ConfigNode* r = root->find("resilience"); r != nullptr && r->is_map())
      if (ConfigNode* c = r->find("checkpoint"); c != nullptr && c->is_map()) c->erase("interval");
    const auto [it, added] = group_of.emplace(to_yaml_text(*root), groups.size());
    if (added) {
      const ConfigNode* name = root->find("name");
      groups.push_back({name != nullptr && name->is_scalar() ? name->text() : "run " + std::to_string(runs[i].id), {}, i});
    }
    groups[it->second].by_interval[*interval] = i;  // runs come by id: the latest run of an interval wins
    groups[it->second].latest = i;
  }
  const Group* best = nullptr;
  for (const Group& g : groups)
    if (g.by_interval.size() >= 2 && (best == nullptr || g.by_interval.size() > best->by_interval.size() ||
                                      (g.by_interval.size() == best->by_interval.size() && g.latest > best->latest)))
      best = &g;
  IntervalFigure figure;
  if (best == nullptr) return figure;
  figure.label = best->name;
  const auto value = [&](std::size_t i, const char* name) { return metric_value(metrics[i], name).value_or(0.0); };
  figure.young_s = value(best->latest, "resilience.checkpoint.young_interval_s");
  figure.daly_s = value(best->latest, "resilience.checkpoint.daly_interval_s");
  for (const auto& [interval, i] : best->by_interval)
    figure.points.push_back({runs[i].id, interval, value(i, "resilience.time_to_train_s.mean"),
                             value(i, "resilience.time_to_train_s.p5"), value(i, "resilience.time_to_train_s.p95"),
                             value(i, "resilience.ettr"), value(i, "resilience.lost_s.checkpoint"),
                             value(i, "resilience.lost_s.recompute")});
  return figure;
}

ReportData collect_report_data(const ResultsStore& store) {
  ReportData data;
  const std::vector<StoredRun> runs = store.runs();
  std::vector<std::vector<Metric>> metrics;
  for (const StoredRun& r : runs) metrics.push_back(store.metrics(r.id));
  data.scaling = scaling_figure(runs, metrics);
  data.app_scaling = app_scaling_figure(runs, metrics);
  data.serve_load = serve_load_figure(runs, metrics);
  data.replay_time = replay_time_figure(runs, metrics);
  data.breakdown = breakdown_figure(store, runs, metrics);
  data.pareto = pareto_rows(runs, metrics);
  data.interval = interval_figure(runs, metrics);
  std::map<std::int64_t, std::string> points_of;  // run id -> the study points it is linked to
  for (const StoredStudy& study : store.studies()) {
    for (const StoredStudyPoint& p : store.study_points(study.id)) {
      if (!p.run_id) continue;
      std::string& at = points_of[*p.run_id];
      at += (at.empty() ? "" : "; ") + ("study " + std::to_string(study.id) + ": " + point_label(p.values_json));
    }
  }
  for (std::size_t i = 0; i < runs.size(); ++i)
    data.runs.push_back({runs[i], metric_value(metrics[i], "gpus"), metric_value(metrics[i], "step_time_s"),
                         metric_value(metrics[i], "throughput.samples_per_s"), points_of[runs[i].id]});
  return data;
}

}  // namespace hpcsim
