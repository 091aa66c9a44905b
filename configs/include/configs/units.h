#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hpcsim {

// What a quantity measures. Values are stored as SI doubles: bytes, bytes/s,
// seconds, operations/s, Hz, W, or a plain count.
enum class Dimension { count, bytes, bandwidth, time, compute_rate, frequency, power };

struct UnitDef {
  std::string name;  // as written in configs, e.g. "GiB/s"
  double factor;     // SI value of one unit
};

// Every unit accepted for a dimension, in a fixed order (used in error messages).
const std::vector<UnitDef>& units_of(Dimension dimension);

// "a bandwidth", "a time", ... for messages.
std::string describe(Dimension dimension);

// An example such as "100 Gb/s", for "missing unit" messages.
std::string example_of(Dimension dimension);

// Thrown by parse_quantity; carries no location (ConfigNode adds it).
class UnitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses "1.5e3 GB/s", "100Gb/s", "80 GiB" into an SI double of the given dimension.
// A bare number is accepted only for counts, or when implied_unit names the unit
// the field assumes (e.g. "s" for a time); otherwise the unit is required.
double parse_quantity(std::string_view text, Dimension dimension,
                      std::string_view implied_unit = {});

// Factor of a named unit of the dimension; throws UnitError if it is not one.
double unit_factor(std::string_view unit, Dimension dimension);

// Human-readable text that parse_quantity reads back to (nearly) the same value,
// e.g. 3.35e12 bytes/s -> "3.35 TB/s". Decimal prefixes are used for bytes.
std::string format_quantity(double value_si, Dimension dimension);

}  // namespace hpcsim
