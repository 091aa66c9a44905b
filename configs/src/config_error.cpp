#include "configs/config_error.h"

namespace hpcsim {

std::string SourceLoc::to_string() const {
  if (!has_line()) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

namespace {
std::string located(const SourceLoc& where, const std::string& message) {
  std::string prefix = where.to_string();
  return prefix.empty() ? message : prefix + ": " + message;
}
}  // namespace

ConfigError::ConfigError(SourceLoc where, const std::string& message)
    : std::runtime_error(located(where, message)), where_(std::move(where)), message_(message) {}

}  // namespace hpcsim
