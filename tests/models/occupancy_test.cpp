// Occupancy by the CUDA rules. Sources of the vectors: [BPG] CUDA C++ Best Practices Guide, "Calculating
// Occupancy" (CC 7.0, 37 registers); [TUT] an occupancy tutorial using the same rules (CC 8.9); every other
// case is derived by hand from the rules in cuda_occupancy.h (CUDA 12.6), arithmetic in the comment.
// Every CC here: 65536 registers per SM in 4 sub-partitions of 16384, allocated 256 per warp.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "models/gpu/occupancy.h"
#include "models/gpu/occupancy_limits.h"

using namespace hpcsim;

namespace {

constexpr int KiB = 1024;

struct Vector {
  const char* cc;
  int threads, regs, smem;
  int blocks, warps;
  double occupancy;
  OccupancyLimiter limiter;
};

void check(const Vector& v) {
  INFO("CC " << v.cc << ", " << v.threads << " threads, " << v.regs << " regs, " << v.smem << " B smem");
  const SmLimits* sm = sm_limits_for_cc(v.cc);
  REQUIRE(sm != nullptr);
  const Occupancy o = compute_occupancy(*sm, {v.threads, v.regs, v.smem, std::nullopt});
  CHECK(o.active_blocks_per_sm == v.blocks);
  CHECK(o.active_warps_per_sm == v.warps);
  CHECK(o.occupancy == Approx(v.occupancy).epsilon(1e-12));
  CHECK(to_string(o.limiter) == to_string(v.limiter));
}

constexpr auto W = OccupancyLimiter::warps;
constexpr auto R = OccupancyLimiter::registers;
constexpr auto S = OccupancyLimiter::shared_memory;
constexpr auto B = OccupancyLimiter::blocks;

}  // namespace

TEST_CASE("Occupancy: CC 7.0, Best Practices Guide vectors and more") {
  // [BPG] 37 x 32 = 1184 -> 1280 regs per warp; 16384 / 1280 = 12 warps per sub-partition -> 48 warps.
  check({"7.0", 128, 37, 0, 12, 48, 0.75, R});  // 48 / 4 warps per block = 12 blocks, 75 %
  check({"7.0", 320, 37, 0, 4, 40, 0.625, R});  // 48 / 10 warps per block = 4 blocks, 62.5 %
  // [BPG] at most 32 registers for 100 %: 1024 per warp, 16 per sub-partition = 64 warps.
  check({"7.0", 256, 32, 0, 8, 64, 1.0, W});  // warps 64 / 8 = 8 ties registers; warps is reported first
  check({"7.0", 256, 33, 0, 6, 48, 0.75, R});  // 33 x 32 = 1056 -> 1280: 48 warps / 8 = 6 blocks
  check({"7.0", 256, 64, 0, 4, 32, 0.5, R});   // 2048 per warp: 8 per sub-partition, 32 warps / 8 = 4
  // 48 KiB is a multiple of 256 B, no reserve before 8.0: 96 KiB carveout / 48 KiB = 2 blocks of 4 warps.
  check({"7.0", 128, 32, 48 * KiB, 2, 8, 0.125, S});
}

TEST_CASE("Occupancy: CC 7.5 (32 warps, 16 blocks, 32 or 64 KiB shared)") {
  check({"7.5", 256, 32, 0, 4, 32, 1.0, W});  // warps 32 / 8 = 4; registers 64 / 8 = 8; blocks 16
  check({"7.5", 32, 16, 0, 16, 16, 0.5, B});  // warps 32 / 1 = 32; blocks 16
  // 40 KiB needs the 64 KiB carveout: 65536 / 40960 = 1 block of 4 warps = 4 / 32.
  check({"7.5", 128, 64, 40 * KiB, 1, 4, 0.125, S});
  check({"7.5", 128, 128, 0, 4, 16, 0.5, R});  // 4096 per warp: 4 per sub-partition, 16 warps / 4 = 4
}

TEST_CASE("Occupancy: CC 8.0 (1 KiB reserved per block, 128 B granules, carveouts to 164 KiB)") {
  // 32 KiB + 1 KiB = 33792 B; 167936 / 33792 = 4 blocks (registers: 8 per sub-partition -> 8 blocks).
  check({"8.0", 128, 64, 32 * KiB, 4, 16, 0.25, S});
  // 40 regs -> 1280 per warp: 48 warps -> 12 blocks; 48 KiB + 1 KiB = 50176 B; 167936 / 50176 = 3.
  check({"8.0", 128, 40, 48 * KiB, 3, 12, 0.1875, S});
  // 1024 threads x 64 regs: 32 warps x 2048 = 65536 registers, exactly the per-block limit; 1 block.
  check({"8.0", 1024, 64, 0, 1, 32, 0.5, R});
  // 100 B + 1 KiB = 1124 -> 1152 B per block; 167936 / 1152 = 145 -> the 32-block limit binds (64 threads).
  check({"8.0", 64, 32, 100, 32, 64, 1.0, W});  // warps 64 / 2 = 32 ties blocks 32; warps first
  check({"8.0", 32, 32, 100, 32, 32, 0.5, B});   // warps 64, registers 64, blocks 32
}

TEST_CASE("Occupancy: CC 8.6 (48 warps, 16 blocks, carveouts to 100 KiB)") {
  check({"8.6", 256, 32, 0, 6, 48, 1.0, W});          // warps 48 / 8 = 6; registers 64 / 8 = 8
  check({"8.6", 128, 64, 0, 8, 32, 32.0 / 48, R});    // 8 per sub-partition -> 32 warps / 4 = 8; warps 12
  // 72 x 32 = 2304 per warp: 16384 / 2304 = 7 per sub-partition -> 28 warps / 8 = 3 blocks;
  // shared: 16 KiB + 1 KiB = 17408 B, 102400 / 17408 = 5.
  check({"8.6", 256, 72, 16 * KiB, 3, 24, 0.5, R});
  // 48 KiB + 1 KiB = 50176 B: 102400 / 50176 = 2 blocks (8.7 and 8.0 fit 3 in 164 KiB).
  check({"8.6", 128, 32, 48 * KiB, 2, 8, 8.0 / 48, S});
}

TEST_CASE("Occupancy: CC 8.7 (48 warps and 16 blocks like 8.6, 164 KiB shared like 8.0)") {
  check({"8.7", 128, 32, 48 * KiB, 3, 12, 0.25, S});  // 167936 / 50176 = 3
  check({"8.7", 96, 32, 0, 16, 48, 1.0, W});          // 3 warps per block: warps 48 / 3 = 16 ties blocks 16
  check({"8.7", 64, 32, 0, 16, 32, 32.0 / 48, B});    // warps 48 / 2 = 24; blocks 16
  check({"8.7", 256, 80, 0, 3, 24, 0.5, R});          // 2560 per warp: 6 per sub-partition -> 24 warps / 8 = 3
}

TEST_CASE("Occupancy: CC 8.9 (48 warps, 24 blocks)") {
  check({"8.9", 160, 32, 0, 9, 45, 45.0 / 48, W});  // [TUT] 5 warps per block: 48 / 5 = 9 blocks, 93.75 %
  check({"8.9", 32, 32, 0, 24, 24, 0.5, B});        // [TUT] 1 warp per block: the 24-block limit, 50 %
  // [TUT] 90 x 32 = 2880 -> 3072 per warp: 16384 / 3072 = 5 per sub-partition -> 20 warps / 4 = 5 blocks.
  check({"8.9", 128, 90, 0, 5, 20, 20.0 / 48, R});
  // 48 x 32 = 1536: 10 per sub-partition -> 40 warps / 16 = 2 blocks; shared 21504 B -> 102400 / 21504 = 4.
  check({"8.9", 512, 48, 20 * KiB, 2, 32, 32.0 / 48, R});
}

TEST_CASE("Occupancy: CC 9.0 (64 warps, 32 blocks, carveouts to 228 KiB)") {
  // 168 x 32 = 5376 per warp: 16384 / 5376 = 3 per sub-partition -> 12 warps.
  check({"9.0", 128, 168, 0, 3, 12, 0.1875, R});  // 12 / 4 = 3 blocks
  check({"9.0", 384, 168, 0, 1, 12, 0.1875, R});  // 12 / 12 = 1 block
  // 100 KiB + 1 KiB = 103424 B: 233472 / 103424 = 2 blocks; registers would allow 4.
  check({"9.0", 256, 64, 100 * KiB, 2, 16, 0.25, S});
  check({"9.0", 64, 32, 0, 32, 64, 1.0, W});  // warps 64 / 2 = 32 = blocks 32 = registers 64 / 2
  // The `hpcsim occupancy` example: registers 32 warps / 8 = 4; shared 50176 B -> 233472 / 50176 = 4.
  check({"9.0", 256, 64, 48 * KiB, 4, 32, 0.5, R});
}

TEST_CASE("Occupancy: a carveout preference below one block's need is raised to the next carveout") {
  const SmLimits& sm = *sm_limits_for_cc("8.0");
  // 10 KiB + 1 KiB = 11264 B per block.
  const Occupancy preferred = compute_occupancy(sm, {128, 32, 10 * KiB, 32 * KiB});
  CHECK(preferred.smem_per_sm == 32 * KiB);
  CHECK(preferred.active_blocks_per_sm == 2);  // 32768 / 11264
  const Occupancy raised = compute_occupancy(sm, {128, 32, 10 * KiB, 8 * KiB});
  CHECK(raised.smem_per_sm == 16 * KiB);       // 8 KiB cannot hold one block
  CHECK(raised.active_blocks_per_sm == 1);
  CHECK(compute_occupancy(sm, {128, 32, 10 * KiB, 20 * KiB}).smem_per_sm == 32 * KiB);  // rounded up
}

TEST_CASE("Occupancy: GP100 (6.0) has two register sub-partitions") {
  // 37 regs -> 1280 per warp; 32768 / 1280 = 25 per sub-partition -> 50 warps / 10 = 5 blocks (7.0 gets 4).
  const Occupancy o = compute_occupancy(*sm_limits_for_cc("6.0"), {320, 37, 0, std::nullopt});
  CHECK(o.active_blocks_per_sm == 5);
}

TEST_CASE("Occupancy: impossible launches are errors naming the limit, not zero blocks") {
  const SmLimits& sm = *sm_limits_for_cc("9.0");
  auto message = [&](LaunchResources launch) {
    try {
      compute_occupancy(sm, launch);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message({1025, 32, 0, {}}) == "1025 threads per block: must be 1 to 1024");
  CHECK(message({0, 32, 0, {}}) == "0 threads per block: must be 1 to 1024");
  CHECK(message({256, 300, 0, {}}) == "300 registers per thread: must be 0 to 255");
  CHECK(message({256, 32, 228 * KiB, {}}) ==
        "233472 bytes of shared memory per block exceed the maximum of 232448");
  // 255 regs -> 8192 per warp x 32 warps = 262144 registers, four times the per-block limit.
  CHECK(message({1024, 255, 0, {}}) == "255 registers per thread x 32 warps need 262144 registers per block; "
                                       "the limit is 65536");
  CHECK(message({256, 32, 227 * KiB, {}}) == "no error");
}

TEST_CASE("Occupancy tables cover the compute capabilities the CLI offers") {
  for (const char* cc : {"7.0", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0"}) {
    INFO(cc);
    CHECK(sm_limits_for_cc(cc) != nullptr);
  }
  CHECK(sm_limits_for_cc("99.0") == nullptr);
}
