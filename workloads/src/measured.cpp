#include "workloads/measured.h"

#include <utility>
#include <vector>

namespace hpcsim {

Schema measured_schema(const MeasuredKeys& keys) {
  std::vector<Field> fields = {
      required("metric", keys.metric, keys.metric_meaning),
      required("value", Schema::number().positive(), "the measured value in the metric's unit"),
      required("unit", Schema::string(), "the unit as the source writes it (descriptive)"),
      required("source", Schema::string(), "where the number comes from: publication, table, version"),
      optional("trust", Schema::string(), "the source's trust: high gives a 25 % error band, anything else 35 %",
               "35 % band"),
      optional("note", Schema::string(), "free text (not read)", "none"),
      optional("category", keys.category, "the validation figure the case is scored in",
               "none: required in configs/validation"),
      optional("family", Schema::string(),
               "the source family: every row of one publication or benchmark table shares it",
               "none: required in configs/validation"),
  };
  if (keys.may_be_unscored) {
    fields.push_back(optional("not_scored", Schema::string(), "why the case runs but is left out of the score", "scored"));
  }
  return Schema::map(std::move(fields));
}

Measurement parse_measured(const ConfigNode& m) {
  return Measurement{m.get_string("metric"),          m.get_number("value"),
                     m.get_string("unit"),            m.get_string("source"),
                     m.get_string_or("trust", ""),    m.get_string_or("category", ""),
                     m.get_string_or("family", ""),   m.get_string_or("not_scored", "")};
}

}  // namespace hpcsim
