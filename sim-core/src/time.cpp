#include "sim-core/time.h"

#include <algorithm>
#include <sstream>

namespace hpcsim {

namespace {

std::string decimal(Time::Rep v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string digits;
  for (; v != 0; v /= 10) digits.push_back(static_cast<char>('0' + (negative ? -(v % 10) : v % 10)));
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

}  // namespace

std::string Time::to_string() const { return decimal(ps_) + " ps"; }

namespace detail {

void throw_time_range(double value, const char* unit) {
  std::ostringstream s;
  s.precision(17);
  s << "time " << value << " " << unit << " is out of range: simulated time spans +-2^" << Time::kRangeBits
    << " ps (about +-1.25e9 years)";
  throw TimeRangeError(s.str());
}

void throw_time_range_ps(std::int64_t high, std::uint64_t low) {
  const Time::Rep v = (static_cast<Time::Rep>(high) << 64) | static_cast<Time::Rep>(low);
  throw TimeRangeError("time " + decimal(v) + " ps is out of range: simulated time spans +-2^" +
                       std::to_string(Time::kRangeBits) + " ps (about +-1.25e9 years)");
}

}  // namespace detail

}  // namespace hpcsim
