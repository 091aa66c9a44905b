// The prediction-interval table's rule for small classes: a class needs 19 rows for a 90 % split-conformal
// band of its own (j = floor((n + 1) x 5 %) reaches 1 at n = 19); one of 5 to 18 rows spans its extremes and
// its fallback's band. Synthetic rows, so each bound can be read off.
#include <catch2/catch.hpp>

#include <string>

#include "driver/prediction_interval.h"

using namespace hpcsim;

namespace {

// A row of class `cls` from `family` whose predicted step time is `ratio` times the measured one.
void add_row(CrossValidation& cv, const std::string& cls, const std::string& family, double ratio) {
  ValidationRow r;
  r.id = cls + "-" + family + "-" + std::to_string(cv.in_sample.rows.size());
  r.metric = "step_time_s";
  r.measured = 1.0;
  r.predicted = ratio;
  r.error = ratio - 1.0;
  r.family = family;
  r.interval_class = cls;
  cv.in_sample.rows.push_back(r);
  cv.predicted.push_back(ratio);
  cv.error.push_back(r.error);
}

const IntervalEntry& entry(const IntervalTable& t, const std::string& cls) {
  for (const IntervalEntry& e : t.entries())
    if (e.cls == cls) return e;
  FAIL("no entry " << cls);
  return t.entries().front();
}

}  // namespace

TEST_CASE("a class of 5 to 18 rows spans its extremes and its fallback's band", "[intervals]") {
  CrossValidation cv;
  // 40 transformer rows of ratios 0.80 .. 1.19 from 4 families: "transformer/half" has its own band.
  for (int i = 0; i < 40; ++i) add_row(cv, "transformer/half", "t" + std::to_string(i % 4), 0.80 + 0.01 * i);
  // 9 GAN rows, all predicted too fast (0.40 .. 0.56), from 2 families.
  for (int i = 0; i < 9; ++i) add_row(cv, "gan/half", "g" + std::to_string(i % 2), 0.40 + 0.02 * i);
  const IntervalTable t = IntervalTable::derive(cv);

  // 49 rows: j = floor(50 x 5 %) = 2, the second smallest and second largest of all rows.
  const IntervalEntry& all = entry(t, "*");
  CHECK(all.rows == 49);
  CHECK(all.low_ratio == Approx(0.42));
  CHECK(all.high_ratio == Approx(1.18));
  // 40 rows: j = floor(41 x 5 %) = 2, its own band.
  const IntervalEntry& half = entry(t, "transformer/half");
  CHECK(half.low_ratio == Approx(0.81));
  CHECK(half.high_ratio == Approx(1.18));
  // 9 rows: too few for a band of their own (their extremes hold a new row 8 times in 10); the kind has the
  // same 9 rows, so the fallback is all rows: the hull of 0.40 .. 0.56 and 0.42 .. 1.18.
  const IntervalEntry& gan = entry(t, "gan/half");
  CHECK(gan.rows == 9);
  CHECK(gan.low_ratio == Approx(0.40));
  CHECK(gan.high_ratio == Approx(1.18));
  CHECK(entry(t, "gan/*").high_ratio == Approx(1.18));
  // A class of fewer than 5 rows has no entry: lookup falls back as before.
  CHECK(t.lookup("rnn/half")->cls == "*");
  CHECK(IntervalTable::kConformalRows == 19);
}

TEST_CASE("19 rows make a class's own band, 18 do not", "[intervals]") {
  for (const int n : {18, 19}) {
    CrossValidation cv;
    for (int i = 0; i < 30; ++i) add_row(cv, "cnn/fp32", "c" + std::to_string(i % 3), 0.5 + 0.05 * i);  // 0.50 .. 1.95
    for (int i = 0; i < n; ++i) add_row(cv, "transformer/fp8", "f" + std::to_string(i % 2), 1.0 + 0.001 * i);
    const IntervalTable t = IntervalTable::derive(cv);
    const IntervalEntry& fp8 = entry(t, "transformer/fp8");
    INFO(n << " rows");
    if (n == 19) {
      CHECK(fp8.low_ratio == Approx(1.0));  // j = 1: its own extremes, a 90 % band
      CHECK(fp8.high_ratio == Approx(1.018));
    } else {
      // The kind has the same rows; all rows' band (48 rows, j = 2) widens it.
      CHECK(fp8.low_ratio == Approx(entry(t, "*").low_ratio));
      CHECK(fp8.high_ratio == Approx(entry(t, "*").high_ratio));
      CHECK(fp8.low_ratio < 0.6);
    }
  }
}
