// sim-core/random.h: splitmix64 is the published generator (its reference outputs), its step and its mix
// agree, and counter-based draws depend only on their key.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

#include "sim-core/random.h"

using namespace hpcsim;

TEST_CASE("random: splitmix64 from state 0 gives the reference outputs", "[random]") {
  // Vigna's splitmix64.c seeded with 0.
  SplitMix64 g{0};
  CHECK(g.next() == 0xe220a8397b1dcdafULL);
  CHECK(g.next() == 0x6e789e6aa1b965f4ULL);
  CHECK(g.next() == 0x06c45d188009454fULL);
}

TEST_CASE("random: mix64 is one generator step and splitmix64_mix its finaliser", "[random]") {
  for (const std::uint64_t state : {std::uint64_t{0}, std::uint64_t{1}, kSplitmix64Gamma, ~std::uint64_t{0}}) {
    SplitMix64 g{state};
    CHECK(g.next() == mix64(state));
    CHECK(mix64(state) == splitmix64_mix(state + kSplitmix64Gamma));
  }
  CHECK(splitmix64_mix(0) == 0);  // the finaliser alone has no offset: zero stays zero
}

TEST_CASE("random: seeded draws depend on the key alone and fall in [0, 1)", "[random]") {
  CHECK(seeded_key({7, 1, 2}) == seeded_key({7, 1, 2}));
  CHECK(seeded_key({7, 1, 2}) != seeded_key({7, 2, 1}));
  CHECK(uniform01(0) == 0.0);
  CHECK(uniform01(~std::uint64_t{0}) < 1.0);
  CHECK(uniform01(~std::uint64_t{0}) == 1.0 - 0x1.0p-53);
  double sum = 0;
  for (std::uint64_t i = 0; i < 4000; ++i) sum += standard_normal(seeded_key({42, i}));
  CHECK(std::abs(sum / 4000) < 0.05);  // mean of 4,000 standard normals: sd 0.016
}
