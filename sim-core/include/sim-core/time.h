#pragma once
// Simulated time: a strong int64 count of picoseconds. No floating-point clock, so event order is exact.
#include <compare>
#include <cstdint>
#include <limits>

namespace hpcsim {

class Time {
 public:
  constexpr Time() = default;

  static constexpr Time ps(std::int64_t v) { return Time(v); }
  static constexpr Time ns(double v) { return from_scaled(v, 1e3); }
  static constexpr Time us(double v) { return from_scaled(v, 1e6); }
  static constexpr Time ms(double v) { return from_scaled(v, 1e9); }
  static constexpr Time seconds(double v) { return from_scaled(v, 1e12); }
  static constexpr Time zero() { return Time(0); }
  static constexpr Time max() { return Time(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t picoseconds() const { return ps_; }
  constexpr double to_seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr double to_us() const { return static_cast<double>(ps_) * 1e-6; }

  constexpr Time operator+(Time o) const { return Time(ps_ + o.ps_); }
  constexpr Time operator-(Time o) const { return Time(ps_ - o.ps_); }
  constexpr Time& operator+=(Time o) { ps_ += o.ps_; return *this; }
  constexpr Time& operator-=(Time o) { ps_ -= o.ps_; return *this; }
  constexpr auto operator<=>(const Time&) const = default;

 private:
  constexpr explicit Time(std::int64_t v) : ps_(v) {}
  // Rounds to the nearest picosecond; saturates rather than overflowing for huge durations.
  static constexpr Time from_scaled(double v, double scale) {
    const double p = v * scale;
    if (p >= 9.2e18) return max();
    if (p <= -9.2e18) return Time(std::numeric_limits<std::int64_t>::min());
    return Time(static_cast<std::int64_t>(p < 0 ? p - 0.5 : p + 0.5));
  }
  std::int64_t ps_ = 0;
};

}  // namespace hpcsim
