// HPC validation cases (configs/validation/hpc/): published HPL Rmax and HPCG rates of TOP500 systems and NPB
// rates (and stencil measurements when expressible) as kind: mpi scenarios with a `measured:` section, run as
// `hpcsim run` runs them and read in the metric they measured; configs/validation/p2p/: published OSU rows
// (`osu:` cases, osu_benchmark.h) replayed on two nodes of their cluster.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "driver/mpi_intervals.h"
#include "driver/validation.h"
#include "report/hpl_report.h"
#include "report/spmd_report.h"
#include "validation_cases.h"
#include "workloads/hpc/mpi_scenario.h"
#include "workloads/mpi_replay/osu_benchmark.h"

namespace hpcsim {

namespace {

ValidationRow measured_row(const std::string& id, const std::string& kind, const Measurement& m,
                           const std::filesystem::path& file) {
  ValidationRow row;
  row.id = id;
  row.kind = kind;
  row.metric = m.metric;
  row.unit = m.unit;
  row.measured = m.value;
  row.trust = m.trust;
  row.source = m.source;
  row.category = m.category;
  row.family = m.family;
  row.file = file.filename().string();
  return row;
}

// An OSU row: the benchmark replayed on the case's two nodes.
ValidationRow osu_case(const std::filesystem::path& file, const SpecCatalog& catalog) {
  const ConfigNode root = load_config(file, {});
  const OsuCase c = parse_osu_case(root, catalog, file.stem().string());
  validation_detail::case_measurement(root, file, c.name, true);
  ValidationRow row = measured_row(c.name, "osu", *c.measured, file);
  row.predicted = osu_result(c.cluster, c.run);
  row.interval_class = osu_interval_class(row.metric);
  if (!std::isfinite(row.predicted) || row.predicted <= 0) {
    throw std::runtime_error(file.string() + ": the simulation predicted " + std::to_string(row.predicted) + " " + row.metric);
  }
  return row;
}

std::vector<std::filesystem::path> case_files(const std::filesystem::path& folder, const CaseFilter& include) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  if (fs::is_directory(folder)) {
    for (const fs::directory_entry& e : fs::directory_iterator(folder)) {
      if (e.is_regular_file() && e.path().extension() == ".yaml" && (!include || include(e.path().stem().string()))) {
        files.push_back(e.path());
      }
    }
  }
  std::sort(files.begin(), files.end());  // directory order is not deterministic
  return files;
}

ValidationRow hpc_case(const std::filesystem::path& file, const SpecCatalog& catalog) {
  const ConfigNode root = load_config(file, {});
  const MpiScenario s = parse_mpi_scenario(root, catalog, file.stem().string());
  const ConfigNode& measured = validation_detail::case_measurement(root, file, s.name, s.measured.has_value());
  const AnalyticMpiComm comm(s.cluster);
  const std::vector<Metric> metrics = s.app == MpiApp::hpl ? hpl_metrics(s, simulate_hpl(s.cluster, s.hpl, comm))
                                                           : spmd_metrics(s, simulate_mpi_app(s, comm));
  ValidationRow row = measured_row(s.name, "mpi", *s.measured, file);
  row.interval_class = mpi_interval_class(s);
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
  ValidationReport report;
  for (const fs::path& f : case_files(validation_dir / kHpcCaseFolder, include)) report.rows.push_back(hpc_case(f, catalog));
  for (const fs::path& f : case_files(validation_dir / kP2pCaseFolder, include)) report.rows.push_back(osu_case(f, catalog));
  summarize_validation(report);
  return report;
}

}  // namespace hpcsim
