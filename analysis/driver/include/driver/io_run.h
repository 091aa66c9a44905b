#pragma once
// `hpcsim io`'s runs other than the validations: a dataset read from a storage system, and on a file system
// described as hardware a checkpoint, whole-file reads, the IO500 phases and an MLPerf Storage workload. Each
// takes the command's flags as given (IoFlags) and returns what report/io_report.h renders. Bad input is an
// IoInputError whose message names the flag, or a ConfigError (a spec's file:line:column, a count limit).
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "configs/catalog.h"
#include "models/storage/dataset_read.h"
#include "models/storage/dlio.h"
#include "models/storage/io500.h"
#include "models/storage/storage_spec.h"

namespace hpcsim {

struct IoInputError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// `hpcsim io`'s flags, as given.
struct IoFlags {
  std::string storage;  // the dataset read
  std::int64_t samples = 0;
  std::string sample_size;  // also --files: the bytes of one file
  int readers = 1;
  int nodes = 1;
  std::string op = "read";
  std::optional<int> stripe_count;
  std::string filesystem;  // --checkpoint, --files, --io500, --mlperf
  int clients = 1;
  std::optional<int> procs;
  std::string bytes_per_proc;  // --checkpoint
  std::string workload;        // --mlperf
  std::string accelerator = "h100";
  std::optional<int> accelerators, read_threads, host_cores;
  std::string host_clock;
};

struct FileSystemRun {
  FileSystemSpec fs;
  Io500Clients clients;
};

struct DatasetReadRun {
  StorageSpec spec;
  DatasetRead job;
  DatasetReadResult result;
};

struct MlperfStorageRun {
  FileSystemSpec fs;
  DlioWorkload workload;
  DlioHost host;
  int hosts = 1;
  int largest = 0;       // the most accelerators at the AU threshold
  int accelerators = 0;  // the count `result` is of: --accelerators, else the largest
  DlioResult result;
};

struct CheckpointRun {
  FileSystemRun on;
  double bytes_per_proc = 0;
  CheckpointResult result;
};

struct FileReadsRun {
  FileSystemRun on;
  double file_bytes = 0;
  FileReadsResult result;
};

struct Io500Run {
  FileSystemRun on;
  Io500Result result;
};

// progress(done, samples): samples finished, as they finish.
DatasetReadRun run_dataset_read(const IoFlags& f, const SpecCatalog& catalog,
                                std::function<void(std::int64_t, std::int64_t)> progress = {});
CheckpointRun run_checkpoint(const IoFlags& f, const SpecCatalog& catalog);  // f.op: write, or read back
FileReadsRun run_file_reads(const IoFlags& f, const SpecCatalog& catalog);   // files of f.sample_size
Io500Run run_io500(const IoFlags& f, const SpecCatalog& catalog);
MlperfStorageRun run_mlperf_storage(const IoFlags& f, const SpecCatalog& catalog);

}  // namespace hpcsim
