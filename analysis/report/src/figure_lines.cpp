#include "figure_lines.h"

#include "configs/config_error.h"
#include "configs/loader.h"

#include <algorithm>

namespace hpcsim::report_detail {

namespace {

// Legends name at most this many keys; more would not be readable at a glance.
constexpr std::size_t kMaxLabelKeys = 3;

}  // namespace

void flatten(const ConfigNode& node, const std::string& prefix, FlatConfig& out) {
  if (node.is_map()) {
    for (const ConfigNode::Entry& e : node.entries()) flatten(e.value, prefix.empty() ? e.key : prefix + "." + e.key, out);
  } else if (node.is_sequence()) {
    for (std::size_t i = 0; i < node.items().size(); ++i) flatten(node.items()[i], prefix + "[" + std::to_string(i) + "]", out);
  } else {
    out.emplace_back(prefix, node.is_scalar() ? node.text() : "");
  }
}

const std::string* find_value(const FlatConfig& config, const std::string& key) {
  for (const auto& [k, v] : config)
    if (k == key) return &v;
  return nullptr;
}

std::vector<std::string> label_keys(const std::vector<const FlatConfig*>& lines, const std::vector<std::string>& preferred) {
  std::vector<std::string> keys;
  if (lines.empty()) return keys;
  if (lines.size() == 1) {
    for (const char* k : {"cluster.node", "cluster.network"})
      if (find_value(*lines[0], k) != nullptr) keys.emplace_back(k);
    return keys;
  }
  std::vector<std::string> all = preferred;
  for (const FlatConfig* l : lines)
    for (const auto& [k, v] : *l)
      if (std::find(all.begin(), all.end(), k) == all.end()) all.push_back(k);
  for (const std::string& k : all) {
    const std::string* first = find_value(*lines[0], k);
    for (const FlatConfig* l : lines) {
      const std::string* v = find_value(*l, k);
      if ((v == nullptr) != (first == nullptr) || (v != nullptr && *v != *first)) {
        keys.push_back(k);
        break;
      }
    }
  }
  if (keys.size() > kMaxLabelKeys) keys.resize(kMaxLabelKeys);
  return keys;
}

std::string label_of(const FlatConfig& config, const std::vector<std::string>& keys) {
  std::string label;
  for (const std::string& k : keys) {
    const std::string* v = find_value(config, k);
    label += (label.empty() ? "" : ", ") + (v != nullptr ? *v : std::string("unset"));
  }
  return label.empty() ? "scenario" : label;
}

std::vector<std::string> line_labels(const std::vector<const FlatConfig*>& lines, std::string& legend_title,
                                     const std::vector<std::string>& preferred) {
  const std::vector<std::string> keys = label_keys(lines, preferred);
  legend_title.clear();
  for (const std::string& k : keys) legend_title += (legend_title.empty() ? "" : ", ") + k;
  std::vector<std::string> labels;
  for (const FlatConfig* l : lines) labels.push_back(label_of(*l, keys));
  // Lines that differ only beyond the keys the legend names would share a label: number them apart.
  for (std::size_t i = 0; i < labels.size(); ++i)
    for (std::size_t j = i + 1; j < labels.size(); ++j)
      if (labels[j] == labels[i]) labels[j] += " (line " + std::to_string(j + 1) + ")";
  return labels;
}

std::string array_index(std::size_t k) {
  std::string at = "[";  // appended, not "[" + ... + "]": GCC 12 warns falsely (-Wrestrict) on that form
  at += std::to_string(k);
  at += ']';
  return at;
}

std::optional<ConfigNode> stored_scenario(const StoredRun& run) {
  try {
    ConfigNode root = parse_config_text(run.scenario_text, "run " + std::to_string(run.id));
    if (root.is_map()) return root;
  } catch (const ConfigError&) {
  }
  return std::nullopt;
}

}  // namespace hpcsim::report_detail
