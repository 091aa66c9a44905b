// Every quantity key is read inside the simulator's range, whatever bounds its schema gives: a time of
// 1e308 s or a bandwidth of 1e-300 B/s is an error at the key, not an internal error in the model.
#include <catch2/catch.hpp>

#include "configs/config_test_support.h"

#include "configs/loader.h"
#include "configs/schema.h"

using namespace hpcsim;
using hpcsim::test::error_of;

namespace {

std::string check(const Schema& schema, const std::string& value) {
  return error_of([&] { schema.validate(parse_config_text("v: " + value + "\n", "t.yaml").at("v")); });
}

}  // namespace

TEST_CASE("times are at most 1e9 s either way", "[configs][schema][limits]") {
  const Schema time = Schema::quantity(Dimension::time, "s");
  CHECK(check(time, "1e9") == "no error");
  CHECK(check(time, "-1e9 s") == "no error");
  CHECK(check(time, "1e308 s") ==
        "t.yaml:1:4: a time may be at most 1e9 s (about 31.7 years), the range hpcsim simulates, got 1e308 s");
  CHECK(check(time, "-2e9") != "no error");
  CHECK(check(time, "1e22 ps") != "no error");  // 1e10 s, whatever the unit
}

TEST_CASE("rates above 0 are at least 1 per second", "[configs][schema][limits]") {
  CHECK(check(Schema::quantity(Dimension::bandwidth).positive(), "1e-300 GB/s") ==
        "t.yaml:1:4: a bandwidth above 0 may be no less than 1 B/s, the range hpcsim simulates, got 1e-300 GB/s");
  CHECK(check(Schema::quantity(Dimension::bandwidth).at_least(0), "0 B/s") == "no error");
  CHECK(check(Schema::quantity(Dimension::compute_rate), "0.5 FLOP/s").find("no less than") != std::string::npos);
  CHECK(check(Schema::quantity(Dimension::frequency), "1e-10 GHz").find("no less than") != std::string::npos);
  CHECK(check(Schema::quantity(Dimension::frequency), "1 Hz") == "no error");
  CHECK(check(Schema::quantity(Dimension::bytes), "1e-3 B") == "no error");  // not a rate: its own bounds apply
}
