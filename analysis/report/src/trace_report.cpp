#include "report/trace_report.h"

#include <cstdio>

#include "configs/json_writer.h"

namespace hpcsim {

namespace {

std::string dims(const std::array<int, 3>& d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

}  // namespace

std::string occupancy_check_table(const OccupancyCheck& c) {
  if (c.rows.empty()) return "# occupancy: the trace states none hpcsim can check\n";
  std::string out = "# occupancy (compute capability " + c.compute_capability + "): " + std::to_string(c.kernels_equal) +
                    " of " + std::to_string(c.kernels_checked) + " kernels equal the trace's estimate\n";
  char line[256];
  std::snprintf(line, sizeof line, "# %-14s %-11s %5s %7s %7s %7s %6s %7s  %s\n", "grid", "block", "regs", "smem_B", "kernels",
                "stated%", "ours%", "blocks", "limiter / note");
  out += line;
  for (const OccupancyCheckRow& r : c.rows) {
    const std::string ours = r.ours_percent ? std::to_string(*r.ours_percent) : "-";
    std::snprintf(line, sizeof line, "  %-14s %-11s %5d %7d %7lld %7.0f %6s %7d  ", dims(r.grid).c_str(), dims(r.block).c_str(),
                  r.registers_per_thread, r.smem_per_block, static_cast<long long>(r.kernels), r.stated_percent, ours.c_str(),
                  r.resident_blocks);
    out += line + r.limiter + (r.note.empty() ? "" : " / " + r.note) + "\n";
  }
  return out;
}

std::string occupancy_check_json(const OccupancyCheck& c) {
  json::Line rows = json::Line::array();
  for (const OccupancyCheckRow& r : c.rows) {
    rows.item(json::Line::object()
                  .field("kernel", json::quote(r.kernel))
                  .field("grid", json::Line::array().item(json::integer(r.grid[0])).item(json::integer(r.grid[1])).item(json::integer(r.grid[2])).str())
                  .field("block", json::Line::array().item(json::integer(r.block[0])).item(json::integer(r.block[1])).item(json::integer(r.block[2])).str())
                  .field("registers_per_thread", json::integer(r.registers_per_thread))
                  .field("smem_per_block", json::integer(r.smem_per_block))
                  .field("kernels", json::integer(r.kernels))
                  .field("stated_percent", json::number(r.stated_percent))
                  .field("hpcsim_percent", r.ours_percent ? json::integer(*r.ours_percent) : "null")
                  .field("resident_blocks", json::integer(r.resident_blocks))
                  .field("limiter", json::quote(r.limiter))
                  .field("note", json::quote(r.note))
                  .str());
  }
  return rows.str();
}

}  // namespace hpcsim
