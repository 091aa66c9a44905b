#pragma once
// What the report's figures that group stored runs into lines share (training scaling, application scaling,
// serving latency): a stored metric by name, a scenario flattened to dotted keys, and the legend labels that
// tell the lines apart.
#include <cstddef>
#include <optional>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "configs/config_node.h"
#include "store/results_store.h"

namespace hpcsim::report_detail {

// A scenario (or a point's JSON values) as dotted key -> scalar text, in document order.
using FlatConfig = std::vector<std::pair<std::string, std::string>>;

void flatten(const ConfigNode& node, const std::string& prefix, FlatConfig& out);
const std::string* find_value(const FlatConfig& config, const std::string& key);

// The keys whose values tell the lines apart (at most 3: `preferred` ones first, then in document order); for
// a single line, its node type and network.
std::vector<std::string> label_keys(const std::vector<const FlatConfig*>& lines, const std::vector<std::string>& preferred = {});
// The line's values of `keys`, ", " between them ("unset" for a key it lacks); "scenario" for no keys.
std::string label_of(const FlatConfig& config, const std::vector<std::string>& keys);

// Each line's label (label_keys' values; a label shared with an earlier line gets " (line N)"), and the keys
// they name, ", " between them, in `legend_title`.
std::vector<std::string> line_labels(const std::vector<const FlatConfig*>& lines, std::string& legend_title,
                                     const std::vector<std::string>& preferred = {});

// "[k]": the index of a metric stored as a parallel array (pareto.cost_usd[k], sweep.rate_rps[k]).
std::string array_index(std::size_t k);
// A stored run's scenario, or nullopt when its text does not parse as a map.
std::optional<ConfigNode> stored_scenario(const StoredRun& run);

}  // namespace hpcsim::report_detail
