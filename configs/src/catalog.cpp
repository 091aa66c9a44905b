#include "configs/catalog.h"

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/schema.h"
#include "edit_distance.h"
#include <cstdio>

namespace hpcsim {

namespace {

constexpr const char* kCalibrationFile = "calibration.yaml";

const Schema& calibration_schema() {
  static const Schema schema = Schema::map({required(
      "parameters", Schema::list(Schema::map({required("name", Schema::string()),
                                               required("kind", Schema::one_of({"gpus", "nodes", "networks",
                                                                                "frameworks", "storage"})),
                                               required("path", Schema::string()),
                                               required("value", Schema::number()),
                                               required("min", Schema::number()),
                                               required("max", Schema::number()),
                                               optional("description", Schema::string())})))});
  return schema;
}

std::vector<CalibratedParameter> read_calibration(const std::filesystem::path& file) {
  std::vector<CalibratedParameter> out;
  if (!std::filesystem::exists(file)) return out;
  const ConfigNode root = load_config_file(file);
  calibration_schema().validate(root);
  for (const ConfigNode& p : root.at("parameters").items()) {
    CalibratedParameter c{p.get_string("name"), p.get_string("kind"), p.get_string("path"),
                          p.get_number("value"), p.get_number("min"), p.get_number("max"), p.at("value").loc()};
    if (!(c.min < c.max) || c.value < c.min || c.value > c.max) {
      throw ConfigError(p.at("value").loc(), c.name + ": value must lie in [min, max] with min < max");
    }
    for (const CalibratedParameter& other : out) {
      if (other.name == c.name) throw ConfigError(p.at("name").loc(), "parameter " + c.name + " is given twice");
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string exact_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);  // round-trips the double exactly
  return text;
}

// Sets `path` (dotted) in `node` to `value` unless the spec already has it; creates the maps on the way.
void fill_unset(ConfigNode& node, std::string_view path, const CalibratedParameter& p) {
  const auto dot = path.find('.');
  const std::string key(path.substr(0, dot));
  if (dot == std::string_view::npos) {
    if (!node.has(key)) node.set(key, ConfigNode::make_scalar(exact_text(p.value), p.loc), p.loc);
    return;
  }
  if (!node.has(key)) node.set(key, ConfigNode::make_map(p.loc), p.loc);
  ConfigNode* child = node.find(key);
  if (child->is_map()) fill_unset(*child, path.substr(dot + 1), p);
}

}  // namespace

SpecCatalog::SpecCatalog(std::filesystem::path root)
    : root_(std::move(root)), calibrated_(read_calibration(root_ / kCalibrationFile)) {}

SpecCatalog SpecCatalog::with_calibrated_values(const std::vector<double>& values) const {
  SpecCatalog copy = *this;
  for (std::size_t i = 0; i < copy.calibrated_.size() && i < values.size(); ++i) copy.calibrated_[i].value = values[i];
  return copy;
}

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
  ConfigNode node = load_config_file(root_ / kind / (name + ".yaml"));
  if (node.is_map()) {
    for (const CalibratedParameter& p : calibrated_) {
      if (p.kind == kind) fill_unset(node, p.path, p);
    }
  }
  return node;
}

}  // namespace hpcsim
