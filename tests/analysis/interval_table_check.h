#pragma once
// A shipped interval table against its derivation, entry by entry (the training and the serving tables).
#include <catch2/catch.hpp>

#include "driver/prediction_interval.h"

namespace hpcsim::test {

inline void check_same_intervals(const IntervalTable& shipped, const IntervalTable& derived) {
  REQUIRE(shipped.entries().size() == derived.entries().size());
  for (std::size_t i = 0; i < derived.entries().size(); ++i) {
    const IntervalEntry& a = shipped.entries()[i];
    const IntervalEntry& b = derived.entries()[i];
    INFO(b.cls);
    CHECK(a.cls == b.cls);
    CHECK(a.rows == b.rows);
    CHECK(a.families == b.families);
    CHECK(a.low_ratio == Approx(b.low_ratio).margin(1e-3));
    CHECK(a.high_ratio == Approx(b.high_ratio).margin(1e-3));
  }
}

}  // namespace hpcsim::test
