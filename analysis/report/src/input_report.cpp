#include "report/input_report.h"

#include <algorithm>

namespace hpcsim {

namespace {

// "device IOPS" -> "device_iops": a resource name as one part of a dotted metric name.
std::string metric_part(std::string name) {
  for (char& c : name) {
    if (c == ' ' || c == '-' || c == '.') c = '_';
    else if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return name;
}

}  // namespace

std::vector<Metric> input_pipeline_metrics(const InputPipelineResult& input) {
  std::vector<Metric> out = {
      {"input.seconds_per_batch", input.seconds_per_batch, "s"},
      {"input.storage_s", input.storage_s, "s"},
      {"input.decode_s", input.decode_s, "s"},
      {"input.h2d_s", input.h2d_s, "s"},
      {"input.from_page_cache", input.from_page_cache ? 1.0 : 0.0, "bool"},
      {"input.page_cache_hit", input.page_cache_hit, "ratio"},
  };
  for (const char* stage : {"storage", "decode", "h2d"}) {
    out.push_back({std::string("input.bound.") + stage, input.bottleneck == stage ? 1.0 : 0.0, "bool"});
  }
  for (const auto& [name, use] : input.storage_use) {
    out.push_back({"input.storage_use." + metric_part(name), use, "ratio"});
  }
  // What limits the storage stage, when it is not one of the resources above (the readers' own pace, the
  // page cache): a flag of its own.
  const bool named = std::any_of(input.storage_use.begin(), input.storage_use.end(),
                                 [&](const auto& use) { return use.first == input.storage_limit; });
  if (!named && !input.storage_limit.empty() && input.storage_limit != "none") {
    out.push_back({"input.storage_limit." + metric_part(input.storage_limit), 1.0, "bool"});
  }
  return out;
}

}  // namespace hpcsim
