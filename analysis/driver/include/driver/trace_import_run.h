#pragma once
// `hpcsim import kineto`: a PyTorch profiler trace read, checked and replayed (docs/traces.md): as
// recorded, with --gpu on another GPU (each activity rescaled through the kernel model by its class), and
// with --platform under data parallelism on a cluster (the trace's NCCL collectives on its fabric).
// The report has `hpcsim run`'s keys where they mean the same (step_time_s, breakdown_s.*, gpus,
// parallelism.dp, sim_wall_s, events) plus the trace's own (trace.*, recorded.*, replay.*, occupancy.*).
#include <optional>
#include <string>

#include "configs/catalog.h"
#include "store/metric.h"
#include "workloads/trace/kineto_occupancy.h"

namespace hpcsim {

struct KinetoImportRequest {
  std::string trace;
  std::optional<int> device;  // which device's activities (default: the busiest)
  std::string gpu;            // replay on this GPU spec ("" = as recorded only)
  std::string recorded_gpu;   // the GPU spec the trace was recorded on (required with gpu)
  // Data parallelism: the step on each of `dp` GPUs of this cluster (YAML file with a cluster: section),
  // its NCCL kernels (gradient buckets) run as collectives over those GPUs on the cluster's fabric.
  std::string platform;
  std::optional<int> dp;  // default: every GPU of the platform
};

struct KinetoImportRun {
  Report report;
  OccupancyCheck occupancy;
};

// Bad input is a ConfigError naming the trace file (line, column and byte offset for malformed JSON) or
// the flag (--gpu NAME: ...).
KinetoImportRun run_kineto_import(const KinetoImportRequest& request, const SpecCatalog& catalog);

// `hpcsim import chakra`: a Chakra execution trace (one rank's .et file) replayed on a cluster: its
// collectives over the first `ranks` GPUs (default: all) of the platform's fabric.
struct ChakraImportRequest {
  std::string trace;
  std::string platform;  // YAML file with a cluster: section
  std::optional<int> ranks;
};

// Bad input is a ConfigError naming the file and what is wrong (the flag for --ranks).
Report run_chakra_import(const ChakraImportRequest& request, const SpecCatalog& catalog);

}  // namespace hpcsim
