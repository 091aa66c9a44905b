#include "workloads/trace/kineto_occupancy.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "models/gpu/occupancy.h"
#include "models/gpu/occupancy_limits.h"

namespace hpcsim {

OccupancyCheck check_occupancy(const KinetoTrace& t) {
  OccupancyCheck check;
  if (t.device.compute_major <= 0 || t.device.name.find("AMD") != std::string::npos) return check;
  check.compute_capability = std::to_string(t.device.compute_major) + "." + std::to_string(t.device.compute_minor);
  const SmLimits* limits = sm_limits_for_cc(check.compute_capability);
  if (!limits || t.device.sm_count <= 0) return check;
  const int max_threads = t.device.max_threads_per_sm > 0 ? t.device.max_threads_per_sm : limits->max_threads;
  using Key = std::tuple<std::array<int, 3>, std::array<int, 3>, int, int, double>;
  std::map<Key, std::size_t> index;
  for (const GpuActivity& a : t.activities) {
    if (a.kind != GpuActivityKind::kernel || !a.est_occupancy_percent || !a.registers_per_thread || !a.smem_per_block) continue;
    const Key key{a.grid, a.block, *a.registers_per_thread, *a.smem_per_block, *a.est_occupancy_percent};
    auto [it, fresh] = index.try_emplace(key, check.rows.size());
    if (fresh) {
      OccupancyCheckRow row;
      row.kernel = a.name;
      row.grid = a.grid;
      row.block = a.block;
      row.registers_per_thread = *a.registers_per_thread;
      row.smem_per_block = *a.smem_per_block;
      row.stated_percent = *a.est_occupancy_percent;
      const int threads = a.block[0] * a.block[1] * a.block[2];
      const double grid_blocks = static_cast<double>(a.grid[0]) * a.grid[1] * a.grid[2];
      try {
        const Occupancy occ = compute_occupancy(*limits, LaunchResources{threads, row.registers_per_thread, row.smem_per_block, {}});
        row.resident_blocks = occ.active_blocks_per_sm;
        row.limiter = std::string(to_string(occ.limiter));
        const double blocks = std::min<double>(occ.active_blocks_per_sm, grid_blocks / t.device.sm_count);
        row.ours_percent = static_cast<int>(0.5 + blocks * threads / max_threads * 100.0);
      } catch (const InvalidLaunch& e) {
        row.note = std::string("hpcsim refuses the launch: ") + e.what();
      }
      if (row.ours_percent && *row.ours_percent != static_cast<int>(row.stated_percent)) {
        const int default_smem = limits->default_smem_per_block;
        if (row.stated_percent == 0 && row.smem_per_block > default_smem) {
          row.note = "the block uses " + std::to_string(row.smem_per_block) + " B of shared memory, more than the " +
                     std::to_string(default_smem) +
                     " B a kernel may use without opting in; Kineto's calculator is not told of the opt-in "
                     "(maxDynamicSharedSizeBytes = 0), fails, and the trace states 0";
        } else {
          row.note = "differs";
        }
      }
      check.rows.push_back(row);
    }
    OccupancyCheckRow& row = check.rows[it->second];
    ++row.kernels;
    ++check.kernels_checked;
    if (row.ours_percent && *row.ours_percent == static_cast<int>(row.stated_percent)) ++check.kernels_equal;
  }
  return check;
}

}  // namespace hpcsim
