#pragma once
// MLPerf Storage v1.0's training emulation (DLIO): each emulated accelerator takes a batch of samples,
// "computes" for a fixed time per batch (a sleep) and meanwhile its reader threads prefetch the next batch
// from the file system. Accelerator utilisation (AU) is compute time over wall time; a storage system
// passes a run when AU stays at or above the workload's threshold. Here the readers are ior-easy-like
// streams (each thread reads whole sample files sequentially) on a file system described as hardware
// (io500.h), so AU = min(1, delivered / asked) and the largest passing count follows from the stages.
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
  // Bytes per second one accelerator reads when it never waits.
  double asked_bytes_per_s() const { return batch * record_bytes / compute_s; }
};

// The MLPerf Storage v1.0 workloads (unet3d, resnet50, cosmoflow on h100 and a100).
std::span<const DlioWorkload> dlio_workloads();
// The workload by model and accelerator names, or nothing.
std::optional<DlioWorkload> find_dlio_workload(const std::string& model, const std::string& accelerator);

struct DlioResult {
  int accelerators = 0;
  int hosts = 0;
  double au = 0;                // accelerator utilisation, 0..1
  double bytes_per_s = 0;       // samples read per second x record bytes
  double samples_per_s = 0;
  double delivered_bytes_per_s = 0;  // what the file system gives the readers when they never stop
  Io500PhaseResult read;        // the readers' stages and bottleneck
};

// `accelerators` emulated accelerators spread over `hosts` client nodes (block-wise), each with the
// workload's reader threads. Throws std::invalid_argument when accelerators < hosts or hosts < 1.
DlioResult simulate_dlio(const FileSystemSpec& fs, const DlioWorkload& w, int accelerators, int hosts);
// The largest accelerator count on `hosts` nodes whose AU is at least the workload's threshold (at most
// `limit`; 0 when even one accelerator per host fails).
int max_dlio_accelerators(const FileSystemSpec& fs, const DlioWorkload& w, int hosts, int limit);

}  // namespace hpcsim
