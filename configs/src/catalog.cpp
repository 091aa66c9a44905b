#include "configs/catalog.h"

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "edit_distance.h"

namespace hpcsim {

SpecCatalog::SpecCatalog(std::filesystem::path root) : root_(std::move(root)) {}

std::filesystem::path SpecCatalog::resolve_root(const std::filesystem::path& built_in) {
  if (const char* env = std::getenv("HPCSIM_CONFIG_DIR"); env != nullptr && *env != '\0') return env;
  return built_in;
}

std::vector<std::string> SpecCatalog::names(std::string_view kind) const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root_ / kind, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") {
      out.push_back(entry.path().stem().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

ConfigNode SpecCatalog::load(std::string_view kind, const ConfigNode& name_node, std::string_view what) const {
  const std::string name = name_node.as_string();
  const auto known = names(kind);
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    std::string message = "unknown " + std::string(what) + " '" + name + "'";
    if (const std::string guess = closest_match(name, known); !guess.empty()) {
      message += "; did you mean '" + guess + "'?";
    }
    message += " (known: ";
    for (std::size_t i = 0; i < known.size(); ++i) message += (i ? ", " : "") + known[i];
    message += known.empty() ? "none found in " + (root_ / kind).string() + ")" : ")";
    throw ConfigError(name_node.loc(), message);
  }
  return load_config_file(root_ / kind / (name + ".yaml"));
}

}  // namespace hpcsim
