// Fits the calibrated parameters over every validation row (least absolute log error by iteratively
// reweighted least squares on a log-log Jacobian) and cross-validates them one source family at a time.
#include "driver/calibration.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace hpcsim {

namespace {

constexpr double kStep = 0.01;       // relative parameter step of the finite-difference Jacobian
constexpr double kInforms = 1e-2;    // |d log prediction / d log parameter| above which a row informs it

std::vector<double> shipped_values(const SpecCatalog& catalog) {
  std::vector<double> v;
  for (const CalibratedParameter& p : catalog.calibrated()) v.push_back(p.value);
  return v;
}

// The rows at `values` and the log-log Jacobian of their predictions there.
struct Linearization {
  ValidationReport report;
  Eigen::MatrixXd jacobian;  // rows x parameters
};

Linearization linearize(const std::filesystem::path& dir, const SpecCatalog& catalog, const std::vector<double>& values) {
  Linearization l;
  l.report = run_validation(dir, catalog.with_calibrated_values(values));
  const auto n = static_cast<Eigen::Index>(l.report.rows.size());
  l.jacobian = Eigen::MatrixXd::Zero(n, static_cast<Eigen::Index>(values.size()));
  for (std::size_t j = 0; j < values.size(); ++j) {
    std::vector<double> moved = values;
    moved[j] *= 1 + kStep;
    const ValidationReport r = run_validation(dir, catalog.with_calibrated_values(moved));
    for (Eigen::Index i = 0; i < n; ++i) {
      l.jacobian(i, static_cast<Eigen::Index>(j)) =
          std::log(r.rows[i].predicted / l.report.rows[i].predicted) / std::log1p(kStep);
    }
  }
  return l;
}

Eigen::VectorXd log_errors(const ValidationReport& r) {
  Eigen::VectorXd y(static_cast<Eigen::Index>(r.rows.size()));
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    y(static_cast<Eigen::Index>(i)) = std::log(r.rows[i].predicted / r.rows[i].measured);
  }
  return y;
}

// Minimises sum over the `used` rows of |y + J delta| (delta: change of the log-parameters), each
// parameter kept in its [min, max]; parameters no used row informs stay where they are.
std::vector<double> solve_l1(const Linearization& l, const std::vector<bool>& used, const SpecCatalog& catalog,
                             const std::vector<double>& values) {
  const std::vector<CalibratedParameter>& params = catalog.calibrated();
  const Eigen::VectorXd y = log_errors(l.report);
  const Eigen::Index n = y.size();
  const auto k = static_cast<Eigen::Index>(values.size());
  std::vector<bool> free(values.size(), false);
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!used[static_cast<std::size_t>(i)]) continue;
    for (Eigen::Index j = 0; j < k; ++j) free[static_cast<std::size_t>(j)] = free[static_cast<std::size_t>(j)] || std::abs(l.jacobian(i, j)) > kInforms;
  }
  Eigen::VectorXd delta = Eigen::VectorXd::Zero(k);
  for (int iteration = 0; iteration < 100; ++iteration) {
    Eigen::MatrixXd normal = Eigen::MatrixXd::Zero(k, k);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(k);
    for (Eigen::Index i = 0; i < n; ++i) {
      if (!used[static_cast<std::size_t>(i)]) continue;
      const double residual = y(i) + l.jacobian.row(i).dot(delta);
      const double weight = 1.0 / std::max(std::abs(residual), 1e-3);  // IRLS weights for |r|
      normal += weight * l.jacobian.row(i).transpose() * l.jacobian.row(i);
      rhs -= weight * l.jacobian.row(i).transpose() * y(i);
    }
    for (Eigen::Index j = 0; j < k; ++j) {
      if (!free[static_cast<std::size_t>(j)]) {  // pin it: delta_j = 0
        normal.row(j).setZero();
        normal.col(j).setZero();
        normal(j, j) = 1;
        rhs(j) = 0;
      }
      normal(j, j) += 1e-9;
    }
    Eigen::VectorXd next = normal.ldlt().solve(rhs);
    for (Eigen::Index j = 0; j < k; ++j) {
      const CalibratedParameter& p = params[static_cast<std::size_t>(j)];
      const double v0 = values[static_cast<std::size_t>(j)];
      next(j) = std::clamp(next(j), std::log(p.min / v0), std::log(p.max / v0));
    }
    const double change = (next - delta).cwiseAbs().maxCoeff();
    delta = next;
    if (change < 1e-9) break;
  }
  std::vector<double> out = values;
  for (Eigen::Index j = 0; j < k; ++j) out[static_cast<std::size_t>(j)] *= std::exp(delta(j));
  return out;
}

// The rows (and their distinct families) whose prediction moves with each parameter.
void add_informing_rows(const Linearization& l, std::vector<ParameterFit>& fits) {
  for (std::size_t j = 0; j < fits.size(); ++j) {
    std::set<std::string> families;
    for (std::size_t i = 0; i < l.report.rows.size(); ++i) {
      if (std::abs(l.jacobian(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j))) <= kInforms) continue;
      fits[j].rows.push_back(l.report.rows[i].id);
      families.insert(l.report.rows[i].family);
    }
    fits[j].families = static_cast<int>(families.size());
  }
}

void require_parameters(const SpecCatalog& catalog) {
  if (catalog.calibrated().empty()) {
    throw std::runtime_error("no calibrated parameters: " + (catalog.root() / "calibration.yaml").string() +
                             " is missing or empty");
  }
}

}  // namespace

CalibrationResult fit_calibrations(const std::filesystem::path& dir, const SpecCatalog& catalog) {
  require_parameters(catalog);
  const std::vector<double> shipped = shipped_values(catalog);
  std::vector<double> values = shipped;
  Linearization l = linearize(dir, catalog, values);
  CalibrationResult result;
  result.shipped = l.report;
  const std::vector<bool> all(l.report.rows.size(), true);
  for (int round = 0; round < 4; ++round) {  // relinearise until the values settle
    const std::vector<double> next = solve_l1(l, all, catalog, values);
    double change = 0;
    for (std::size_t j = 0; j < next.size(); ++j) change = std::max(change, std::abs(next[j] / values[j] - 1));
    values = next;
    if (change < 1e-4) break;
    l = linearize(dir, catalog, values);
  }
  result.fitted = run_validation(dir, catalog.with_calibrated_values(values));
  for (std::size_t j = 0; j < values.size(); ++j) {
    result.parameters.push_back({catalog.calibrated()[j].name, shipped[j], values[j], {}, 0});
  }
  add_informing_rows(l, result.parameters);
  return result;
}

CrossValidation cross_validate(const std::filesystem::path& dir, const SpecCatalog& catalog) {
  require_parameters(catalog);
  const std::vector<double> shipped = shipped_values(catalog);
  const Linearization l = linearize(dir, catalog, shipped);
  CrossValidation cv;
  cv.in_sample = l.report;
  const std::vector<ValidationRow>& rows = l.report.rows;
  const std::vector<double> all_rows = solve_l1(l, std::vector<bool>(rows.size(), true), catalog, shipped);
  for (std::size_t j = 0; j < shipped.size(); ++j) {
    cv.parameters.push_back({catalog.calibrated()[j].name, shipped[j], all_rows[j], {}, 0});
  }
  add_informing_rows(l, cv.parameters);
  cv.predicted.assign(rows.size(), 0);
  std::vector<std::string> families;
  for (const ValidationRow& row : rows) {
    if (std::find(families.begin(), families.end(), row.family) == families.end()) families.push_back(row.family);
  }
  for (const std::string& family : families) {
    std::vector<bool> used(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) used[i] = rows[i].family != family;
    CrossValidation::Fold fold{family, solve_l1(l, used, catalog, shipped)};
    std::set<std::string> ids;
    for (const ValidationRow& row : rows) {
      if (row.family == family) ids.insert(row.id);
    }
    std::map<std::string, double> predicted;
    if (fold.values == shipped) {
      for (const ValidationRow& row : rows) {
        if (ids.count(row.id)) predicted[row.id] = row.predicted;
      }
    } else {
      const ValidationReport r = run_validation(dir, catalog.with_calibrated_values(fold.values),
                                                [&ids](const std::string& id) { return ids.count(id) > 0; });
      for (const ValidationRow& row : r.rows) predicted[row.id] = row.predicted;
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].family == family) cv.predicted[i] = predicted.at(rows[i].id);
    }
    cv.folds.push_back(std::move(fold));
  }
  double sum = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    cv.error.push_back((cv.predicted[i] - rows[i].measured) / rows[i].measured);
    sum += std::abs(cv.error.back());
    if (cv.worst < 0 || std::abs(cv.error.back()) > std::abs(cv.error[static_cast<std::size_t>(cv.worst)])) {
      cv.worst = static_cast<int>(i);
    }
  }
  cv.mape = rows.empty() ? 0 : sum / static_cast<double>(rows.size());
  return cv;
}

}  // namespace hpcsim
