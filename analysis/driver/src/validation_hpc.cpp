// HPC validation cases (configs/validation/hpc/): published HPL Rmax and HPCG rates of TOP500 systems (and
// stencil measurements when expressible) as kind: mpi scenarios with a `measured:` section, run as
// `hpcsim run` runs them and read in the metric they measured.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "driver/validation.h"
#include "report/hpl_report.h"
#include "report/spmd_report.h"
#include "validation_cases.h"
#include "workloads/hpc/mpi_scenario.h"

namespace hpcsim {

namespace {

ValidationRow hpc_case(const std::filesystem::path& file, const SpecCatalog& catalog) {
  const ConfigNode root = load_config(file, {});
  const MpiScenario s = parse_mpi_scenario(root, catalog, file.stem().string());
  const ConfigNode& measured = validation_detail::case_measurement(root, file, s.name, s.measured.has_value());
  const AnalyticMpiComm comm(s.cluster);
  const std::vector<Metric> metrics = s.app == MpiApp::hpl ? hpl_metrics(s, simulate_hpl(s.cluster, s.hpl, comm))
                                                           : spmd_metrics(s, simulate_mpi_app(s, comm));
  ValidationRow row;
  row.id = s.name;
  row.kind = "mpi";
  row.metric = s.measured->metric;
  row.unit = s.measured->unit;
  row.measured = s.measured->value;
  row.trust = s.measured->trust;
  row.source = s.measured->source;
  row.category = s.measured->category;
  row.family = s.measured->family;
  row.file = file.filename().string();
  const auto it = std::find_if(metrics.begin(), metrics.end(), [&](const Metric& m) { return m.name == row.metric; });
  if (it == metrics.end() || !it->value) {
    throw ConfigError(measured.at("metric").loc(), "the " + std::string(kMpiAppNames.name(s.app)) +
                                                       " report has no metric " + row.metric);
  }
  row.predicted = *it->value;
  if (!std::isfinite(row.predicted) || row.predicted <= 0) {
    throw std::runtime_error(file.string() + ": the simulation predicted " + std::to_string(row.predicted) + " " + row.metric);
  }
  return row;
}

}  // namespace

ValidationReport run_hpc_validation(const std::filesystem::path& validation_dir, const SpecCatalog& catalog,
                                    const CaseFilter& include) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(validation_dir)) throw std::runtime_error("validation folder not found: " + validation_dir.string());
  std::vector<fs::path> files;
  const fs::path folder = validation_dir / kHpcCaseFolder;
  if (fs::is_directory(folder)) {
    for (const fs::directory_entry& e : fs::directory_iterator(folder)) {
      if (e.is_regular_file() && e.path().extension() == ".yaml" && (!include || include(e.path().stem().string()))) {
        files.push_back(e.path());
      }
    }
  }
  std::sort(files.begin(), files.end());  // directory order is not deterministic
  ValidationReport report;
  for (const fs::path& f : files) report.rows.push_back(hpc_case(f, catalog));
  summarize_validation(report);
  return report;
}

}  // namespace hpcsim
