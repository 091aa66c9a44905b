#include "report/device_comparison_report.h"

namespace hpcsim {

const std::string* DeviceMeasurement::param(const std::string& key) const {
  for (const auto& [k, v] : params) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string DeviceMeasurement::params_text() const {
  std::string out;
  for (const auto& [k, v] : params) out += (out.empty() ? "" : ";") + k + "=" + v;
  return out;
}

std::optional<std::string> DeviceMeasurements::header_value(const std::string& key) const {
  for (const auto& [k, v] : header) {
    if (k == key) return v;
  }
  return std::nullopt;
}

}  // namespace hpcsim
