#pragma once
// A stored scenario flattened to dotted keys, and the legend labels that tell lines of a figure apart: what
// the report's figures that group runs into lines (training scaling, application scaling) share.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "configs/config_node.h"

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

}  // namespace hpcsim::report_detail
