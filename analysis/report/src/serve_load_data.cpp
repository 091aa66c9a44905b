#include "report/serve_load_data.h"

#include <map>
#include <optional>
#include <utility>

#include "configs/yaml_text.h"
#include "figure_lines.h"

namespace hpcsim {

using report_detail::FlatConfig;

namespace {

struct Draft {
  FlatConfig config;                   // the scenario without serving.rate_rps
  std::map<double, ServeLoadPoint> by_rate;  // the latest run at each rate
};

// The scenario of a stored run without its rate, or nullopt when its text does not parse.
std::optional<ConfigNode> without_rate(const StoredRun& run, std::optional<double>* rate) {
  std::optional<ConfigNode> root = report_detail::stored_scenario(run);
  if (!root) return std::nullopt;
  if (ConfigNode* s = root->find("serving"); s != nullptr && s->is_map()) {
    if (const ConfigNode* r = s->find("rate_rps"); r != nullptr && r->is_scalar()) {
      try {
        *rate = std::stod(r->text());
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
    s->erase("rate_rps");
  }
  return root;
}

}  // namespace

ServeLoadFigure serve_load_figure(const std::vector<StoredRun>& runs, const std::vector<std::vector<Metric>>& metrics) {
  std::vector<Draft> drafts;
  std::map<std::string, std::size_t> draft_of;  // scenario text without the rate -> draft (runs at one rate each)
  const auto draft_for = [&](const ConfigNode& shared, const std::string& key) -> Draft& {
    const auto [it, added] = draft_of.emplace(key, drafts.size());
    if (added) {
      drafts.emplace_back();
      report_detail::flatten(shared, "", drafts.back().config);
    }
    return drafts[it->second];
  };
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].kind != "serve" || runs[i].status != "ok") continue;
    std::optional<double> rate;
    const std::optional<ConfigNode> shared = without_rate(runs[i], &rate);
    if (!shared) continue;
    const std::vector<Metric>& m = metrics[i];
    if (metric_value(m, "sweep.rate_rps[0]")) {
      // A --sweep-load run is a line of its own: its rates as parallel arrays sweep.NAME[k].
      Draft& d = draft_for(*shared, "run " + std::to_string(runs[i].id) + "\n" + to_yaml_text(*shared));
      for (std::size_t k = 0;; ++k) {
        const std::string at = report_detail::array_index(k);
        const auto r = metric_value(m, "sweep.rate_rps" + at);
        const auto p99 = metric_value(m, "sweep.latency_p99_s" + at);
        if (!r || !p99) break;
        d.by_rate[*r] = {runs[i].id, *r, metric_value(m, "sweep.latency_p50_s" + at).value_or(0.0), *p99,
                         metric_value(m, "sweep.throughput_rps" + at).value_or(0.0),
                         metric_value(m, "sweep.dropped" + at).value_or(0.0)};
      }
      continue;
    }
    const auto p99 = metric_value(m, "latency_s.p99");
    if (!rate || !p99 || *rate <= 0) continue;  // offline, a closed loop or a trace at its own times: no offered rate
    Draft& d = draft_for(*shared, to_yaml_text(*shared));
    d.by_rate[*rate] = {runs[i].id, *rate, metric_value(m, "latency_s.p50").value_or(0.0), *p99,
                        metric_value(m, "throughput_rps").value_or(0.0), metric_value(m, "dropped").value_or(0.0)};
  }
  std::erase_if(drafts, [](const Draft& d) { return d.by_rate.size() < 2; });

  ServeLoadFigure figure;
  std::vector<const FlatConfig*> configs;
  for (const Draft& d : drafts) configs.push_back(&d.config);
  const std::vector<std::string> labels = report_detail::line_labels(configs, figure.legend_title);
  for (std::size_t l = 0; l < drafts.size(); ++l) {
    ServeLoadLine line{labels[l], {}};
    for (const auto& [rate, p] : drafts[l].by_rate) line.points.push_back(p);
    figure.lines.push_back(std::move(line));
  }
  return figure;
}

}  // namespace hpcsim
