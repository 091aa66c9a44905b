#pragma once
// How long a job's checkpoint takes to write and to read back: the job's state bytes over the aggregate
// bandwidth its storage offers. This is the one function the long-run model asks (so a finer storage model,
// issue 39's checkpoint write, replaces it here alone).
#include <optional>
#include <string>

#include "models/storage/storage_spec.h"

namespace hpcsim {

struct FileSystemSpec;

struct CheckpointIo {
  double state_bytes = 0;
  double write_bandwidth = 0;  // bytes/s, the whole job's
  double read_bandwidth = 0;
  double write_s = 0;
  double read_s = 0;
};

// Bandwidths given explicitly win; otherwise the storage spec's aggregate: a local device in each of the
// job's `nodes` (each writes its shard), a NAS/SAN server (its device, bounded by its ports), or a parallel
// file system (its targets' devices, bounded by the servers' ports and one client port per node). Without
// either, the bandwidth is 0 and the caller refuses the input.
CheckpointIo checkpoint_io(double state_bytes, int nodes, const StorageSpec* storage, std::optional<double> write_bandwidth,
                           std::optional<double> read_bandwidth);

// A file system described as hardware (configs/filesystems, docs/storage.md): every rank writes its shard
// (state_bytes / ranks) at once from the job's nodes, as `hpcsim io --checkpoint` does, so the slowest stage
// (client ports, server ports, devices) sets each direction's bandwidth.
struct FileSystemCheckpoint {
  double write_bandwidth = 0;  // bytes/s, the whole job's
  double read_bandwidth = 0;
  std::string write_bottleneck;
};
FileSystemCheckpoint filesystem_checkpoint(const FileSystemSpec& fs, int nodes, int ranks, double state_bytes);

// The storage's aggregate bandwidth in one direction for `nodes` clients (0 without a storage spec).
double storage_aggregate_bandwidth(const StorageSpec& storage, int nodes, IoOp op);

}  // namespace hpcsim
