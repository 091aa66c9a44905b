#pragma once
// Reading a dataset of equally sized samples (one file each) with W concurrent readers from a storage
// system: how long it takes and what limits it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/storage/storage_spec.h"

namespace hpcsim {

struct DatasetRead {
  std::int64_t samples = 0;
  double sample_bytes = 0;
  int readers = 1;  // each has one request outstanding at a time, like a data-loader worker
  int nodes = 1;    // client nodes; readers are spread over them round-robin
  IoOp op = IoOp::read;
  std::optional<int> stripe_count;  // pfs only: overrides the spec's default striping for the files
  // Called as samples finish, with those done and the dataset's count (a progress line): with many readers
  // every sample's end re-rates the others' flows, and a large read runs for minutes.
  std::function<void(std::int64_t done, std::int64_t samples)> progress;
};

// How busy one kind of resource was, e.g. "client network" (all client ports).
struct ResourceUse {
  std::string name;
  // carried / (capacity * time): the larger of the busiest member's over the whole read and all members'
  // together over the time any of them was in use (so files read one after another from different
  // targets still show the targets as saturated).
  double utilisation = 0;
};

// Where the readers' time went, summed over all samples: waiting for a queue slot at a device or server,
// the access and network latencies (and the metadata server's, for a parallel file system), and moving
// data (or waiting on a device's IOPS or the metadata server's operations) at the rates the solver gives.
struct ReaderTime {
  double queue_s = 0;
  double latency_s = 0;
  double transfer_s = 0;
};

struct DatasetReadResult {
  double time_s = 0;
  double samples_per_s = 0;
  double bytes_per_s = 0;
  // What limits throughput: "request latency" or "queue depth" when readers spend most of their time on
  // that, otherwise the resource kind with the highest utilisation (e.g. "client network").
  std::string bottleneck;
  ReaderTime reader_time;
  std::vector<ResourceUse> utilisation;  // one entry per resource kind, in a fixed order
  std::uint64_t events = 0;
};

// Throws std::invalid_argument for a non-positive sample count, size, reader or node count, or a
// stripe count outside 1..targets.
DatasetReadResult simulate_dataset_read(const StorageSpec& spec, const DatasetRead& job);

}  // namespace hpcsim
