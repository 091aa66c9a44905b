#pragma once
// The MLPerf Storage validation category (`hpcsim io --validate --mlperf`): MLPerf Storage v1.0 results
// whose systems' published descriptions give the hardware (configs/validation/storage/mlperf-storage.yaml),
// each a file system described as hardware, its hosts and the emulated workload. Scored: the largest
// accelerator count at the workload's AU threshold on the row's hosts, within one step of the published
// count (a step is one accelerator more or fewer on every host), and the throughput at the published
// count (MAPE). The hosts' reader rate per busy core is the one number derived from the cases (per file
// format, derive_reader_rates); each row is also scored with the rates derived without its submitter
// (docs/storage.md, "MLPerf Storage").
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "models/storage/dlio.h"

namespace hpcsim {

struct MlperfStorageCase {
  std::string name;
  std::string family;  // the submitter: a source
  std::string source;
  FileSystemSpec fs;
  DlioWorkload workload;        // read_threads: the run's reader.read_threads
  DlioHost host;                // the client hosts' cores and clock (0: not described)
  int hosts = 1;
  int accelerators = 0;         // published
  double throughput_MiBps = 0;  // published (MiB/s: samples/s x record bytes / 2^20)
  bool largest = true;          // the submitter's largest count for this system and workload (scored for count)
};

// Reads a case file (`cases:` list); errors are ConfigErrors at file:line:column.
std::vector<MlperfStorageCase> load_mlperf_storage_cases(const std::filesystem::path& file, const SpecCatalog& catalog);

// A reader rate derived from cases: per busy core-second (every case with host cores) and per cycle of the
// cores' base clock (the cases whose host clock is given; 0 when none).
struct DerivedReaderRate {
  double bytes_per_core_s = 0;
  double bytes_per_cycle = 0;
};

// Per file format, the geometric mean over the cases (those of `left_out` excluded) of the published
// throughput per host over the host's busy reader cores at the published count (and over the cores' clock
// for the per-cycle rate); cases without host cores are skipped.
std::map<std::string, DerivedReaderRate> derive_reader_rates(const std::vector<MlperfStorageCase>& cases,
                                                             const std::string& left_out = {});

struct MlperfStorageRow {
  std::string case_name;
  std::string workload;  // model-accelerator
  int hosts = 0;
  int accelerators = 0;            // published
  int predicted_accelerators = 0;  // the largest passing count on the row's hosts
  bool within_step = false;
  bool largest = true;
  double throughput_MiBps = 0;            // published
  double predicted_throughput_MiBps = 0;  // at the published count
  double predicted_au = 0;                // at the published count
  std::string bottleneck;                 // of the readers at the predicted count
  // With the reader rates derived without this row's submitter (-1 and 0: no rate for its format).
  int predicted_accelerators_family_out = -1;
  bool within_step_family_out = false;
  double predicted_throughput_MiBps_family_out = 0;
};

struct MlperfStorageValidation {
  std::vector<MlperfStorageRow> rows;
  int scored_counts = 0;      // rows that are their system's largest count for the workload
  int within_step = 0;        // of those
  double throughput_mape = 0; // over every row
  int within_step_family_out = 0;         // of the scored counts, with the rates derived without the submitter
  double throughput_mape_family_out = 0;  // over the rows with a left-out rate
  int family_out_rows = 0;                // rows with a left-out rate for their format
  std::map<std::string, DerivedReaderRate> reader_rates;  // derived over every case, by format
  double sim_wall_s = 0;
};

MlperfStorageValidation validate_mlperf_storage(const std::vector<MlperfStorageCase>& cases);

}  // namespace hpcsim
