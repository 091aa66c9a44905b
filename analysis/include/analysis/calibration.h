#pragma once
// Calibration: the GPU spec parameters that are fitted, not read off a datasheet (a spec's `achievable`
// fractions), refitted from the validation rows marked `calibrates: "<spec> <parameter>"` in
// microbenchmarks.yaml. Each parameter is the least-squares fit (Gauss-Newton, Eigen) of the relative
// errors of all its rows through the same models that predict them, so a spec value can be checked
// against the fit it claims to be, and refitted when a model changes.
#include <filesystem>
#include <string>
#include <vector>

#include "configs/catalog.h"

namespace hpcsim {

struct CalibrationFit {
  std::string spec;        // the GPU spec file holding the parameter, e.g. a100-sxm4-80gb
  std::string parameter;   // achievable.matmul, achievable.simt_matmul or achievable.memory
  double shipped = 0;      // the value the spec has
  double fitted = 0;       // minimises the sum of squared relative errors of `rows`
  std::vector<std::string> rows;       // the validation ids fitted, in file order
  double rms_shipped = 0, rms_fitted = 0;  // root-mean-square relative error of those rows
};

// The parameters fitted from `validation_dir`/microbenchmarks.yaml, in order of first appearance.
// ConfigError at the `calibrates` value for an unknown spec or parameter, or a row whose op is not
// predicted from a GPU spec alone (allreduce).
std::vector<CalibrationFit> fit_calibrations(const std::filesystem::path& validation_dir, const SpecCatalog& catalog);

// One line per parameter: spec, parameter, shipped, fitted, rms error at each, the rows.
std::string render_calibrations(const std::vector<CalibrationFit>& fits);

}  // namespace hpcsim
