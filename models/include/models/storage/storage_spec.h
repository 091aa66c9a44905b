#pragma once
// A storage system as configs/storage/*.yaml describes it: a local device, a NAS (NFS) or SAN server
// reached over a network, or a striped parallel file system in the manner of Lustre.
#include <optional>
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/schema.h"
#include "models/network/network_spec.h"

namespace hpcsim {

enum class IoOp { read, write };

// One device or server that serves requests: bandwidth and IOPS per direction, the access latency of
// one request, and how many requests it serves at once (the rest wait in FIFO order).
struct DeviceSpec {
  double read_bandwidth = 0;   // bytes/s
  double write_bandwidth = 0;  // bytes/s
  double read_iops = 0;        // requests/s
  double write_iops = 0;       // requests/s
  double latency_s = 0;        // per request, before data moves
  int queue_depth = 1;

  double bandwidth(IoOp op) const { return op == IoOp::read ? read_bandwidth : write_bandwidth; }
  double iops(IoOp op) const { return op == IoOp::read ? read_iops : write_iops; }
};

enum class StorageKind { local, nas, san, pfs };

// The metadata server of a parallel file system: every file open costs it one operation.
struct MetadataSpec {
  double ops_per_s = 0;
  double latency_s = 0;
};

struct StorageSpec {
  std::string name;
  StorageKind kind = StorageKind::local;
  std::string media;  // local only: nvme, ssd or hdd (descriptive)

  // local: the device in each client node; nas/san: the server; pfs: one object storage target (OST).
  DeviceSpec device;

  // nas, san and pfs: the network between clients and servers. Each client node has one port of it.
  std::optional<NetworkSpec> network;
  int server_ports = 0;  // nas/san: the server's ports; pfs: each object storage server's ports

  // pfs only.
  MetadataSpec metadata;
  int targets = 0;        // object storage targets (OSTs)
  int servers = 0;        // object storage servers (OSSs); targets are spread evenly over them
  int stripe_count = 0;   // targets one file is striped over
  double stripe_size = 0; // bytes per stripe chunk
};

const Schema& storage_spec_schema();
// Validates and parses a storage spec; the network is loaded from `catalog` by name. Inconsistent
// values (a stripe count above the target count, targets not divisible by servers, a field that does
// not belong to the kind) are ConfigErrors at the offending key.
StorageSpec parse_storage_spec(const ConfigNode& node, std::string name, const SpecCatalog& catalog);

std::string to_string(StorageKind kind);

}  // namespace hpcsim
