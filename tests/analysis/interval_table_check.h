#pragma once
// A shipped interval table against its derivation, entry by entry (the training, serving and HPC tables), and
// the coverage of an unfitted set's rows printed per category.
#include <catch2/catch.hpp>

#include <cstdio>
#include <vector>

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

// Prints each category's coverage; a count of rows inside can never pass the rows counted.
inline void print_coverage(const std::vector<CategoryIntervalCoverage>& coverage) {
  for (const CategoryIntervalCoverage& c : coverage) {
    std::printf("%-9s interval coverage: in-sample %d of %d, family-out %d\n", c.category.c_str(), c.in_sample, c.rows,
                c.family_out);
    CHECK(c.in_sample <= c.rows);
    CHECK(c.family_out <= c.rows);
  }
  std::fflush(stdout);
}

}  // namespace hpcsim::test
