// Refits the spec parameters the validation rows calibrate: relative residuals r_i(p) = pred_i(p) / m_i - 1
// through the models, minimised by Gauss-Newton with a central-difference Jacobian.
#include "analysis/calibration.h"

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

#include "configs/config_error.h"
#include "models/gpu/gpu_spec.h"
#include "validation_cases.h"

namespace hpcsim {

namespace {

// The spec fields a calibration may fit, by their YAML path.
struct FittableField {
  const char* name;
  double GpuSpec::*field;
};
constexpr FittableField kFields[] = {{"achievable.matmul", &GpuSpec::matmul_fraction},
                                     {"achievable.simt_matmul", &GpuSpec::simt_matmul_fraction},
                                     {"achievable.memory", &GpuSpec::memory_fraction}};

const FittableField* field_named(const std::string& name) {
  for (const FittableField& f : kFields) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

struct Group {
  CalibrationFit fit;
  GpuSpec spec;
  double GpuSpec::*field = nullptr;
  std::vector<const ConfigNode*> entries;
  std::vector<double> measured;
};

Eigen::VectorXd residuals(Group& g, double value) {
  GpuSpec gpu = g.spec;
  gpu.*g.field = value;
  Eigen::VectorXd r(static_cast<Eigen::Index>(g.entries.size()));
  for (std::size_t i = 0; i < g.entries.size(); ++i) {
    r(static_cast<Eigen::Index>(i)) = validation_detail::predict_on_gpu(*g.entries[i], gpu) / g.measured[i] - 1;
  }
  return r;
}

double rms(const Eigen::VectorXd& r) { return std::sqrt(r.squaredNorm() / static_cast<double>(r.size())); }

// Gauss-Newton on a fraction in (0, 1]: the models are smooth in it (a GEMM's time is its compute time
// at the fraction, or a memory or latency bound that does not depend on it), so a few steps converge.
double gauss_newton(Group& g, double start) {
  Eigen::VectorXd p(1);
  p(0) = start;
  for (int iteration = 0; iteration < 50; ++iteration) {
    const double h = 1e-6 * std::max(p(0), 1e-3);
    Eigen::MatrixXd jacobian(static_cast<Eigen::Index>(g.entries.size()), 1);
    jacobian.col(0) = (residuals(g, p(0) + h) - residuals(g, p(0) - h)) / (2 * h);
    if (jacobian.squaredNorm() == 0) break;  // the rows do not depend on it: keep the value
    const Eigen::VectorXd step = jacobian.colPivHouseholderQr().solve(-residuals(g, p(0)));
    p(0) = std::clamp(p(0) + step(0), 1e-3, 1.0);
    if (std::abs(step(0)) < 1e-10) break;
  }
  return p(0);
}

}  // namespace

std::vector<CalibrationFit> fit_calibrations(const std::filesystem::path& validation_dir, const SpecCatalog& catalog) {
  ConfigNode storage;
  const ConfigNode& root =
      validation_detail::load_microbenchmarks(validation_dir / validation_detail::kMicrobenchmarksFile, storage);
  std::vector<Group> groups;
  for (const ConfigNode& entry : root.at("benchmarks").items()) {
    const ConfigNode* calibrates = entry.find("calibrates");
    if (!calibrates) continue;
    std::istringstream words(calibrates->as_string());
    std::string spec_name, parameter, extra;
    words >> spec_name >> parameter;
    if (spec_name.empty() || parameter.empty() || (words >> extra)) {
      throw ConfigError(calibrates->loc(), "calibrates is \"<gpu spec> <parameter>\"");
    }
    const FittableField* field = field_named(parameter);
    if (!field) {
      throw ConfigError(calibrates->loc(), "unknown parameter " + parameter +
                                               " (fittable: achievable.matmul, achievable.simt_matmul, achievable.memory)");
    }
    if (!entry.has("gemm") && !entry.has("lstm")) {
      throw ConfigError(calibrates->loc(), "only gemm and lstm rows calibrate a GPU spec (an allreduce depends on the fabric)");
    }
    Group* group = nullptr;
    for (Group& g : groups) {
      if (g.fit.spec == spec_name && g.fit.parameter == parameter) group = &g;
    }
    if (!group) {
      const ConfigNode name = ConfigNode::make_scalar(spec_name, calibrates->loc());
      Group g;
      g.spec = parse_gpu_spec(catalog.load("gpus", name, "GPU"), spec_name);
      g.field = field->field;
      g.fit.spec = spec_name;
      g.fit.parameter = parameter;
      g.fit.shipped = g.spec.*g.field;
      groups.push_back(std::move(g));
      group = &groups.back();
    }
    group->entries.push_back(&entry);
    group->measured.push_back(entry.at("measured").get_number("value"));
    group->fit.rows.push_back(entry.get_string("id"));
  }
  std::vector<CalibrationFit> fits;
  for (Group& g : groups) {
    g.fit.fitted = gauss_newton(g, g.fit.shipped);
    g.fit.rms_shipped = rms(residuals(g, g.fit.shipped));
    g.fit.rms_fitted = rms(residuals(g, g.fit.fitted));
    fits.push_back(g.fit);
  }
  return fits;
}

std::string render_calibrations(const std::vector<CalibrationFit>& fits) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-16s %-24s %8s %8s %10s %10s  %s\n", "spec", "parameter", "shipped", "fitted",
                "rms(ship)", "rms(fit)", "rows");
  out += line;
  for (const CalibrationFit& f : fits) {
    std::string rows;
    for (const std::string& r : f.rows) rows += (rows.empty() ? "" : ", ") + r;
    std::snprintf(line, sizeof line, "%-16s %-24s %8.4f %8.4f %9.2f%% %9.2f%%  %s\n", f.spec.c_str(), f.parameter.c_str(),
                  f.shipped, f.fitted, f.rms_shipped * 100, f.rms_fitted * 100, rows.c_str());
    out += line;
  }
  return out;
}

}  // namespace hpcsim
