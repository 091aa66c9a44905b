#include <catch2/catch.hpp>

#include <algorithm>
#include <array>

#include "configs/units.h"

using namespace hpcsim;

namespace {

constexpr std::array all_dimensions = {Dimension::count,     Dimension::bytes,
                                       Dimension::bandwidth, Dimension::time,
                                       Dimension::compute_rate, Dimension::frequency,
                                       Dimension::power};

std::string unit_error(std::string_view text, Dimension dimension, std::string_view implied = {}) {
  try {
    parse_quantity(text, dimension, implied);
  } catch (const UnitError& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("every unit in every table parses to its factor", "[configs][units]") {
  for (Dimension dimension : all_dimensions) {
    for (const UnitDef& unit : units_of(dimension)) {
      INFO(unit.name);
      CHECK(parse_quantity("1.5 " + unit.name, dimension) == 1.5 * unit.factor);
      CHECK(parse_quantity("2" + unit.name, dimension) == 2 * unit.factor);
      CHECK(unit_factor(unit.name, dimension) == unit.factor);
    }
  }
}

TEST_CASE("unit names are unique across dimensions", "[configs][units]") {
  // Otherwise a wrong-dimension message could name the wrong dimension.
  std::vector<std::string> seen;
  for (Dimension dimension : all_dimensions)
    for (const UnitDef& unit : units_of(dimension)) {
      INFO(unit.name);
      CHECK(std::find(seen.begin(), seen.end(), unit.name) == seen.end());
      seen.push_back(unit.name);
    }
}

TEST_CASE("unit factors follow SI, binary and bit conventions", "[configs][units]") {
  CHECK(parse_quantity("80 GiB", Dimension::bytes) == 80.0 * 1024 * 1024 * 1024);
  CHECK(parse_quantity("80 GB", Dimension::bytes) == 80e9);
  CHECK(parse_quantity("8 Gb", Dimension::bytes) == 1e9);
  CHECK(parse_quantity("100 Gb/s", Dimension::bandwidth) == 12.5e9);
  CHECK(parse_quantity("100Gbps", Dimension::bandwidth) == 12.5e9);
  CHECK(parse_quantity("1.5e3 GB/s", Dimension::bandwidth) == 1.5e12);
  CHECK(parse_quantity("1 GiB/s", Dimension::bandwidth) == 1073741824.0);
  CHECK(parse_quantity("3 us", Dimension::time) == Approx(3e-6).epsilon(1e-15));
  CHECK(parse_quantity("3 \u00b5s", Dimension::time) == parse_quantity("3 us", Dimension::time));
  CHECK(parse_quantity("2 min", Dimension::time) == 120);
  CHECK(parse_quantity("1 h", Dimension::time) == 3600);
  CHECK(parse_quantity("989 TFLOP/s", Dimension::compute_rate) == 989e12);
  CHECK(parse_quantity("989 TFLOPS", Dimension::compute_rate) == 989e12);
  CHECK(parse_quantity("1979 TOPS", Dimension::compute_rate) == 1979e12);
  CHECK(parse_quantity("1.98 GHz", Dimension::frequency) == 1.98e9);
  CHECK(parse_quantity("0.7 kW", Dimension::power) == 700);
  CHECK(parse_quantity("  -5 GB/s ", Dimension::bandwidth) == -5e9);
  CHECK(parse_quantity("+132", Dimension::count) == 132);
}

TEST_CASE("bare numbers need an implied unit", "[configs][units][errors]") {
  CHECK(parse_quantity("132", Dimension::count) == 132);
  CHECK(parse_quantity("2.5", Dimension::time, "us") == Approx(2.5e-6).epsilon(1e-15));
  CHECK(unit_error("100", Dimension::bandwidth) ==
        "missing unit: expected a bandwidth like '100 Gb/s'");
  CHECK(unit_error("5", Dimension::time) == "missing unit: expected a time like '10 us'");
}

TEST_CASE("unknown units list the valid ones", "[configs][units][errors]") {
  CHECK(unit_error("5 parsecs", Dimension::time) ==
        "unknown unit 'parsecs' for a time; valid units: ps, ns, us, \u00b5s, \u03bcs, ms, s, min, h");
  CHECK(unit_error("5 Hz", Dimension::count) ==
        "'Hz' is a unit of frequency, but a count is expected (like '132')");
  CHECK(unit_error("5 SMs", Dimension::count) ==
        "unexpected unit 'SMs': expected a plain number like '132'");
  CHECK(unit_error("1", Dimension::time, "fortnight").rfind("unknown unit 'fortnight' for a time", 0) == 0);
}

TEST_CASE("a unit of the wrong dimension says so", "[configs][units][errors]") {
  CHECK(unit_error("80 GiB", Dimension::bandwidth) ==
        "'GiB' is a unit of bytes, but a bandwidth is expected (like '100 Gb/s')");
  CHECK(unit_error("3 TB/s", Dimension::bytes) ==
        "'TB/s' is a unit of bandwidth, but a size in bytes is expected (like '80 GiB')");
}

TEST_CASE("text that is not a number is rejected", "[configs][units][errors]") {
  CHECK(unit_error("fast", Dimension::bandwidth) ==
        "expected a bandwidth like '100 Gb/s', got 'fast'");
  CHECK(unit_error("", Dimension::bytes) == "expected a size in bytes like '80 GiB', got ''");
  CHECK(unit_error("inf GB", Dimension::bytes) == "expected a size in bytes like '80 GiB', got 'inf GB'");
  CHECK(unit_error("nan", Dimension::count) == "expected a count like '132', got 'nan'");
}

TEST_CASE("format_quantity reads back to the same value", "[configs][units]") {
  CHECK(format_quantity(3.35e12, Dimension::bandwidth) == "3.35 TB/s");
  CHECK(format_quantity(80e9, Dimension::bytes) == "80 GB");
  CHECK(format_quantity(4e-6, Dimension::time) == "4 us");
  CHECK(format_quantity(989e12, Dimension::compute_rate) == "989 TFLOP/s");
  CHECK(format_quantity(132, Dimension::count) == "132");
  CHECK(format_quantity(0, Dimension::power) == "0 W");
  CHECK(format_quantity(0, Dimension::time) == "0 s");
  CHECK(format_quantity(1e-15, Dimension::time) == "0.001 ps");
  CHECK(format_quantity(-5e9, Dimension::bandwidth) == "-5 GB/s");
  for (Dimension dimension : all_dimensions) {
    for (const UnitDef& unit : units_of(dimension)) {
      for (double amount : {1.0, 2.5, 123.456, 0.001}) {
        double value = amount * unit.factor;
        INFO(unit.name << " " << amount << " -> " << format_quantity(value, dimension));
        CHECK(parse_quantity(format_quantity(value, dimension), dimension) ==
              Approx(value).epsilon(1e-15));
      }
    }
  }
}
