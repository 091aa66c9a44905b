#pragma once
// The shipped spec library: <root>/<kind>/<name>.yaml, e.g. configs/gpus/a100-sxm4-80gb.yaml.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "configs/config_node.h"

namespace hpcsim {

// A calibrated parameter (<root>/calibration.yaml): a number that no datasheet gives and that is fitted
// by least squares to every validation row whose prediction depends on it (hpcsim validate --fit). It is
// the value of `path` in every spec of `kind` that does not set that path itself.
struct CalibratedParameter {
  std::string name;   // e.g. tensor_matmul
  std::string kind;   // the spec folder it applies to, e.g. gpus
  std::string path;   // dotted key inside those specs, e.g. achievable.matmul
  double value = 0;
  double min = 0, max = 0;  // the range a fit may move it in
  SourceLoc loc;      // where the value is written
};

class SpecCatalog {
 public:
  // Reads <root>/calibration.yaml when it exists (ConfigError when it is malformed).
  explicit SpecCatalog(std::filesystem::path root);

  // The folder named by $HPCSIM_CONFIG_DIR when set, else `built_in` (the source tree's configs/).
  static std::filesystem::path resolve_root(const std::filesystem::path& built_in);

  const std::filesystem::path& root() const { return root_; }
  // Spec names of one kind ("gpus", "nodes", "networks", "models", ...), sorted.
  std::vector<std::string> names(std::string_view kind) const;
  // Loads a named spec (with extends). An unknown name is a ConfigError at `where` listing the known
  // names and the closest one; `what` says what was asked for, e.g. "GPU".
  // Calibrated parameters fill the paths the spec leaves unset.
  ConfigNode load(std::string_view kind, const ConfigNode& name_node, std::string_view what) const;

  const std::vector<CalibratedParameter>& calibrated() const { return calibrated_; }
  // The same catalog with the calibrated values replaced (one per parameter, in order): fits use it.
  SpecCatalog with_calibrated_values(const std::vector<double>& values) const;

 private:
  std::filesystem::path root_;
  std::vector<CalibratedParameter> calibrated_;
};

}  // namespace hpcsim
