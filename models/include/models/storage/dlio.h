#pragma once
// MLPerf Storage v1.0's training emulation (DLIO): each emulated accelerator takes a batch of samples,
// "computes" for a fixed time per batch (a sleep) and meanwhile its reader threads prefetch the next batch
// from the file system. Accelerator utilisation (AU) is compute time over wall time; a storage system
// passes a run when AU stays at or above the workload's threshold. Here each reader thread reads whole
// files one after another (simulate_file_reads: an open, then the file through the client's RPC pipeline) on
// a file system described as hardware (io500.h). The client hosts' side is a second limit: DLIO's Python readers open, read and decode every
// sample on the hosts' cores (DlioReader, DlioHost), so AU = min(1, min(storage, host readers) / asked) and
// the largest passing count follows from the binding stage. Each sample file is also opened on the metadata
// servers (the small-file cost), a limit when the file system gives a rate for opens (`open_ops`).
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "models/storage/filesystem_spec.h"
#include "models/storage/io500.h"

namespace hpcsim {

// One workload as its DLIO configuration defines it (sources in dlio.cpp).
struct DlioWorkload {
  std::string model;        // unet3d, resnet50, cosmoflow
  std::string accelerator;  // h100, a100
  double record_bytes = 0;  // mean sample size
  int batch = 0;            // samples per step per accelerator
  int read_threads = 0;     // reader threads per accelerator
  double compute_s = 0;     // emulated compute per step
  double au_min = 0;        // the passing accelerator utilisation
  std::string format;       // the sample files' format: npz, tfrecord (selects the DlioReader)
  int samples_per_file = 1; // samples in one file (resnet50's TFRecords hold 1,251; one open per file)
  // Bytes per second one accelerator reads when it never waits.
  double asked_bytes_per_s() const { return batch * record_bytes / compute_s; }
};

// The MLPerf Storage v1.0 workloads (unet3d, resnet50, cosmoflow on h100 and a100).
std::span<const DlioWorkload> dlio_workloads();
// The workload by model and accelerator names, or nothing.
std::optional<DlioWorkload> find_dlio_workload(const std::string& model, const std::string& accelerator);

// How DLIO's reader for a file format keeps the host's cores busy (sources in dlio.cpp).
struct DlioReader {
  std::string format;  // npz, tfrecord
  // true: each accelerator's reader threads are worker processes (PyTorch's DataLoader, num_workers =
  // read_threads), so a host keeps min(accelerators x read_threads, cores) cores busy; false: the reading
  // and decode run on the framework's process-wide pool (tf.data's TFRecordDataset and map), every core.
  bool workers_per_thread = false;
  double bytes_per_core_s = 0;  // sample bytes one busy core opens, reads and decodes per second (no clock given)
  double bytes_per_cycle = 0;   // the same per clock cycle of the core's base clock (hosts whose clock is given)
};
std::span<const DlioReader> dlio_readers();
// The reader of a format, or nothing.
std::optional<DlioReader> find_dlio_reader(const std::string& format);

// The client host's side of the reading. cores 0: the host is not modelled (the readers never wait on
// the CPU, the storage alone binds).
// clock_hz: the cores' base clock (the vendor's all-core guaranteed frequency, the system description's
// base_frequency); given, a core decodes the reader's bytes_per_cycle per cycle, else its bytes_per_core_s.
struct DlioHost {
  int cores = 0;                // physical cores per host
  double clock_hz = 0;          // base clock of the cores (0: not given)
  double bytes_per_core_s = 0;  // 0: the format's DlioReader rate; else this rate (a cross-validation's)
  double bytes_per_cycle = 0;   // 0: the format's DlioReader rate; else this rate (a cross-validation's)
};

// Sample bytes one busy reader core of `host` decodes per second for workload `w` (0 when not modelled).
double dlio_core_rate(const DlioWorkload& w, const DlioHost& host);

// Busy reader cores summed over `hosts` hosts holding `accelerators` block-wise (0 when the host is not
// modelled).
std::int64_t dlio_reader_cores(const DlioWorkload& w, const DlioHost& host, int accelerators, int hosts);

struct DlioResult {
  int accelerators = 0;
  int hosts = 0;
  double au = 0;                // accelerator utilisation, 0..1
  double bytes_per_s = 0;       // samples read per second x record bytes
  double samples_per_s = 0;
  double delivered_bytes_per_s = 0;  // what the file system gives the readers when they never stop
  double host_bytes_per_s = 0;       // what the hosts' reader cores decode (0: the host is not modelled)
  double open_bytes_per_s = 0;       // what the metadata servers' opens allow (0: opens not modelled)
  std::string bottleneck;            // the readers' binding stage, "metadata opens" or "host readers"
  Io500PhaseResult read;        // the readers' stages and bottleneck
};

// `accelerators` emulated accelerators spread over `hosts` client nodes (block-wise), each with the
// workload's reader threads, on hosts described by `host`. Throws std::invalid_argument when accelerators <
// hosts or hosts < 1.
DlioResult simulate_dlio(const FileSystemSpec& fs, const DlioWorkload& w, int accelerators, int hosts,
                         const DlioHost& host = {});
// The largest accelerator count on `hosts` nodes whose AU is at least the workload's threshold (at most
// `limit`; 0 when even one accelerator per host fails).
int max_dlio_accelerators(const FileSystemSpec& fs, const DlioWorkload& w, int hosts, int limit,
                          const DlioHost& host = {});

}  // namespace hpcsim
