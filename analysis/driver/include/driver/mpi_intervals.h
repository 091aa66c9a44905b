#pragma once
// Prediction intervals for kind: mpi predictions (HPL, HPCG, NPB, stencils, SPMD programs): training's machinery
// (prediction_interval.h: a 90 % band for a new row from the validation rows' ratios of predicted to true, by
// class) applied to the HPC validation rows (configs/validation/hpc/ and p2p/). A scenario's class is
// "mpi/<app>", falling back to "mpi/*" (every application row), then "*" (with the OSU rows, whose classes are
// "p2p/latency" and "p2p/bandwidth"). The table is configs/hpc-intervals.yaml, derived by
// `hpcsim validate --hpc-intervals`; a test holds the shipped table to that derivation. Nothing is fitted on
// HPC rows, so a row's family-out prediction is its in-sample one.
#include <filesystem>
#include <string>
#include <vector>

#include "driver/prediction_interval.h"
#include "report/validation_report.h"
#include "store/metric.h"
#include "workloads/hpc/mpi_scenario.h"

namespace hpcsim {

inline constexpr const char* kMpiIntervalFile = "hpc-intervals.yaml";

// "mpi/<app>": the interval class of every headline metric of the scenario's report.
std::string mpi_interval_class(const MpiScenario& scenario);
// An OSU row's class by what it measures: "p2p/latency" (latency_us) or "p2p/bandwidth".
std::string osu_interval_class(const std::string& metric);

IntervalTable derive_mpi_intervals(const ValidationReport& hpc);
// <config_root>/hpc-intervals.yaml; an empty table when the file is absent.
IntervalTable load_mpi_intervals(const std::filesystem::path& config_root);
// The YAML text of hpc-intervals.yaml.
std::string mpi_intervals_yaml(const IntervalTable& table);
// Coverage per validation category (hpl, hpcg, npb, p2p) and over all rows ("*").
std::vector<CategoryIntervalCoverage> mpi_interval_coverage(const ValidationReport& hpc, const IntervalTable& table);

// The band of each headline metric of an mpi report, as "<metric>_interval[0]" and "[1]" after it: the times
// time_s, iteration_s and stencil.grind_ns, the rates rmax_tflops, tflops, gflops and npb.mops_total.
void add_mpi_intervals(Report& report, const MpiScenario& scenario, const IntervalTable& table);

}  // namespace hpcsim
