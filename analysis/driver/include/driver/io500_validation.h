#pragma once
// The IO500 validation category (`hpcsim io --validate`): the public IO500 rows expressed as file systems
// described as hardware (configs/validation/storage/io500.yaml, written by scripts/io500-cases.py),
// simulated phase by phase and scored by MAPE per phase and file-system type, in-sample and with each
// file-system type left out of the two fitted numbers (docs/storage.md).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "models/storage/filesystem_spec.h"
#include "models/storage/io500.h"

namespace hpcsim {

struct Io500Case {
  std::string name;
  std::string family;  // the submitting institution: a source
  std::string source;
  FileSystemSpec fs;
  Io500Clients clients;
  // Measured rate per phase (bytes/s or operations/s); absent where the row has none.
  std::vector<std::pair<Io500Phase, double>> measured;
};

// Reads a case file (`cases:` list); errors are ConfigErrors at file:line:column.
std::vector<Io500Case> load_io500_cases(const std::filesystem::path& file, const SpecCatalog& catalog);

// The phases scored, with their MAPE targets: ior-easy 25 %, ior-hard and mdtest creates 40 %.
struct ScoredPhase {
  Io500Phase phase;
  double target;
};
const std::vector<ScoredPhase>& io500_scored_phases();

// The two numbers no datasheet gives, fitted by least absolute log error over a log grid: the time an extent lock takes
// to pass between clients (ior-hard writes of the locking types) and one metadata server's operations per
// second (mdtest creates). A value is fitted only from >= 3 rows of >= 2 families; otherwise it is absent
// (no lock cost; the cases' own metadata rate).
struct Io500Fit {
  std::optional<double> lock_handoff_s;
  std::optional<double> metadata_ops;
  int lock_rows = 0, lock_families = 0, metadata_rows = 0, metadata_families = 0;
};

struct Io500Row {
  std::string case_name;
  std::string type;
  Io500Phase phase;
  double measured = 0;
  double predicted = 0;      // with the fit over every case
  double predicted_out = 0;  // with the fit that left this case's file-system type out
  std::string bottleneck;    // of the in-sample prediction
};

struct Io500Group {
  Io500Phase phase;
  std::string type;  // a file-system type, or "all"
  int cases = 0;
  double mape = 0;      // in-sample
  double mape_out = 0;  // file-system type left out
  double target = 0;
};

struct Io500Validation {
  std::vector<Io500Row> rows;
  std::vector<Io500Group> groups;  // per scored phase: each type, then "all"
  Io500Fit fit;                    // over every case
  double sim_wall_s = 0;
};

Io500Validation validate_io500(const std::vector<Io500Case>& cases);

}  // namespace hpcsim
