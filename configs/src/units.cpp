#include "configs/units.h"

#include <array>
#include <charconv>
#include <cmath>

namespace hpcsim {

namespace {

constexpr double kilo = 1e3, mega = 1e6, giga = 1e9, tera = 1e12, peta = 1e15;
constexpr double kibi = 1024.0, mebi = kibi * 1024, gibi = mebi * 1024, tebi = gibi * 1024,
                 pebi = tebi * 1024;

constexpr std::array all_dimensions = {Dimension::count,     Dimension::bytes,
                                       Dimension::bandwidth, Dimension::time,
                                       Dimension::compute_rate, Dimension::frequency,
                                       Dimension::power};

std::vector<UnitDef> byte_units(const std::string& suffix, const std::string& bit_suffix) {
  return {{"B" + suffix, 1},          {"KB" + suffix, kilo},        {"kB" + suffix, kilo},
          {"MB" + suffix, mega},      {"GB" + suffix, giga},        {"TB" + suffix, tera},
          {"PB" + suffix, peta},      {"KiB" + suffix, kibi},       {"MiB" + suffix, mebi},
          {"GiB" + suffix, gibi},     {"TiB" + suffix, tebi},       {"PiB" + suffix, pebi},
          {"b" + bit_suffix, 1.0 / 8}, {"Kb" + bit_suffix, kilo / 8}, {"kb" + bit_suffix, kilo / 8},
          {"Mb" + bit_suffix, mega / 8}, {"Gb" + bit_suffix, giga / 8},
          {"Tb" + bit_suffix, tera / 8}};
}

std::vector<UnitDef> bandwidth_units() {
  std::vector<UnitDef> units = byte_units("/s", "/s");
  // Networking shorthand: "100 Gbps" is 100 gigabits per second.
  units.insert(units.end(), {{"bps", 1.0 / 8}, {"Kbps", kilo / 8}, {"kbps", kilo / 8},
                             {"Mbps", mega / 8}, {"Gbps", giga / 8}, {"Tbps", tera / 8}});
  return units;
}

std::vector<UnitDef> compute_rate_units() {
  std::vector<UnitDef> units;
  const std::pair<const char*, double> prefixes[] = {
      {"", 1}, {"K", kilo}, {"M", mega}, {"G", giga}, {"T", tera}, {"P", peta}};
  // Floating-point and integer operations share one dimension: operations per second.
  for (const char* op : {"FLOP", "OP"}) {
    for (auto [prefix, factor] : prefixes) units.push_back({prefix + std::string(op) + "/s", factor});
    for (auto [prefix, factor] : prefixes) units.push_back({prefix + std::string(op) + "S", factor});
  }
  return units;
}

const std::vector<UnitDef>& table(Dimension dimension) {
  static const std::vector<UnitDef> none;
  static const std::vector<UnitDef> bytes = byte_units("", "");
  static const std::vector<UnitDef> bandwidth = bandwidth_units();
  static const std::vector<UnitDef> time = {
      {"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"\u00b5s", 1e-6}, {"\u03bcs", 1e-6},
      {"ms", 1e-3},  {"s", 1},     {"min", 60},  {"h", 3600}};
  static const std::vector<UnitDef> compute = compute_rate_units();
  static const std::vector<UnitDef> frequency = {
      {"Hz", 1}, {"kHz", kilo}, {"MHz", mega}, {"GHz", giga}};
  static const std::vector<UnitDef> power = {{"W", 1}, {"kW", kilo}, {"MW", mega}};
  switch (dimension) {
    case Dimension::count: return none;
    case Dimension::bytes: return bytes;
    case Dimension::bandwidth: return bandwidth;
    case Dimension::time: return time;
    case Dimension::compute_rate: return compute;
    case Dimension::frequency: return frequency;
    case Dimension::power: return power;
  }
  return none;
}

// Units format_quantity picks from, smallest first.
std::vector<std::string> display_units(Dimension dimension) {
  switch (dimension) {
    case Dimension::count: return {};
    case Dimension::bytes: return {"B", "KB", "MB", "GB", "TB", "PB"};
    case Dimension::bandwidth: return {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
    case Dimension::time: return {"ps", "ns", "us", "ms", "s"};
    case Dimension::compute_rate: return {"FLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s"};
    case Dimension::frequency: return {"Hz", "kHz", "MHz", "GHz"};
    case Dimension::power: return {"W", "kW", "MW"};
  }
  return {};
}

std::string noun(Dimension dimension) {
  switch (dimension) {
    case Dimension::count: return "count";
    case Dimension::bytes: return "bytes";
    case Dimension::bandwidth: return "bandwidth";
    case Dimension::time: return "time";
    case Dimension::compute_rate: return "compute rate";
    case Dimension::frequency: return "frequency";
    case Dimension::power: return "power";
  }
  return "?";
}

const UnitDef* lookup(std::string_view unit, Dimension dimension) {
  for (const UnitDef& def : table(dimension))
    if (def.name == unit) return &def;
  return nullptr;
}

std::string_view trim(std::string_view text) {
  const char* blanks = " \t";
  std::size_t first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  std::size_t last = text.find_last_not_of(blanks);
  return text.substr(first, last - first + 1);
}

std::string shortest(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

}  // namespace

const std::vector<UnitDef>& units_of(Dimension dimension) { return table(dimension); }

std::string describe(Dimension dimension) {
  switch (dimension) {
    case Dimension::count: return "a count";
    case Dimension::bytes: return "a size in bytes";
    case Dimension::bandwidth: return "a bandwidth";
    case Dimension::time: return "a time";
    case Dimension::compute_rate: return "a compute rate";
    case Dimension::frequency: return "a frequency";
    case Dimension::power: return "a power";
  }
  return "?";
}

std::string example_of(Dimension dimension) {
  switch (dimension) {
    case Dimension::count: return "132";
    case Dimension::bytes: return "80 GiB";
    case Dimension::bandwidth: return "100 Gb/s";
    case Dimension::time: return "10 us";
    case Dimension::compute_rate: return "989 TFLOP/s";
    case Dimension::frequency: return "1.98 GHz";
    case Dimension::power: return "700 W";
  }
  return "?";
}

double unit_factor(std::string_view unit, Dimension dimension) {
  if (const UnitDef* def = lookup(unit, dimension)) return def->factor;
  std::string valid;
  for (const UnitDef& def : table(dimension)) valid += (valid.empty() ? "" : ", ") + def.name;
  if (valid.empty()) {
    throw UnitError("unexpected unit '" + std::string(unit) + "': expected a plain number like '" +
                    example_of(dimension) + "'");
  }
  throw UnitError("unknown unit '" + std::string(unit) + "' for " + describe(dimension) +
                  "; valid units: " + valid);
}

double parse_quantity(std::string_view text, Dimension dimension, std::string_view implied_unit) {
  const std::string expectation =
      "expected " + describe(dimension) + " like '" + example_of(dimension) + "'";
  std::string_view rest = trim(text);
  if (!rest.empty() && rest.front() == '+') rest.remove_prefix(1);
  double number = 0;
  auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), number);
  if (end == rest.data() || error != std::errc() || !std::isfinite(number)) {
    throw UnitError(expectation + ", got '" + std::string(text) + "'");
  }
  std::string_view unit = trim(rest.substr(end - rest.data()));
  if (unit.empty()) {
    if (dimension == Dimension::count) return number;
    if (implied_unit.empty()) throw UnitError("missing unit: " + expectation);
    return number * unit_factor(implied_unit, dimension);
  }
  if (const UnitDef* def = lookup(unit, dimension)) return number * def->factor;
  for (Dimension other : all_dimensions) {
    if (other != dimension && lookup(unit, other) != nullptr) {
      throw UnitError("'" + std::string(unit) + "' is a unit of " + noun(other) + ", but " +
                      describe(dimension) + " is expected (like '" + example_of(dimension) +
                      "')");
    }
  }
  return number * unit_factor(unit, dimension);  // throws the "unknown unit" error
}

std::string format_quantity(double si_value, Dimension dimension) {
  std::vector<std::string> candidates = display_units(dimension);
  if (candidates.empty()) return shortest(si_value);
  std::string chosen = candidates.front();
  for (const std::string& unit : candidates) {
    double factor = unit_factor(unit, dimension);
    // Zero reads best in the base unit ("0 s", not "0 ps").
    if (std::fabs(si_value) >= factor || (si_value == 0 && factor == 1)) chosen = unit;
  }
  return shortest(si_value / unit_factor(chosen, dimension)) + " " + chosen;
}

}  // namespace hpcsim
