#include "report/app_scaling_data.h"

#include <cmath>
#include <map>
#include <string_view>
#include <utility>

#include "configs/yaml_text.h"
#include "figure_lines.h"

namespace hpcsim {

using report_detail::FlatConfig;

namespace {

// Keys that follow the node count (a sweep over nodes sets them with it) and the problem size: runs that
// differ only in these are points of one line. The size keys are listed apart so a line can be split by size.
constexpr std::string_view kNodeKeys[][2] = {{"cluster", "nodes"}, {"mpi", "ranks"}, {"workload", "p"}, {"workload", "q"}};
constexpr std::string_view kSizeKeys[] = {"n", "grid", "class"};  // of workload: HPL, stencil, NPB

// Work (GFLOP/s x time) that agrees to this relative tolerance counts as the same: HPCG's work per rank grows
// slightly with the global grid (fewer of its rows are on the boundary, where rows have fewer nonzeros), and a
// weak-scaling study of it is still one.
constexpr double kSameWork = 0.05;

// A size value as a legend shows it: a scalar as written, a list as [a, b, c].
std::string size_text(const ConfigNode& v) {
  if (!v.is_sequence()) return v.is_scalar() ? v.text() : to_yaml_text(v);
  std::string out = "[";
  for (std::size_t i = 0; i < v.items().size(); ++i) out += (i ? ", " : "") + size_text(v.items()[i]);
  return out + "]";
}

struct Parsed {
  ConfigNode shared;  // without the node keys and the size
  std::string size;   // the size keys and values ("grid [512, 512, 512]"; "" when the scenario gives none)
  std::string app;
};

std::optional<Parsed> parse_run(const StoredRun& run) {
  std::optional<ConfigNode> root = report_detail::stored_scenario(run);
  if (!root) return std::nullopt;
  for (const auto& [section, key] : kNodeKeys)
    if (ConfigNode* s = root->find(section); s != nullptr && s->is_map()) s->erase(key);
  Parsed p;
  if (ConfigNode* w = root->find("workload"); w != nullptr && w->is_map()) {
    if (const ConfigNode* app = w->find("app"); app != nullptr && app->is_scalar()) p.app = app->text();
    for (std::string_view key : kSizeKeys) {
      if (const ConfigNode* v = w->find(std::string(key)))
        p.size += (p.size.empty() ? "" : ", ") + std::string(key) + " " + size_text(*v);
      w->erase(std::string(key));
    }
  }
  p.shared = std::move(*root);
  return p;
}

struct Draft {
  FlatConfig config;                                 // the shared scenario (with the size when split by it)
  std::string app;
  std::map<double, std::map<std::string, std::size_t>> by_nodes;  // nodes -> size -> latest run index
};

std::string scaling_kind(const std::vector<AppScalingPoint>& points) {
  bool strong = true, weak = true;
  const AppScalingPoint& base = points.front();
  if (!base.gflops) return "unknown";
  const double work = *base.gflops * base.time_s;
  for (const AppScalingPoint& p : points) {
    if (!p.gflops) return "unknown";
    const double w = *p.gflops * p.time_s;
    strong = strong && std::fabs(w - work) <= kSameWork * work;
    weak = weak && std::fabs(w / p.nodes - work / base.nodes) <= kSameWork * work / base.nodes;
  }
  return strong ? "strong" : weak ? "weak" : "size varies";
}

}  // namespace

AppScalingFigure app_scaling_figure(const std::vector<StoredRun>& runs, const std::vector<std::vector<Metric>>& metrics) {
  std::vector<Draft> drafts;
  std::map<std::string, std::size_t> draft_of;  // shared scenario text -> draft
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto nodes = metric_value(metrics[i], "placement.nodes");
    const auto time = metric_value(metrics[i], "time_s");
    if (runs[i].kind != "mpi" || runs[i].status != "ok" || !nodes || !time || *nodes <= 0 || *time <= 0) continue;
    std::optional<Parsed> parsed = parse_run(runs[i]);
    if (!parsed) continue;
    const auto [it, added] = draft_of.emplace(to_yaml_text(parsed->shared), drafts.size());
    if (added) {
      drafts.emplace_back();
      report_detail::flatten(parsed->shared, "", drafts.back().config);
      drafts.back().app = parsed->app;
    }
    drafts[it->second].by_nodes[*nodes][parsed->size] = i;  // runs come by id: the latest of a count and size wins
  }
  // A draft that ran one node count at several sizes is several strong-scaling lines, one per size; otherwise
  // each node count has one size and the draft is one line (weak scaling when the size grows with the nodes).
  std::vector<std::pair<Draft, std::map<double, std::size_t>>> lines;
  for (Draft& d : drafts) {
    bool split = false;
    for (const auto& [nodes, sizes] : d.by_nodes) split = split || sizes.size() > 1;
    if (!split) {
      std::map<double, std::size_t> points;
      for (const auto& [nodes, sizes] : d.by_nodes) points[nodes] = sizes.begin()->second;
      lines.emplace_back(std::move(d), std::move(points));
      continue;
    }
    std::map<std::string, std::map<double, std::size_t>> by_size;
    for (const auto& [nodes, sizes] : d.by_nodes)
      for (const auto& [size, i] : sizes) by_size[size][nodes] = i;
    for (auto& [size, points] : by_size) {
      Draft one{d.config, d.app, {}};
      one.config.emplace_back("workload size", size.empty() ? "default" : size);
      lines.emplace_back(std::move(one), std::move(points));
    }
  }
  std::erase_if(lines, [](const auto& l) { return l.second.size() < 2; });

  AppScalingFigure figure;
  std::vector<const FlatConfig*> configs;
  for (const auto& l : lines) configs.push_back(&l.first.config);
  const std::vector<std::string> labels = report_detail::line_labels(configs, figure.legend_title, {"workload size"});
  for (std::size_t l = 0; l < lines.size(); ++l) {
    const auto& [draft, by_nodes] = lines[l];
    AppScalingLine line{labels[l], "", draft.app, {}};
    for (const auto& [nodes, i] : by_nodes) {
      AppScalingPoint p{runs[i].id, nodes, *metric_value(metrics[i], "time_s"), metric_value(metrics[i], "gflops"), {}};
      if (p.gflops && *p.gflops <= 0) p.gflops.reset();
      line.points.push_back(p);
    }
    const AppScalingPoint& base = line.points.front();
    bool rated = true;
    for (const AppScalingPoint& p : line.points) rated = rated && p.gflops.has_value();
    if (rated)
      for (AppScalingPoint& p : line.points) p.efficiency = (*p.gflops / p.nodes) / (*base.gflops / base.nodes);
    line.scaling = scaling_kind(line.points);
    figure.lines.push_back(std::move(line));
  }
  return figure;
}

}  // namespace hpcsim
