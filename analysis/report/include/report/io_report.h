#pragma once
// What `hpcsim io` prints (tables and --format json) for a dataset read, a checkpoint, whole-file reads, the
// IO500 phases and an MLPerf Storage workload; the runs come from driver/io_run.h. The validations' reports
// are the command's own (cli/cmd_io.cpp).
#include <string>

#include "models/storage/dataset_read.h"
#include "models/storage/dlio.h"
#include "models/storage/io500.h"
#include "models/storage/storage_spec.h"

namespace hpcsim {

std::string dataset_read_json(const StorageSpec& spec, const DatasetRead& job, const DatasetReadResult& r);
std::string dataset_read_table(const StorageSpec& spec, const DatasetRead& job, const DatasetReadResult& r);

// op: "write" or "read" (a checkpoint written, or read back).
std::string checkpoint_json(const FileSystemSpec& fs, const Io500Clients& clients, const std::string& op,
                            double bytes_per_proc, const CheckpointResult& r);
std::string checkpoint_table(const FileSystemSpec& fs, const Io500Clients& clients, const std::string& op,
                             double bytes_per_proc, const CheckpointResult& r);

std::string file_reads_json(const FileSystemSpec& fs, const Io500Clients& clients, double file_bytes,
                            const FileReadsResult& r);
std::string file_reads_table(const FileSystemSpec& fs, const Io500Clients& clients, double file_bytes,
                             const FileReadsResult& r);

std::string io500_json(const FileSystemSpec& fs, const Io500Clients& clients, const Io500Result& r);
std::string io500_table(const FileSystemSpec& fs, const Io500Clients& clients, const Io500Result& r);

// largest: the most accelerators at the AU threshold; accelerators: the count the run `r` is of.
struct MlperfStorageView {
  const FileSystemSpec& fs;
  const DlioWorkload& workload;
  const DlioHost& host;
  int hosts = 1;
  int largest = 0;
  int accelerators = 0;
  const DlioResult& result;
};
std::string mlperf_storage_json(const MlperfStorageView& v);
std::string mlperf_storage_table(const MlperfStorageView& v);

}  // namespace hpcsim
