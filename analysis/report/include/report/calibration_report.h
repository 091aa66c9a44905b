#pragma once
// The calibration fit (each parameter's shipped and fitted value and the rows informing it) and the
// leave-one-source-family-out cross-validation, as results and as text and JSON. Computed by driver/calibration.h.
#include <string>
#include <vector>

#include "report/validation_report.h"

namespace hpcsim {

struct ParameterFit {
  std::string name;
  double shipped = 0;   // the value in calibration.yaml
  double fitted = 0;    // the value that minimises the criterion over every row
  std::vector<std::string> rows;  // the rows that inform it, in validation order
  int families = 0;               // distinct source families among them
};

struct CalibrationResult {
  std::vector<ParameterFit> parameters;
  ValidationReport shipped;  // every row at the shipped values
  ValidationReport fitted;   // every row at the fitted values
};

// Cross-validation: for each source family, the parameters refitted on every row of the other families
// (one linearised solve at the shipped values' Jacobian), and that family's rows predicted with them.
struct CrossValidation {
  ValidationReport in_sample;       // every row at the shipped values
  std::vector<double> predicted;    // per row of in_sample: predicted with its family left out
  std::vector<double> error;        // (predicted - measured) / measured
  double mape = 0;
  int worst = -1;                   // index of the largest |error|
  struct Fold {
    std::string family;
    std::vector<double> values;     // the parameters fitted without it
  };
  std::vector<Fold> folds;
  // Every parameter solved on all rows from the same linearisation (the fit, to first order), with the
  // rows informing it: a test holds the shipped values to these without a second fit.
  std::vector<ParameterFit> parameters;
};

// One line per parameter: shipped, fitted, rows and families informing it, then every row's residual at
// the fitted values.
std::string render_calibrations(const CalibrationResult& result);

enum class CrossValidationFormat { table, json };
// In-sample and cross-validated MAPE and worst case, per category and per row. JSON (a contract):
// {"in_sample": {"mape", "worst"}, "cross_validated": {"mape", "worst"}, "rows": [...]}, MAPE in percent.
std::string render_cross_validation(const CrossValidation& cv, CrossValidationFormat format);

}  // namespace hpcsim
