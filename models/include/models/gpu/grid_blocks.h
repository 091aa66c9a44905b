#pragma once
// A kernel's grid size from the op's shape, computed in double: a shape of 10^12 x 10^12 needs more thread blocks
// than an int64 holds, and the cast wrapped to a negative grid ("a kernel needs at least one block").
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace hpcsim {

// The most blocks one launch may have: CUDA's grid is at most (2^31-1) x 65,535 x 65,535, about 2^63.
inline constexpr double kMaxGridBlocks = 9.2e18;

// `blocks` as the launch's count; std::invalid_argument naming the count when it is past kMaxGridBlocks.
inline std::int64_t grid_blocks(double blocks) {
  if (!(blocks <= kMaxGridBlocks)) {
    char text[96];
    std::snprintf(text, sizeof text, "the op needs %.3g thread blocks, more than one launch can have (about 9.2e18)",
                  blocks);
    throw std::invalid_argument(text);
  }
  return static_cast<std::int64_t>(blocks);
}

}  // namespace hpcsim
