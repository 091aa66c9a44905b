#include "report/replay_time_data.h"

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "figure_lines.h"

namespace hpcsim {

using report_detail::FlatConfig;

namespace {

// More bars than this would not read as bars; the latest ones are the ones a what-if just stored.
constexpr std::size_t kMaxReplayBars = 12;

// A replay's stored settings (replay.trace, replay.platform, replay.collectives, ...) without the file hashes,
// which differ exactly when the paths' contents do and would only crowd a label.
FlatConfig replay_settings(const StoredRun& run) {
  FlatConfig flat;
  if (const std::optional<ConfigNode> root = report_detail::stored_scenario(run)) report_detail::flatten(*root, "", flat);
  std::erase_if(flat, [](const auto& kv) {
    const std::string_view key = kv.first;
    return key == "kind" || key == "name" || (key.size() >= 5 && key.substr(key.size() - 5) == "_hash");
  });
  return flat;
}

}  // namespace

ReplayTimeFigure replay_time_figure(const std::vector<StoredRun>& runs, const std::vector<std::vector<Metric>>& metrics) {
  std::vector<std::size_t> chosen;  // indices into runs, latest first
  for (std::size_t i = runs.size(); i-- > 0 && chosen.size() < kMaxReplayBars;) {
    if (runs[i].kind != "replay" || runs[i].status != "ok") continue;
    if (!metric_value(metrics[i], "time_s") || !metric_value(metrics[i], "mean_rank.compute_s")) continue;
    chosen.push_back(i);
  }
  std::reverse(chosen.begin(), chosen.end());

  ReplayTimeFigure figure;
  std::vector<FlatConfig> settings;
  for (const std::size_t i : chosen) settings.push_back(replay_settings(runs[i]));
  std::vector<const FlatConfig*> configs;
  for (const FlatConfig& s : settings) configs.push_back(&s);
  std::vector<std::string> labels;
  if (configs.size() == 1) {
    // One bar: name what was replayed on what.
    const std::vector<std::string> keys = {"replay.trace", "replay.platform"};
    labels.push_back(report_detail::label_of(*configs[0], keys));
    figure.label_keys = "replay.trace, replay.platform";
  } else if (!configs.empty()) {
    labels = report_detail::line_labels(configs, figure.label_keys, {"replay.trace", "replay.platform"});
  }
  for (std::size_t b = 0; b < chosen.size(); ++b) {
    const std::size_t i = chosen[b];
    const std::vector<Metric>& m = metrics[i];
    const auto value = [&](const char* name) { return metric_value(m, name).value_or(0.0); };
    ReplayTimeBar bar;
    bar.run_id = runs[i].id;
    // Replays that differ in nothing the store keeps (the same one run twice) are told apart by their run.
    bar.label = figure.label_keys.empty() ? "run " + std::to_string(runs[i].id) : labels[b];
    bar.time_s = value("time_s");
    bar.ranks = value("ranks");
    bar.compute_s = value("mean_rank.compute_s");
    bar.communication_s = value("mean_rank.communication_s");
    bar.waiting_s = value("mean_rank.waiting_s");
    if (metric_value(m, "critical_path.compute_s"))
      bar.critical_path = ReplayTimeBar::Path{value("critical_path.compute_s"), value("critical_path.communication_s"),
                                              value("critical_path.other_s")};
    figure.bars.push_back(std::move(bar));
  }
  return figure;
}

}  // namespace hpcsim
