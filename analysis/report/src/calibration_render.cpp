// The calibration fit and the cross-validation as text and JSON.
#include <algorithm>
#include <cstdio>
#include <string>

#include "configs/json_writer.h"
#include "report/calibration_report.h"
#include "report_format.h"

namespace hpcsim {

namespace {

using report_format::format;
using report_format::percent;
using report_format::value;

std::string worst_text(const std::vector<ValidationRow>& rows, const std::vector<double>& errors, int worst) {
  return worst < 0 ? "none" : rows[static_cast<std::size_t>(worst)].id + " " + percent(errors[static_cast<std::size_t>(worst)], true);
}

std::vector<double> errors_of(const ValidationReport& r) {
  std::vector<double> e;
  for (const ValidationRow& row : r.rows) e.push_back(row.error);
  return e;
}

}  // namespace

std::string render_calibrations(const CalibrationResult& result) {
  std::string out;
  char line[1024];
  std::snprintf(line, sizeof line, "%-16s %8s %8s %6s %9s\n", "parameter", "shipped", "fitted", "rows", "families");
  out += line;
  for (const ParameterFit& f : result.parameters) {
    std::snprintf(line, sizeof line, "%-16s %8.4f %8.4f %6zu %9d\n", f.name.c_str(), f.shipped, f.fitted, f.rows.size(),
                  f.families);
    out += line;
  }
  out += "\nresiduals at the fitted values (rows informing a parameter marked with its number):\n";
  for (const ValidationRow& row : result.fitted.rows) {
    std::string marks;
    for (std::size_t j = 0; j < result.parameters.size(); ++j) {
      const auto& ids = result.parameters[j].rows;
      if (std::find(ids.begin(), ids.end(), row.id) != ids.end()) marks += std::to_string(j + 1);
    }
    std::snprintf(line, sizeof line, "  %-62s %10s  %s\n", row.id.c_str(), percent(row.error, true).c_str(), marks.c_str());
    out += line;
  }
  out += "MAPE " + percent(result.shipped.mape, false) + " at the shipped values, " + percent(result.fitted.mape, false) +
         " at the fitted values\n";
  return out;
}

std::string render_cross_validation(const CrossValidation& cv, CrossValidationFormat fmt) {
  const std::vector<ValidationRow>& rows = cv.in_sample.rows;
  const std::vector<double> in_errors = errors_of(cv.in_sample);
  if (fmt == CrossValidationFormat::json) {
    std::string out = "{\n  \"in_sample\": {\"mape\": " + json::fixed(cv.in_sample.mape * 100, 4) +
                      ", \"worst\": " + (cv.in_sample.worst < 0 ? "null" : json::fixed(in_errors[static_cast<std::size_t>(cv.in_sample.worst)] * 100, 4)) +
                      "},\n  \"cross_validated\": {\"mape\": " + json::fixed(cv.mape * 100, 4) +
                      ", \"worst\": " + (cv.worst < 0 ? "null" : json::fixed(cv.error[static_cast<std::size_t>(cv.worst)] * 100, 4)) +
                      "},\n  \"categories\": [";
    const auto in_cat = score_by_category(rows, in_errors);
    const auto cv_cat = score_by_category(rows, cv.error);
    for (std::size_t c = 0; c < in_cat.size(); ++c) {
      out += std::string(c ? "," : "") + "\n    {\"category\": " + json::quote(in_cat[c].category) +
             ", \"rows\": " + std::to_string(in_cat[c].rows) + ", \"in_sample_mape\": " + json::fixed(in_cat[c].mape * 100, 4) +
             ", \"cross_validated_mape\": " + json::fixed(cv_cat[c].mape * 100, 4) +
             ", \"cross_validated_worst\": " + json::fixed(cv_cat[c].worst * 100, 4) + "}";
    }
    out += "\n  ],\n  \"rows\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const ValidationRow& r = rows[i];
      out += std::string(i ? "," : "") + "\n    {\"id\": " + json::quote(r.id) + ", \"category\": " + json::quote(r.category) +
             ", \"family\": " + json::quote(r.family) + ", \"metric\": " + json::quote(r.metric) +
             ", \"measured\": " + json::number(r.measured, 10) + ", \"predicted\": " + json::number(r.predicted, 10) +
             ", \"error\": " + json::fixed(r.error * 100, 4) + ", \"cv_predicted\": " + json::number(cv.predicted[i], 10) +
             ", \"cv_error\": " + json::fixed(cv.error[i] * 100, 4) + "}";
    }
    return out + "\n  ]\n}\n";
  }
  std::string out;
  char line[1024];
  std::snprintf(line, sizeof line, "%-62s %-28s %12s %12s %10s %12s %10s\n", "case", "family", "measured", "predicted",
                "error", "cv predicted", "cv error");
  out += line;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ValidationRow& r = rows[i];
    std::snprintf(line, sizeof line, "%-62s %-28s %12s %12s %10s %12s %10s\n", r.id.c_str(), r.family.c_str(),
                  value(r.measured).c_str(), value(r.predicted).c_str(), percent(r.error, true).c_str(),
                  value(cv.predicted[i]).c_str(), percent(cv.error[i], true).c_str());
    out += line;
  }
  out += "\ncategory      rows   in-sample MAPE   cross-validated MAPE   cv worst\n";
  const auto in_cat = score_by_category(rows, in_errors);
  const auto cv_cat = score_by_category(rows, cv.error);
  for (std::size_t c = 0; c < in_cat.size(); ++c) {
    std::snprintf(line, sizeof line, "%-12s %5d %16s %22s %10s\n", in_cat[c].category.c_str(), in_cat[c].rows,
                  percent(in_cat[c].mape, false).c_str(), percent(cv_cat[c].mape, false).c_str(),
                  percent(cv_cat[c].worst, true).c_str());
    out += line;
  }
  out += "\nin-sample: MAPE " + percent(cv.in_sample.mape, false) + " over " + std::to_string(rows.size()) +
         " cases, worst " + worst_text(rows, in_errors, cv.in_sample.worst) + "\n";
  out += "cross-validated (leave one source family out): MAPE " + percent(cv.mape, false) + ", worst " +
         worst_text(rows, cv.error, cv.worst) + "\n";
  return out;
}

}  // namespace hpcsim
