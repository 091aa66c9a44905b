#pragma once
// Counter-based random numbers for campaigns: every draw is a hash of (seed, what it is for), so a
// trial's values do not depend on the order trials are drawn or evaluated in, and the same seed gives
// bit-identical results everywhere (no std:: distributions, whose output differs between libraries).
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <numbers>

namespace hpcsim {

// splitmix64's finaliser: a fixed, well-spread 64-bit mix.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// One key from several: mix64 chained over the parts.
constexpr std::uint64_t seeded_key(std::initializer_list<std::uint64_t> parts) {
  std::uint64_t h = 0x6a09e667f3bcc909ULL;
  for (const std::uint64_t part : parts) h = mix64(h ^ part);
  return h;
}

// A uniform draw in [0, 1): the key's top 53 bits.
constexpr double uniform01(std::uint64_t key) { return static_cast<double>(key >> 11) * 0x1.0p-53; }

// A standard normal draw (Box-Muller on two draws derived from the key).
inline double standard_normal(std::uint64_t key) {
  const double u1 = 1.0 - uniform01(mix64(key ^ 1));  // (0, 1]: log is finite
  const double u2 = uniform01(mix64(key ^ 2));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace hpcsim
