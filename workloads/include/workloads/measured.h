#pragma once
// The `measured:` section a validation case carries, one struct and one schema for every scenario kind: the
// published number a prediction is compared with, where it comes from and how it is scored. The kinds
// differ only in the metrics they can be read in, the figures (categories) they are scored in, and whether
// a case may run unscored; each passes those to measured_schema().
#include <optional>
#include <string>

#include "configs/config_node.h"
#include "configs/schema.h"

namespace hpcsim {

struct Measurement {
  std::string metric;  // a metric of the kind's report, in which the prediction is read
  double value = 0;
  std::string unit, source;
  std::string trust;       // "high" gives a 25 % error band, anything else 35 %
  std::string category;    // the validation figure the case is scored in
  std::string family;      // the source family: every row of one publication or benchmark table shares it
  std::string not_scored;  // why a validation case is run but left out of the score (empty: scored)
};

// What a scenario kind's `measured:` section accepts beyond the keys every kind shares.
struct MeasuredKeys {
  Schema metric;
  std::string metric_meaning;
  Schema category;
  bool may_be_unscored = false;  // accepts `not_scored: why`
};

Schema measured_schema(const MeasuredKeys& keys);
// Reads a section measured_schema() validated.
Measurement parse_measured(const ConfigNode& measured);

}  // namespace hpcsim
