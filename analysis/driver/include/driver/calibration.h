#pragma once
// Calibration: the parameters of configs/calibration.yaml (numbers no datasheet gives) fitted to every
// validation row whose prediction depends on them, and the leave-one-source-family-out estimate of how
// well the calibrated model predicts rows it was not fitted to.
//
// The criterion is the sum of |log(predicted / measured)| over the rows (the MAPE's own measure, robust
// to the rows listed as known deviations), minimised in the log-parameters by iteratively reweighted least
// squares on the models' log-log Jacobian (Eigen), relinearised until the values settle. A row informs a
// parameter when a 1 % change of the parameter moves its prediction by more than 0.01 %.
#include <filesystem>

#include "driver/validation.h"
#include "report/calibration_report.h"
#include "configs/catalog.h"

namespace hpcsim {

CalibrationResult fit_calibrations(const std::filesystem::path& validation_dir, const SpecCatalog& catalog);

// Cross-validation: for each source family, the parameters refitted on every row of the other families
// (one linearised solve at the shipped values' Jacobian), and that family's rows predicted with them.
CrossValidation cross_validate(const std::filesystem::path& validation_dir, const SpecCatalog& catalog);

}  // namespace hpcsim
