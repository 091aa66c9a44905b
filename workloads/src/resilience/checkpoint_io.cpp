#include "workloads/resilience/checkpoint_io.h"

#include <algorithm>

#include "models/storage/io500.h"

namespace hpcsim {

FileSystemCheckpoint filesystem_checkpoint(const FileSystemSpec& fs, int nodes, int ranks, double state_bytes) {
  const double shard = state_bytes / ranks;
  const CheckpointResult write = simulate_checkpoint(fs, {nodes, ranks}, shard, IoOp::write);
  const CheckpointResult read = simulate_checkpoint(fs, {nodes, ranks}, shard, IoOp::read);
  return {state_bytes / write.time_s, state_bytes / read.time_s, write.rate.bottleneck};
}

double storage_aggregate_bandwidth(const StorageSpec& storage, int nodes, IoOp op) {
  const double device = storage.device.bandwidth(op);
  const double port = storage.network ? storage.network->payload_bandwidth() : 0.0;
  switch (storage.kind) {
    case StorageKind::local:
      return device * nodes;
    case StorageKind::nas:
    case StorageKind::san: {
      double bw = device;
      if (port > 0 && storage.server_ports > 0) bw = std::min(bw, port * storage.server_ports);
      if (port > 0) bw = std::min(bw, port * nodes);
      return bw;
    }
    case StorageKind::pfs: {
      double bw = device * storage.targets;
      if (port > 0 && storage.server_ports > 0 && storage.servers > 0) bw = std::min(bw, port * storage.server_ports * storage.servers);
      if (port > 0) bw = std::min(bw, port * nodes);
      return bw;
    }
  }
  return 0.0;
}

CheckpointIo checkpoint_io(double state_bytes, int nodes, const StorageSpec* storage, std::optional<double> write_bandwidth,
                           std::optional<double> read_bandwidth) {
  CheckpointIo io;
  io.state_bytes = state_bytes;
  io.write_bandwidth = write_bandwidth ? *write_bandwidth
                       : storage       ? storage_aggregate_bandwidth(*storage, nodes, IoOp::write)
                                       : 0.0;
  io.read_bandwidth = read_bandwidth ? *read_bandwidth
                      : storage      ? storage_aggregate_bandwidth(*storage, nodes, IoOp::read)
                                     : io.write_bandwidth;
  if (io.write_bandwidth > 0) io.write_s = state_bytes / io.write_bandwidth;
  if (io.read_bandwidth > 0) io.read_s = state_bytes / io.read_bandwidth;
  return io;
}

}  // namespace hpcsim
