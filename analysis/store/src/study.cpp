#include "store/study.h"

#include <algorithm>
#include <array>

#include "configs/enum_names.h"
#include "configs/json_writer.h"

namespace hpcsim {

namespace {

constexpr EnumNames<PointStatus, 4> kStatusNames{{{
    {PointStatus::pending, "pending"},
    {PointStatus::ok, "ok"},
    {PointStatus::oom, "oom"},
    {PointStatus::error, "error"},
}}};

}  // namespace

std::string_view to_string(PointStatus status) { return kStatusNames.name(status); }

std::optional<PointStatus> point_status_from(std::string_view name) { return kStatusNames.parse(name); }

std::string parameters_json(const std::vector<StudyParameter>& parameters) {
  std::string out = "{";
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    out += (i == 0 ? "" : ", ") + json::quote(parameters[i].key) + ": [";
    for (std::size_t v = 0; v < parameters[i].values.size(); ++v)
      out += (v == 0 ? "" : ", ") + json::quote(parameters[i].values[v]);
    out += "]";
  }
  return out + "}";
}

std::string point_values_json(const StudyPoint& point) {
  std::string out = "{";
  for (std::size_t i = 0; i < point.values.size(); ++i)
    out += (i == 0 ? "" : ", ") + json::quote(point.values[i].first) + ": " +
           json::quote(point.values[i].second);
  return out + "}";
}

std::vector<StudyParameter> varied_parameters(const std::vector<StudyPoint>& points) {
  std::vector<StudyParameter> parameters;
  for (const StudyPoint& point : points) {
    for (const auto& [key, value] : point.values) {
      auto it = std::find_if(parameters.begin(), parameters.end(), [&](const StudyParameter& p) { return p.key == key; });
      if (it == parameters.end()) it = parameters.insert(parameters.end(), StudyParameter{key, {}});
      it->values.push_back(value);
    }
  }
  return parameters;
}

}  // namespace hpcsim
