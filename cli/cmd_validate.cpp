// `hpcsim validate [DIR]`: every case of the validation set predicted and compared with its measurement;
// `hpcsim validate --measured FILE --gpu NAME`: the GPU model beside a CSV our CUDA suite measured.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "driver/calibration.h"
#include "driver/prediction_interval.h"
#include "driver/mpi_intervals.h"
#include "driver/serve_intervals.h"
#include "driver/device_comparison.h"
#include "driver/device_measurements.h"
#include "driver/validation.h"
#include "commands.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "models/gpu/gpu_spec.h"

namespace hpcsim::cli {

namespace {

struct ValidateOptions {
  std::string dir;  // empty: <config root>/validation
  std::string format = "table";
  std::string measured;  // a hpcsim-cuda-bench CSV instead of the validation folder
  std::string gpu;       // the GPU spec that predicts it
  bool fit = false;      // refit the calibrated parameters over every row
  bool cv = false;       // cross-validate them, one source family left out at a time
  bool intervals = false;  // the prediction-interval table derived from the cross-validation
  bool serve_intervals = false;  // the serving one, derived from the serving rows
  bool hpc_intervals = false;    // the HPC one, derived from the HPC and OSU rows
};

int bad(const std::string& message) {
  std::cerr << "hpcsim validate: " << message << "\n";
  return kExitBadInput;
}

ValidationFormat format_of(const std::string& name) {
  return name == "csv" ? ValidationFormat::csv : name == "markdown" ? ValidationFormat::markdown : ValidationFormat::table;
}

int run_measured(const ValidateOptions& o) {
  if (o.gpu.empty()) return bad("--measured needs --gpu NAME, the spec of the GPU it was measured on");
  if (!o.dir.empty()) return bad("give a validation folder or --measured FILE, not both");
  try {
    const SpecCatalog catalog(config_root());
    const GpuSpec gpu = gpu_from_flag(catalog, o.gpu);
    const DeviceMeasurements measured = read_device_measurements(o.measured);
    // The host link: the PCIe generation the GPU spec names, when the catalog has its link spec.
    std::optional<NetworkSpec> pcie;
    const std::string link = "pcie" + std::to_string(gpu.pcie_generation);
    const std::vector<std::string> networks = catalog.names("networks");
    if (gpu.pcie_generation > 0 && std::find(networks.begin(), networks.end(), link) != networks.end()) {
      pcie = parse_network_spec(catalog.load("networks", ConfigNode::make_scalar(link, SourceLoc{gpu.name, 0, 0}), "link"), link);
    }
    std::cout << render_device_comparison(compare_device_measurements(measured, gpu, pcie ? &*pcie : nullptr),
                                          format_of(o.format));
    return kExitOk;
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
  } catch (const std::exception& e) {  // an unreadable file, or a spec that is not the measured GPU
    std::cerr << "hpcsim validate: " << e.what() << "\n";
  }
  return kExitBadInput;
}

// Each category's interval coverage, in-sample and family-out.
void print_coverage(const std::vector<CategoryIntervalCoverage>& coverage) {
  for (const CategoryIntervalCoverage& c : coverage) {
    std::printf("%-10s interval coverage: in-sample %d of %d (%.0f %%), family-out %d (%.0f %%)\n",
                c.category == "*" ? "all" : c.category.c_str(), c.in_sample, c.rows, 100.0 * c.in_sample / c.rows,
                c.family_out, 100.0 * c.family_out / c.rows);
  }
}

// The serving cases beside the training set (their own rows and MAPE per category): after the training
// table, or as more CSV rows under the same header.
void print_serve_cases(const ValidationReport& serve, const IntervalTable& intervals, ValidationFormat format) {
  if (serve.rows.empty() && serve.unscored.empty()) return;
  std::string text = render_validation(serve, format);
  if (format == ValidationFormat::csv) {
    std::cout << text.substr(text.find('\n') + 1);
    return;
  }
  std::cout << "\nServing cases (inference/ and llm-serve/ beside the training cases):\n" << text;
  std::vector<double> errors;
  for (const ValidationRow& row : serve.rows) errors.push_back(row.error);
  for (const CategoryScore& c : score_by_category(serve.rows, errors)) {
    std::printf("%-10s %3d cases  MAPE %5.1f %%  worst %+6.1f %%\n", c.category.c_str(), c.rows, 100 * c.mape,
                100 * c.worst);
  }
  std::cout << "Cross-validated (one source family left out): the same figures, as no parameter is fitted on "
               "serving rows.\n";
  print_coverage(serve_interval_coverage(serve, intervals));
  for (const auto& [id, why] : serve.unscored) std::cout << "not scored: " << id << " (" << why << ")\n";
}

// The HPC cases (hpc/: HPL and HPCG of TOP500 systems, NPB; p2p/: OSU rows) after the serving cases, their own
// rows, MAPE per category and interval coverage.
void print_hpc_cases(const ValidationReport& hpc, const IntervalTable& intervals, ValidationFormat format) {
  if (hpc.rows.empty()) return;
  std::string text = render_validation(hpc, format);
  if (format == ValidationFormat::csv) {
    std::cout << text.substr(text.find('\n') + 1);
    return;
  }
  std::cout << "\nHPC cases (hpc/, kind: mpi, beside the training cases):\n" << text;
  std::vector<double> errors;
  for (const ValidationRow& row : hpc.rows) errors.push_back(row.error);
  for (const CategoryScore& c : score_by_category(hpc.rows, errors)) {
    std::printf("%-10s %3d cases  MAPE %5.1f %%  worst %+6.1f %%\n", c.category.c_str(), c.rows, 100 * c.mape,
                100 * c.worst);
  }
  std::cout << "Cross-validated (one source family left out): the same figures, as no parameter is fitted on "
               "HPC rows.\n";
  print_coverage(mpi_interval_coverage(hpc, intervals));
}

int run(const ValidateOptions& o) {
  if ((o.fit || o.cv) && !o.measured.empty()) return bad("--fit and --cv work on the validation folder, not on --measured");
  if (int(o.fit) + int(o.cv) + int(o.intervals) + int(o.serve_intervals) + int(o.hpc_intervals) > 1) {
    return bad("--fit, --cv, --intervals, --serve-intervals and --hpc-intervals are separate reports: give one");
  }
  const char* table_flag = o.intervals ? "--intervals" : o.serve_intervals ? "--serve-intervals" : o.hpc_intervals ? "--hpc-intervals" : nullptr;
  if (table_flag && !o.measured.empty()) {
    return bad(std::string(table_flag) + " works on the validation folder, not on --measured");
  }
  if (table_flag && o.format != "table") return bad(std::string(table_flag) + " prints YAML: it takes no --format");
  if (o.format == "json" && !o.cv) return bad("--format json goes with --cv (the plain table has csv and markdown)");
  if (o.cv && (o.format == "csv" || o.format == "markdown")) return bad("--cv prints a table or --format json");
  if (!o.measured.empty()) return run_measured(o);
  if (!o.gpu.empty()) return bad("--gpu goes with --measured FILE");
  const SpecCatalog catalog(config_root());
  const std::filesystem::path dir = o.dir.empty() ? catalog.root() / "validation" : std::filesystem::path(o.dir);
  try {
    if (o.fit) {
      std::cout << render_calibrations(fit_calibrations(dir, catalog));
      return kExitOk;
    }
    if (o.intervals) {
      const CrossValidation cv = cross_validate(dir, catalog);
      const IntervalTable table = IntervalTable::derive(cv);
      std::cout << table.to_yaml();
      const IntervalCoverage c = table.coverage(cv);  // on stderr: stdout is the table file
      std::cerr << "interval coverage over " << c.rows << " training rows: in-sample " << c.in_sample
                << ", family-out (each interval derived without the row's source family) " << c.family_out << "\n";
      return kExitOk;
    }
    if (o.serve_intervals) {
      std::cout << serve_intervals_yaml(derive_serve_intervals(run_serve_validation(dir, catalog)));
      return kExitOk;
    }
    if (o.hpc_intervals) {
      std::cout << mpi_intervals_yaml(derive_mpi_intervals(run_hpc_validation(dir, catalog)));
      return kExitOk;
    }
    if (o.cv) {
      std::cout << render_cross_validation(cross_validate(dir, catalog), o.format == "json" ? CrossValidationFormat::json
                                                                                           : CrossValidationFormat::table);
      return kExitOk;
    }
    const ValidationReport report = run_validation(dir, catalog);
    const ValidationReport serve = run_serve_validation(dir, catalog);
    const ValidationReport hpc = run_hpc_validation(dir, catalog);
    if (report.rows.empty() && serve.rows.empty() && serve.unscored.empty() && hpc.rows.empty()) {
      throw std::runtime_error(dir.string() + " holds no validation case (its *.yaml files, and those in its "
                                              "inference/, llm-serve/ and hpc/ folders)");
    }
    std::cout << render_validation(report, format_of(o.format));
    print_serve_cases(serve, load_serve_intervals(catalog.root()), format_of(o.format));
    print_hpc_cases(hpc, load_mpi_intervals(catalog.root()), format_of(o.format));
    return kExitOk;
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
  } catch (const std::runtime_error& e) {
    std::cerr << "hpcsim validate: " << e.what() << "\n";
  }
  return kExitBadInput;
}

}  // namespace

Action add_validate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("validate", "Predict every published measurement of a validation set and compare");
  auto o = std::make_shared<ValidateOptions>();
  cmd->add_option("dir", o->dir, "Folder of validation cases (default: configs/validation under the config root)");
  cmd->add_option("--measured", o->measured,
                  "A CSV from our CUDA suite (bench/cuda, hpcsim-cuda-bench) to compare with the GPU model instead");
  cmd->add_option("--gpu", o->gpu, "With --measured: the GPU spec of the measured GPU (see `hpcsim list gpus`)");
  cmd->add_flag("--fit", o->fit,
                "Refit every calibrated parameter (configs/calibration.yaml) over all rows; print shipped vs fitted, "
                "the rows informing each, and every row's residual");
  cmd->add_flag("--cv", o->cv,
                "Cross-validate: refit the calibrated parameters with one source family left out at a time and predict "
                "its rows; in-sample and cross-validated MAPE, per category and per row");
  cmd->add_flag("--intervals", o->intervals,
                "Print the prediction-interval table (configs/prediction-intervals.yaml) derived from the "
                "cross-validated errors");
  cmd->add_flag("--serve-intervals", o->serve_intervals,
                "Print the serving prediction-interval table (configs/serving-intervals.yaml) derived from the serving "
                "cases' errors");
  cmd->add_flag("--hpc-intervals", o->hpc_intervals,
                "Print the HPC prediction-interval table (configs/hpc-intervals.yaml) derived from the HPC and OSU "
                "cases' errors");
  cmd->add_option("--format", o->format, "Output format (json only with --cv)")
      ->check(CLI::IsMember({"table", "csv", "markdown", "json"}));
  return [o] { return run(*o); };
}

}  // namespace hpcsim::cli
