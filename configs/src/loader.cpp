#include "configs/loader.h"

#include <fstream>
#include <optional>

#include "configs/config_error.h"
#include "configs/input_limits.h"
#include "configs/overrides.h"
#include "yaml_convert.h"

namespace hpcsim {

namespace fs = std::filesystem;

namespace {

std::string label_of(const fs::path& path) { return path.lexically_normal().generic_string(); }

// The file's text, or the reason it cannot be read.
std::optional<std::string> read_text(const fs::path& path, std::string& why) {
  std::error_code ignored;
  if (!fs::exists(path, ignored)) {
    why = "file not found";
    return std::nullopt;
  }
  if (fs::is_directory(path, ignored)) {
    why = "is a directory, not a file";
    return std::nullopt;
  }
  // Refused before reading, so that a huge file is not read into memory first (parse_yaml checks again).
  if (const std::uintmax_t bytes = fs::file_size(path, ignored); !ignored && bytes > input_limits::max_file_bytes) {
    why = std::to_string(bytes) + " bytes, more than the " + std::to_string(input_limits::max_file_bytes >> 20) +
          " MiB hpcsim reads from one YAML input";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = "cannot read file";
    return std::nullopt;
  }
  // Read in chunks up to the limit and one byte more: a device (extends: /dev/zero) has no size and never
  // ends, and a whole-limit buffer per file made every load touch 64 MiB.
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= input_limits::max_file_bytes && in.read(chunk, sizeof chunk).gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (!in) break;
  }
  if (in.bad()) {
    why = "cannot read file";
    return std::nullopt;
  }
  if (text.size() > input_limits::max_file_bytes) {
    why = "more than the " + std::to_string(input_limits::max_file_bytes >> 20) + " MiB hpcsim reads from one YAML input";
    return std::nullopt;
  }
  return text;
}

class ExtendsResolver {
 public:
  ConfigNode load(const fs::path& path, const SourceLoc* included_from) {
    std::string why;
    std::optional<std::string> text = read_text(path, why);
    if (!text) {
      if (included_from == nullptr) throw ConfigError(SourceLoc{label_of(path)}, why);
      throw ConfigError(*included_from, "cannot extend '" + label_of(path) + "': " + why);
    }
    fs::path identity = fs::weakly_canonical(path);
    for (std::size_t i = 0; i < chain_.size(); ++i) {
      if (chain_[i] == identity) {
        std::string cycle;
        for (std::size_t j = i; j < labels_.size(); ++j) cycle += labels_[j] + " -> ";
        throw ConfigError(*included_from, "extends cycle: " + cycle + label_of(path));
      }
    }
    chain_.push_back(identity);
    labels_.push_back(label_of(path));
    ConfigNode node = parse_yaml(*text, label_of(path));
    if (node.is_map() && node.has("extends")) node = resolve_extends(std::move(node), path);
    chain_.pop_back();
    labels_.pop_back();
    return node;
  }

 private:
  ConfigNode resolve_extends(ConfigNode child, const fs::path& path) {
    ConfigNode spec = *child.find("extends");
    child.erase("extends");
    std::vector<ConfigNode> names;
    if (spec.is_scalar()) {
      names.push_back(spec);
    } else if (spec.is_sequence()) {
      names = spec.items();
    } else {
      throw ConfigError(spec.loc(), "extends: expected a file name or a list of file names, got " +
                                        spec.describe());
    }
    std::optional<ConfigNode> bases;
    for (const ConfigNode& name : names) {
      if (!name.is_scalar() || name.text().empty()) {
        throw ConfigError(name.loc(), "extends: expected a file name, got " + name.describe());
      }
      ConfigNode base = load(path.parent_path() / name.text(), &name.loc());
      if (!base.is_map() && !base.is_null()) {
        throw ConfigError(name.loc(), "cannot extend '" + name.text() + "': it holds " +
                                          base.describe() + ", not a map");
      }
      bases = bases ? merge_configs(std::move(*bases), base) : std::move(base);
    }
    return bases ? merge_configs(std::move(*bases), child) : child;
  }

  std::vector<fs::path> chain_;     // files being loaded, outermost first
  std::vector<std::string> labels_;  // the same, as shown in messages
};

}  // namespace

ConfigNode parse_config_text(std::string_view text, const std::string& file) {
  return parse_yaml(text, file);
}

ConfigNode read_config_file(const fs::path& path) {
  std::string why;
  std::optional<std::string> text = read_text(path, why);
  if (!text) throw ConfigError(SourceLoc{label_of(path)}, why);
  return parse_yaml(*text, label_of(path));
}

ConfigNode load_config_file(const fs::path& path) {
  return ExtendsResolver().load(path, nullptr);
}

ConfigNode load_config(const fs::path& path, const std::vector<std::string>& overrides, std::string_view flag_name) {
  ConfigNode root = load_config_file(path);
  for (const std::string& flag : overrides) apply_override(root, flag, flag_name);
  return root;
}

ConfigNode merge_configs(ConfigNode base, const ConfigNode& over) {
  if (!base.is_map() || !over.is_map()) return over;
  base.set_loc(over.loc());
  for (const ConfigNode::Entry& entry : over.entries()) {
    ConfigNode* existing = base.find(entry.key);
    if (existing != nullptr && existing->is_map() && entry.value.is_map()) {
      base.set(entry.key, merge_configs(std::move(*existing), entry.value), entry.key_loc);
    } else {
      base.set(entry.key, entry.value, entry.key_loc);
    }
  }
  return base;
}

}  // namespace hpcsim
