#pragma once
// Simulated time: an exact count of picoseconds. No floating-point clock, so event order is exact.
//
// The count is a 128-bit integer limited to +-2^95 ps (about +-1.25 billion years): picoseconds keep the
// resolution flows need, and a study of a machine over years stays in range. A time from outside the range
// (or NaN) is a TimeRangeError naming the value, never a saturated clock. Sums and differences of in-range
// times cannot overflow the representation; the range is enforced where times enter (conversions from
// numbers, and the simulator's schedule).
#include <compare>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace hpcsim {

// A time outside Time's range: what() names the value and the range.
class TimeRangeError : public std::out_of_range {
 public:
  using std::out_of_range::out_of_range;
};

namespace detail {
[[noreturn]] void throw_time_range(double value, const char* unit);
[[noreturn]] void throw_time_range_ps(std::int64_t high, std::uint64_t low);
}  // namespace detail

class Time {
 public:
  __extension__ using Rep = __int128;  // picoseconds
  __extension__ using UnsignedRep = unsigned __int128;
  static constexpr int kRangeBits = 95;
  static constexpr Rep kLimit = Rep{1} << kRangeBits;  // |t| < kLimit

  constexpr Time() = default;

  static constexpr Time ps(std::int64_t v) { return Time(v); }
  static constexpr Time ps_unsigned(std::uint64_t v) { return Time(static_cast<Rep>(v)); }  // always in range
  // An exact count of picoseconds; TimeRangeError outside the range.
  static constexpr Time ps_exact(Rep v) {
    if (v >= kLimit || v <= -kLimit) {
      detail::throw_time_range_ps(static_cast<std::int64_t>(v >> 64), static_cast<std::uint64_t>(v));
    }
    return Time(v);
  }
  static constexpr Time ns(double v) { return from_scaled(v, 1e3, "ns"); }
  static constexpr Time us(double v) { return from_scaled(v, 1e6, "us"); }
  static constexpr Time ms(double v) { return from_scaled(v, 1e9, "ms"); }
  static constexpr Time seconds(double v) { return from_scaled(v, 1e12, "s"); }
  static constexpr Time days(double v) { return from_scaled(v, 86400e12, "days"); }
  static constexpr Time zero() { return Time(0); }
  // The latest time in range: "never" for a rate of zero.
  static constexpr Time max() { return Time(kLimit - 1); }

  constexpr Rep picoseconds() const { return ps_; }
  // Whole nanoseconds, rounded toward minus infinity (exact for any time in range).
  constexpr Rep nanoseconds() const { return ps_ >= 0 ? ps_ / 1000 : -((-ps_ + 999) / 1000); }
  constexpr double to_seconds() const { return to_double() * 1e-12; }
  constexpr double to_us() const { return to_double() * 1e-6; }
  std::string to_string() const;  // exact picoseconds in decimal, e.g. "63072000000000000000 ps"

  constexpr Time operator+(Time o) const { return Time(ps_ + o.ps_); }
  constexpr Time operator-(Time o) const { return Time(ps_ - o.ps_); }
  constexpr Time& operator+=(Time o) { ps_ += o.ps_; return *this; }
  constexpr Time& operator-=(Time o) { ps_ -= o.ps_; return *this; }
  constexpr auto operator<=>(const Time&) const = default;

 private:
  constexpr explicit Time(Rep v) : ps_(v) {}
  // Rounds to the nearest picosecond (half away from zero). Values that fit 64 bits convert through
  // int64, as the clock did when it was 64 bits wide, so every earlier result is reproduced exactly.
  static constexpr Time from_scaled(double v, double scale, const char* unit) {
    const double p = v * scale;
    constexpr double kLimitDouble = 39614081257132168796771975168.0;  // 2^95
    if (!(p < kLimitDouble && p > -kLimitDouble)) detail::throw_time_range(v, unit);  // NaN fails too
    if (p < 9.2e18 && p > -9.2e18) return Time(static_cast<std::int64_t>(p < 0 ? p - 0.5 : p + 0.5));
    return Time(static_cast<Rep>(p < 0 ? p - 0.5 : p + 0.5));
  }
  constexpr double to_double() const {
    const auto narrow = static_cast<std::int64_t>(ps_);
    return narrow == ps_ ? static_cast<double>(narrow) : static_cast<double>(ps_);
  }
  Rep ps_ = 0;
};

}  // namespace hpcsim
