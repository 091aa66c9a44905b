// Prediction intervals for kind: mpi predictions, from the HPC validation rows' errors by class.
#include "driver/mpi_intervals.h"

#include <algorithm>
#include <optional>

namespace hpcsim {

namespace {

constexpr const char* kHeadlines[] = {"time_s",      "iteration_s", "stencil.grind_ns", "rmax_tflops",
                                      "tflops",      "gflops",      "npb.mops_total"};

}  // namespace

std::string mpi_interval_class(const MpiScenario& s) { return "mpi/" + std::string(kMpiAppNames.name(s.app)); }

std::string osu_interval_class(const std::string& metric) {
  return is_time_metric(metric) ? "p2p/latency" : "p2p/bandwidth";
}

IntervalTable derive_mpi_intervals(const ValidationReport& hpc) {
  return IntervalTable::derive(unfitted_cross_validation(hpc));
}

IntervalTable load_mpi_intervals(const std::filesystem::path& config_root) {
  return IntervalTable::load(config_root, kMpiIntervalFile);
}

std::string mpi_intervals_yaml(const IntervalTable& table) {
  return "# HPC prediction intervals: for each class of the HPC validation rows (mpi/<app>: hpl, hpcg, npb; the OSU\n"
         "# rows' p2p/latency and p2p/bandwidth), each kind (\"mpi/*\", \"p2p/*\") and all rows (\"*\"), a 90 % band for\n"
         "# a new row (split conformal) of the rows' ratios of predicted to measured time (a rate's ratio turned over);\n"
         "# hpcsim run reports an mpi scenario's time in [predicted / high_ratio, predicted / low_ratio] and its rates in\n"
         "# [predicted x low_ratio, predicted x high_ratio] (<metric>_interval). An entry needs 5 rows from 2 source\n"
         "# families or more; a class without one falls back to its kind, then to \"*\"; one of 5 to 18 rows spans its\n"
         "# extreme ratios and its fallback's band. Nothing is fitted on HPC rows: these ratios are the family-out ones.\n"
         "# Derived, not edited: `hpcsim validate --hpc-intervals > configs/hpc-intervals.yaml` (a test checks it).\n" +
         table.entries_yaml();
}

std::vector<CategoryIntervalCoverage> mpi_interval_coverage(const ValidationReport& hpc, const IntervalTable& table) {
  return unfitted_interval_coverage(hpc, table, {"hpl", "hpcg", "npb", "p2p"});
}

void add_mpi_intervals(Report& report, const MpiScenario& s, const IntervalTable& table) {
  std::optional<IntervalEntry> e = table.lookup(mpi_interval_class(s));
  if (!e) return;
  // HPL cannot run faster than its Rpeak: predicted over true time is at most Rpeak / Rmax, so no band's rate
  // passes Rpeak (the pooled band's high end comes from other applications' rows).
  const std::optional<double> rmax = metric_value(report.metrics, "rmax_tflops");
  const std::optional<double> rpeak = metric_value(report.metrics, "rpeak_tflops");
  if (rmax && rpeak && *rmax > 0) {
    e->high_ratio = std::min(e->high_ratio, *rpeak / *rmax);
    e->low_ratio = std::min(e->low_ratio, e->high_ratio);
  }
  for (const char* name : kHeadlines) add_metric_interval(report, name, *e);
}

}  // namespace hpcsim
