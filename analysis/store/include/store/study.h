#pragma once
// A study: one base scenario run at several points, each point a set of values for the varied scenario
// keys (e.g. `run --scale`: cluster.nodes, cluster.gpus_per_node and parallelism.dp per GPU count).
// The results store keeps each point's status and run as it completes (results_store.h).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpcsim {

enum class PointStatus { pending, ok, oom, error };

std::string_view to_string(PointStatus status);
// "pending", "ok", "oom" or "error"; std::nullopt for anything else.
std::optional<PointStatus> point_status_from(std::string_view name);

struct StudyParameter {
  std::string key;                  // a scenario key, dotted as for --set
  std::vector<std::string> values;  // as written in YAML, one per point that sets it
};

struct StudyPoint {
  std::vector<std::pair<std::string, std::string>> values;  // scenario key -> value at this point
  PointStatus status = PointStatus::pending;
  std::optional<std::int64_t> run_id;  // the stored run, once the point completed and was stored
};

struct Study {
  std::string name;
  std::string base_scenario_text;  // the scenario before any point's values; stored by its content hash
  std::vector<StudyParameter> parameters;
  std::vector<StudyPoint> points;
};

// The varied parameters as a JSON object of arrays, {"key": ["v1", "v2"], ...}, in order: how the store
// keeps them.
std::string parameters_json(const std::vector<StudyParameter>& parameters);
// One point's values as a JSON object, {"key": "value", ...}.
std::string point_values_json(const StudyPoint& point);

// The parameters the points vary: every key any point sets, each with its values in point order.
std::vector<StudyParameter> varied_parameters(const std::vector<StudyPoint>& points);

}  // namespace hpcsim
