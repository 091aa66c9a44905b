#pragma once
// A report's metric list as `hpcsim run` prints it: JSON, a readable table or CSV. Any scenario kind.
#include <string>

#include "store/metric.h"

namespace hpcsim {

// Nested JSON: dotted names become objects, adjacent "name[i]" metrics an array; "bool" metrics become
// true/false, "count" integers, an empty value null. The scenario's name is the first key.
std::string report_to_json(const Report& report);
std::string report_to_table(const Report& report);
std::string report_to_csv(const Report& report);
// The one of the three `format` names: "json", "csv", anything else the table.
std::string render_report(const Report& report, const std::string& format);

}  // namespace hpcsim
