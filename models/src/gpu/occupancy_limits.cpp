#include "models/gpu/occupancy_limits.h"

#include <utility>

namespace hpcsim {

namespace {

constexpr int KiB = 1024;

// Sources: [PG] CUDA C++ Programming Guide, compute capabilities tables (7.5-9.0);
// [OCC] cuda_occupancy.h (CUDA 12.6): shared-memory granularity (256 B up to 7.x, 128 B on 8.x/9.x),
// sub-partitions (2 on 6.0, else 4), block limits, carveout sizes, 1 KiB reserved per block from 8.0;
// [VTG] Volta tuning guide (7.0: 64 warps, 96 KiB shared of a 128 KiB L1); [P100] Pascal P100
// whitepaper (6.0: 64 KiB dedicated shared memory per SM, 48 KiB per block); [BTG] NVIDIA Blackwell tuning
// guide (10.0, B200: the same 256 KB of combined L1/shared memory as Hopper, carveouts 0-228 KB, 1 KB reserved
// per block, 227 KB per block; quoted in NVIDIA/cudnn-frontend PR 1164) and a B200 device query (pytorch/ao
// PR 4002: 2048 threads and 65536 registers per SM, 228 KB shared memory per SM).
// Every CC here has 64 Ki 32-bit registers per SM and per block, 255 per thread, allocated 256 per warp.
SmLimits make(int max_warps, int max_blocks, int sub_partitions, std::vector<int> carveouts_kib,
              int granularity, int reserved, int max_smem_per_block, int l1_smem) {
  SmLimits s;
  s.max_warps = max_warps;
  s.max_blocks = max_blocks;
  s.max_threads = max_warps * s.warp_size;
  s.sub_partitions = sub_partitions;
  for (int kib : carveouts_kib) s.smem_carveouts.push_back(kib * KiB);
  s.smem_allocation_granularity = granularity;
  s.smem_reserved_per_block = reserved;
  s.max_smem_per_block = max_smem_per_block;
  s.l1_smem_bytes = l1_smem;
  return s;
}

const std::vector<std::pair<std::string, SmLimits>>& table() {
  static const std::vector<std::pair<std::string, SmLimits>> t = {
      // GP100: dedicated 64 KiB shared memory (no carveout choice), L1 is separate [P100][OCC].
      {"6.0", make(64, 32, 2, {64}, 256, 0, 48 * KiB, 64 * KiB)},
      {"7.0", make(64, 32, 4, {0, 8, 16, 32, 64, 96}, 256, 0, 96 * KiB, 128 * KiB)},  // [VTG][OCC]
      {"7.5", make(32, 16, 4, {32, 64}, 256, 0, 64 * KiB, 96 * KiB)},                 // [PG][OCC]
      {"8.0", make(64, 32, 4, {0, 8, 16, 32, 64, 100, 132, 164}, 128, KiB, 163 * KiB, 192 * KiB)},
      {"8.6", make(48, 16, 4, {0, 8, 16, 32, 64, 100}, 128, KiB, 99 * KiB, 128 * KiB)},
      {"8.7", make(48, 16, 4, {0, 8, 16, 32, 64, 100, 132, 164}, 128, KiB, 163 * KiB, 192 * KiB)},
      {"8.9", make(48, 24, 4, {0, 8, 16, 32, 64, 100}, 128, KiB, 99 * KiB, 128 * KiB)},
      {"9.0", make(64, 32, 4, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}, 128, KiB, 227 * KiB, 256 * KiB)},
      // [BTG]; 32 blocks per SM and the 128 B granularity as 9.0 (UNSURE: [PG]'s 10.0 column not read here)
      {"10.0", make(64, 32, 4, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}, 128, KiB, 227 * KiB, 256 * KiB)},
      // B300 (sm_103): a public B300 cache study (configs/gpus/b300.yaml [MB]) measures the 10.0 figures: a
      // 256 KiB L1/shared pool, 228 KiB opt-in shared memory less 1 KiB reserved per block; the rest as 10.0.
      {"10.3", make(64, 32, 4, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}, 128, KiB, 227 * KiB, 256 * KiB)},
  };
  return t;
}

}  // namespace

const SmLimits* sm_limits_for_cc(std::string_view compute_capability) {
  for (const auto& [cc, limits] : table()) {
    if (cc == compute_capability) return &limits;
  }
  return nullptr;
}

const std::vector<std::string>& supported_compute_capabilities() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& entry : table()) out.push_back(entry.first);
    return out;
  }();
  return names;
}

}  // namespace hpcsim
