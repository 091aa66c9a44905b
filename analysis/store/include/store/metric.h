#pragma once
// A report as a plain list of metrics: what every scenario kind produces, and all that the renderers
// (report_render.h), the results store and `hpcsim show` need to know about a run.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/assumption.h"

namespace hpcsim {

// Dotted names are nested JSON keys ("throughput.samples_per_s"); adjacent "name[0]", "name[1]" an array.
// Units the renderers know: "s", "1/s", "TFLOP/s", "ratio", "bytes", "bool" (1 or 0), "count".
struct Metric {
  std::string name;
  std::optional<double> value;  // empty: undefined here (e.g. tokens_per_s of a non-sequence model);
                                // NaN is refused, -0.0 reads back as 0.0
  std::string unit;
};

struct Report {
  std::string scenario;          // the scenario's name
  std::string kind = "training";  // the scenario kind's name (workloads/scenario/scenario_kind.h)
  std::vector<Metric> metrics;   // names unique within a report
  // `hpcsim run` of a training scenario: the unstated settings that move its prediction (empty: none does);
  // unset for every other report. Printed, not stored.
  std::optional<std::vector<Assumption>> assumptions;
};

// A metric's value by name; nullopt when absent or undefined.
std::optional<double> metric_value(const std::vector<Metric>& metrics, std::string_view name);

}  // namespace hpcsim
