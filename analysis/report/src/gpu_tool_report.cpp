#include "report/gpu_tool_report.h"

#include <cstdarg>
#include <cstdio>
#include <sstream>
#include <utility>

#include "configs/json_writer.h"

namespace hpcsim {

namespace {

// printf into a string.
std::string formatted(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string out(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, format, args);
  va_end(args);
  return out;
}

std::vector<std::pair<std::string, std::string>> kernel_rows(const OpTime& t) {
  const auto number = [](double v) { return json::number(v, 6); };
  return {{"time_s", number(t.time_s)},         {"flops_per_s", number(t.flops_per_s)},
          {"bytes_per_s", number(t.bytes_per_s)}, {"bound", std::string(to_string(t.bound))},
          {"occupancy", number(t.occupancy)},    {"kernels", std::to_string(t.launches)}};
}

}  // namespace

std::string occupancy_json(const Occupancy& result) {
  std::ostringstream out;
  out << "{\n  \"active_blocks_per_sm\": " << result.active_blocks_per_sm
      << ",\n  \"active_warps_per_sm\": " << result.active_warps_per_sm
      << ",\n  \"occupancy\": " << json::shortest(result.occupancy) << ",\n  \"limiter\": "
      << json::quote(to_string(result.limiter)) << "\n}\n";
  return out.str();
}

std::string occupancy_table(const Occupancy& result) {
  std::ostringstream out;
  out << "active_blocks_per_sm  " << result.active_blocks_per_sm << "\n"
      << "active_warps_per_sm   " << result.active_warps_per_sm << "\n"
      << "occupancy             " << json::shortest(result.occupancy) << "\n"
      << "limiter               " << to_string(result.limiter) << "\n";
  return out.str();
}

std::string kernel_time_json(const GpuSpec& gpu, const std::string& op, const OpTime& t, bool explain,
                             const std::vector<KernelExplanation>& explained) {
  std::ostringstream out;
  out << "{\n  \"gpu\": " << json::quote(gpu.name) << ",\n  \"op\": " << json::quote(op);
  for (const auto& [key, value] : kernel_rows(t)) {
    const bool text = key == "bound";
    out << ",\n  " << json::quote(key) << ": " << (text ? json::quote(value) : value);
  }
  if (explain) out << ",\n  \"explain\": " << kernel_explanations_json(explained, 2);
  out << "\n}\n";
  return out.str();
}

std::string kernel_time_table(const GpuSpec& gpu, const std::string& op, const OpTime& t, bool explain,
                              const std::vector<KernelExplanation>& explained) {
  std::ostringstream out;
  out << op << " on " << gpu.name << "\n";
  for (const auto& [key, value] : kernel_rows(t)) out << "  " << key << std::string(14 - key.size(), ' ') << value << "\n";
  if (explain) out << render_kernel_explanations(gpu, explained);
  return out.str();
}

std::string collective_json(const std::vector<CollectiveRow>& rows, CollectiveOp op, int ranks) {
  const auto number = [](double v) { return json::number(v, 17); };
  std::ostringstream out;
  out << "{\n  \"op\": " << json::quote(op_name(op)) << ",\n  \"gpus\": " << ranks << ",\n  \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CollectiveRow& r = rows[i];
    const double algbw = r.bytes / r.seconds;
    out << (i ? "," : "") << "\n    {\"size_bytes\": " << number(r.bytes) << ", \"time_s\": " << number(r.seconds)
        << ", \"algbw_bytes_per_s\": " << number(algbw)
        << ", \"busbw_bytes_per_s\": " << number(algbw * busbw_factor(op, ranks))
        << ", \"algorithm\": " << json::quote(algorithm_name(r.algorithm)) << "}";
  }
  out << "\n  ]\n}\n";
  return out.str();
}

std::string collective_table(const std::vector<CollectiveRow>& rows, CollectiveOp op, int ranks, const ClusterConfig& c) {
  std::string out = formatted("# %s over %d GPUs: %d x %s%s%s\n", std::string(op_name(op)).c_str(), ranks, c.nodes,
                              c.node.name.c_str(), c.network ? ", " : "", c.network ? c.network->name.c_str() : "");
  out += formatted("# %14s %14s %14s %14s  %s\n", "size (B)", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "algorithm");
  for (const CollectiveRow& r : rows) {
    const double algbw = r.bytes / r.seconds;
    out += formatted("  %14.0f %14.2f %14.2f %14.2f  %s\n", r.bytes, r.seconds * 1e6, algbw / 1e9,
                     algbw * busbw_factor(op, ranks) / 1e9, std::string(algorithm_name(r.algorithm)).c_str());
  }
  return out;
}

std::string microbench_json(const GpuSpec& gpu, const std::vector<MicrobenchRow>& rows) {
  const auto number = [](double v) { return json::number(v, 6); };
  std::ostringstream out;
  out << "{\n  \"gpu\": " << json::quote(gpu.name) << ",\n  \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const MicrobenchRow& r = rows[i];
    out << (i ? ",\n" : "\n") << "    {\"benchmark\": " << json::quote(r.benchmark) << ", \"params\": " << json::quote(r.params)
        << ", \"metric\": " << json::quote(r.metric) << ", \"value\": " << number(r.value) << ", \"unit\": " << json::quote(r.unit)
        << "}";
  }
  out << "\n  ]\n}\n";
  return out.str();
}

}  // namespace hpcsim
