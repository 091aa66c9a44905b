#include "configs/overrides.h"

#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "configs/config_error.h"
#include "yaml_convert.h"

namespace hpcsim {

namespace {

std::string_view trim(std::string_view text) {
  const char* blanks = " \t";
  std::size_t first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

std::vector<std::string> split_path(std::string_view path, const SourceLoc& flag_loc) {
  std::vector<std::string> keys;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = path.find('.', start);
    std::string_view key = trim(path.substr(start, dot - start));
    if (key.empty()) {
      throw ConfigError(flag_loc, "empty key in path '" + std::string(path) + "'");
    }
    keys.emplace_back(key);
    if (dot == std::string_view::npos) return keys;
    start = dot + 1;
  }
}

std::optional<std::size_t> list_index(const std::string& key) {
  std::size_t index = 0;
  auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), index);
  if (error != std::errc() || end != key.data() + key.size()) return std::nullopt;
  return index;
}

// The slot `key` names inside `parent`, creating an empty map for a new map key.
ConfigNode& child_slot(ConfigNode& parent, const std::string& key, const std::string& walked,
                       const SourceLoc& flag_loc) {
  if (parent.is_null()) parent = ConfigNode::make_map(flag_loc);
  if (parent.is_map()) {
    if (!parent.has(key)) parent.set(key, ConfigNode::make_null(flag_loc), flag_loc);
    return *parent.find(key);
  }
  const std::string where = walked.empty() ? "the root" : "'" + walked + "'";
  if (parent.is_sequence()) {
    std::optional<std::size_t> index = list_index(key);
    std::vector<ConfigNode>& items = parent.items();
    if (!index || *index >= items.size()) {
      throw ConfigError(flag_loc, "'" + key + "' is not an index of " + where + ", a list of " +
                                      std::to_string(items.size()) + " items at " +
                                      parent.loc().to_string());
    }
    return items[*index];
  }
  throw ConfigError(flag_loc, "cannot set '" + key + "' inside " + where + ", which is " +
                                  parent.describe() + " at " + parent.loc().to_string());
}

}  // namespace

std::string flag_label(std::string_view flag, std::string_view flag_name) {
  // Every value parsed from the flag carries the label, so a long one is cut: a --set list of n items
  // otherwise held n copies of the whole flag (a 60 KB list of 20,000 items took 2.3 GB and 24 s).
  constexpr std::size_t shown = 120;
  std::string label = std::string(flag_name) + " ";
  if (flag.size() <= 2 * shown) return label + std::string(flag);
  return label + std::string(flag.substr(0, shown)) + "... (" + std::to_string(flag.size()) + " characters)";
}

void apply_override(ConfigNode& root, std::string_view flag, std::string_view flag_name) {
  const SourceLoc flag_loc{flag_label(flag, flag_name)};
  std::size_t equals = flag.find('=');
  if (equals == std::string_view::npos) {
    throw ConfigError(flag_loc, "expected key.path=value");
  }
  std::string_view path = trim(flag.substr(0, equals));
  if (path.empty()) throw ConfigError(flag_loc, "empty key path before '='");
  std::vector<std::string> keys = split_path(path, flag_loc);
  ConfigNode value = parse_yaml(flag.substr(equals + 1), flag_loc.file, false);

  ConfigNode* node = &root;
  std::string walked;
  for (const std::string& key : keys) {
    node = &child_slot(*node, key, walked, flag_loc);
    walked += (walked.empty() ? "" : ".") + key;
  }
  *node = std::move(value);
}

// A file's values always carry a line; a flag's are labelled "--set ..." or "--vary ..." without one.
bool from_flag(const SourceLoc& loc) { return !loc.has_line() && loc.file.starts_with("--"); }

const SourceLoc& blame(const SourceLoc& fallback, std::initializer_list<const ConfigNode*> inputs) {
  for (const ConfigNode* input : inputs)
    if (input != nullptr && from_flag(input->loc())) return input->loc();
  return fallback;
}

}  // namespace hpcsim
