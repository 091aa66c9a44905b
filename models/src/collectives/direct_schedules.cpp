// Direct schedules: every message of a phase posted at once, as NCCL's point-to-point all-to-all does.
#include "models/collectives/nvls.h"
#include "schedule_builders.h"

namespace hpcsim::schedules {

std::vector<int> own_rails(const CollectiveGroup& group) {
  std::vector<int> rails;
  for (int r = 0; r < group.size(); ++r) rails.push_back(group.home_rail(r));
  return rails;
}

CollectiveSchedule direct_all_pairs(const CollectiveGroup& group, double bytes, int steps) {
  const int n = group.size();
  auto generate = [rails = own_rails(group), n, bytes](int, std::vector<Transfer>& out) {
    // One allocation: growing by doubling to a million transfers (1,024 GPUs) touched twice the memory.
    out.reserve(out.size() + static_cast<std::size_t>(n) * (n - 1));
    for (int r = 0; r < n; ++r) {
      for (int q = 0; q < n; ++q) {
        if (q != r) out.push_back(Transfer{r, q, rails[r], bytes});
      }
    }
  };
  return CollectiveSchedule(1, std::vector<int>(steps, 0), generate, static_cast<std::uint64_t>(n) * (n - 1));
}

CollectiveSchedule direct_from_root(const CollectiveGroup& group, double bytes, int root, bool toward_root) {
  const int n = group.size();
  auto generate = [rails = own_rails(group), n, bytes, root, toward_root](int, std::vector<Transfer>& out) {
    for (int r = 0; r < n; ++r) {
      if (r == root) continue;
      out.push_back(toward_root ? Transfer{r, root, rails[r], bytes} : Transfer{root, r, rails[root], bytes});
    }
  };
  return CollectiveSchedule(1, {0}, generate, n);
}

CollectiveSchedule direct_shift(const CollectiveGroup& group, double bytes) {
  const int n = group.size();
  auto generate = [rails = own_rails(group), n, bytes](int, std::vector<Transfer>& out) {
    for (int r = 0; r < n; ++r) out.push_back(Transfer{r, (r + 1) % n, rails[r], bytes});
  };
  return CollectiveSchedule(1, {0}, generate, n);
}

CollectiveSchedule nvls_allreduce(const CollectiveGroup& group, double bytes) {
  // Each GPU's port carries its buffer out once and the result in once: in the fabric's per-GPU NVSwitch
  // ports that is every rank sending one buffer to the next (each port crossed once per direction), the
  // bytes scaled by 1 / efficiency so that the step runs at NCCL's NVLS rate.
  CollectiveSchedule s = direct_shift(group, bytes / group.nvls_port_fraction());
  s.set_setup_latency(kNvlsLatencyS);
  return s;
}

}  // namespace hpcsim::schedules
