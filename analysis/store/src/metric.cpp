#include "store/metric.h"

namespace hpcsim {

std::optional<double> metric_value(const std::vector<Metric>& metrics, std::string_view name) {
  for (const Metric& m : metrics)
    if (m.name == name) return m.value;
  return std::nullopt;
}

}  // namespace hpcsim
