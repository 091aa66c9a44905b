#pragma once
// The public validation set: published measurements, each predicted by the simulator and compared.
// A validation folder holds training scenarios (<id>.yaml with a `measured:` section, simulated as
// `hpcsim run` does) and microbenchmarks.yaml (GEMMs, all-reduce bus bandwidth, LSTM layers, each timed
// through the models layer). Nothing here is tuned per case: every case uses the shipped specs.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "report/validation_report.h"

namespace hpcsim {

// Runs every case of `dir` (not its subfolders), or those whose id `include` accepts. ConfigError for a
// case that does not parse, names an unknown spec or lacks a measurement; std::runtime_error when `dir`
// is not a folder.
using CaseFilter = std::function<bool(const std::string& id)>;
ValidationReport run_validation(const std::filesystem::path& dir, const SpecCatalog& catalog,
                                const CaseFilter& include = {});

// The serving cases under a validation folder: kind: serve scenarios with `measured:` in its inference/
// (CPU and GPU endpoints) and llm-serve/ (LLM endpoints) subfolders, each run as `hpcsim serve` runs it and
// read in its measured metric; rows of kind "serve", categories cpu-infer, gpu-infer and llm-serve. Kept
// apart from the training set: its MAPE, fits and intervals are the training's. Cases marked
// `measured.not_scored` run (so they keep working) but are listed in `unscored` instead of `rows`.
inline constexpr const char* kServeCaseFolders[] = {"inference", "llm-serve"};
ValidationReport run_serve_validation(const std::filesystem::path& validation_dir, const SpecCatalog& catalog,
                                      const CaseFilter& include = {});

// The HPC cases under a validation folder: kind: mpi scenarios with `measured:` in its hpc/ subfolder (HPL
// Rmax and HPCG rates of TOP500 systems), each run as `hpcsim run` runs it and read in its measured metric;
// rows of kind "mpi", categories hpl, hpcg, stencil and npb, then the p2p/ OSU rows (kind "osu", category p2p). Kept apart from the training and serving sets (the
// HPC models have no fitted parameter: their in-sample errors are their cross-validated ones).
inline constexpr const char* kHpcCaseFolder = "hpc";
// Published OSU micro-benchmark rows (`osu:` case files, workloads/mpi_replay/osu_benchmark.h), scored with
// the HPC cases in the p2p category.
inline constexpr const char* kP2pCaseFolder = "p2p";
ValidationReport run_hpc_validation(const std::filesystem::path& validation_dir, const SpecCatalog& catalog,
                                    const CaseFilter& include = {});

}  // namespace hpcsim
