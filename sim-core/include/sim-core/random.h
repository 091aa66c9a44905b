#pragma once
// The project's random numbers, one home for every model that draws or hashes: splitmix64 (its mix alone, its
// step, a generator) and counter-based draws. A counter-based draw is a hash of (seed, what it is for), so a
// trial's or a request's values do not depend on the order they are drawn in, and the same seed gives
// bit-identical results everywhere (no std:: distributions, whose output differs between libraries).
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <numbers>

namespace hpcsim {

inline constexpr std::uint64_t kSplitmix64Gamma = 0x9e3779b97f4a7c15ULL;

// splitmix64's finaliser alone: a bijective, well-spread 64-bit mix (hash tables spread strided keys with it).
constexpr std::uint64_t splitmix64_mix(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// One splitmix64 step from state x: the output a generator at x gives next.
constexpr std::uint64_t mix64(std::uint64_t x) { return splitmix64_mix(x + kSplitmix64Gamma); }

// A splitmix64 generator: cheap, reproducible, 2^64 period.
struct SplitMix64 {
  std::uint64_t state;
  constexpr std::uint64_t next() { return splitmix64_mix(state += kSplitmix64Gamma); }
};

// One key from several: mix64 chained over the parts.
constexpr std::uint64_t seeded_key(std::initializer_list<std::uint64_t> parts) {
  std::uint64_t h = 0x6a09e667f3bcc909ULL;
  for (const std::uint64_t part : parts) h = mix64(h ^ part);
  return h;
}

// A uniform draw in [0, 1) from 64 random bits: their top 53, exact and portable.
constexpr double uniform01(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// A standard normal draw (Box-Muller on two draws derived from the key).
inline double standard_normal(std::uint64_t key) {
  const double u1 = 1.0 - uniform01(mix64(key ^ 1));  // (0, 1]: log is finite
  const double u2 = uniform01(mix64(key ^ 2));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace hpcsim
