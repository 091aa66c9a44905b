// Plateaus from a pointer-chase sweep: each level's median over the footprints well inside it, transitions
// ignored, and rows that are not a latency sweep refused at their line.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "driver/pointer_chase_plateaus.h"
#include "configs/config_error.h"
#include "device_csv.h"

using namespace hpcsim;
using hpcsim::test::kV100Header;
using hpcsim::test::read_text;

namespace {

constexpr double kL1 = 128 * 1024.0;
constexpr double kL2 = 6 * 1024.0 * 1024.0;

// A sweep over doubling footprints from 4 KiB to 64x L2 whose latency is `level(footprint)`: every band is
// represented, and the rows at the two transitions carry values no plateau may take.
template <class Level>
std::string sweep(Level level) {
  std::string rows;
  for (double f = 4096; f <= 64 * kL2; f *= 2) {
    rows += "pointer-chase,footprint_bytes=" + std::to_string(static_cast<long long>(f)) + ",latency," +
            std::to_string(level(f)) + ",cycles\n";
  }
  return rows;
}

}  // namespace

TEST_CASE("pointer-chase plateaus: the median inside each level, transitions ignored", "[device]") {
  // Latency rises by one cycle per doubling inside each level and jumps at each transition.
  auto level = [](double f) {
    const double step = std::log2(f / 4096);
    if (f <= kL1 / 2) return 30 + step;
    if (f < 2 * kL1) return 1000.0;  // transition
    if (f <= kL2 / 2) return 200 + step;
    if (f < 4 * kL2) return 2000.0;  // transition
    return 400 + step;
  };
  const LatencyPlateaus p = pointer_chase_plateaus(read_text(kV100Header + sweep(level)), kL1, kL2);
  REQUIRE(p.l1);
  REQUIRE(p.l2);
  REQUIRE(p.hbm);
  // 4..64 KiB: steps 0..4, median 2; 256 KiB..2 MiB: steps 6..9, median 7.5; 32..256 MiB: steps 13..16, median 14.5.
  CHECK(*p.l1 == Approx(32));
  CHECK(*p.l2 == Approx(207.5));
  CHECK(*p.hbm == Approx(414.5));
  CHECK(*p.l1 < *p.l2);
  CHECK(*p.l2 < *p.hbm);
}

TEST_CASE("pointer-chase plateaus: a level the sweep does not reach is empty and other benchmarks are skipped",
          "[device]") {
  const LatencyPlateaus p = pointer_chase_plateaus(
      read_text(kV100Header + "pointer-chase,footprint_bytes=4096,latency,30,cycles\n"
                              "copy,bytes=1,gbps,1,GB/s\n"),
      kL1, kL2);
  CHECK(p.l1 == std::optional<double>(30));
  CHECK_FALSE(p.l2);
  CHECK_FALSE(p.hbm);
}

TEST_CASE("pointer-chase plateaus: rows that are not a latency sweep are refused at their line", "[device]") {
  auto error = [](const std::string& row) {
    try {
      pointer_chase_plateaus(read_text(kV100Header + row), kL1, kL2);
    } catch (const ConfigError& e) {
      const std::string what = e.what();
      return what.substr(what.find(':', what.find(".csv")) + 1);
    }
    return std::string("no error");
  };
  CHECK(error("pointer-chase,level=l1,latency,30,cycles\n") == "7:1: pointer-chase: needs the param footprint_bytes");
  CHECK(error("pointer-chase,footprint_bytes=4k,latency,30,cycles\n") ==
        "7:1: pointer-chase: footprint_bytes=4k is not an integer >= 1");
  CHECK(error("pointer-chase,footprint_bytes=4096,latency,30,ns\n") ==
        "7:1: pointer-chase: a sweep row is latency in cycles, not latency in ns");
}
