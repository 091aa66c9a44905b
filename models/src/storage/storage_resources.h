#pragma once
// The fair-share resources of a storage system as seen by the client nodes reading from it.
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "models/storage/storage_spec.h"
#include "sim-core/fair_share.h"

namespace hpcsim::storage_detail {

inline constexpr ResourceId kNoResource = UINT32_MAX;

// Something that serves requests: a device, a NAS/SAN server, or one object storage target. A request
// holds one of its queue slots from arrival until its data has moved.
struct Server {
  ResourceId bytes = kNoResource;   // bandwidth, bytes/s
  ResourceId ops = kNoResource;     // IOPS: every request moves one unit through it
  ResourceId uplink = kNoResource;  // the server's network ports (none for a local device)
  int free_slots = 0;
  std::deque<std::uint32_t> waiting;  // requests waiting for a slot, first come first served
};

struct ResourceGroup {
  std::string name;
  std::vector<ResourceId> members;
};

struct StorageResources {
  std::vector<Server> servers;           // local: one per node; nas/san: one; pfs: one per target
  std::vector<ResourceId> client_ports;  // one per node; empty for local storage
  ResourceId metadata = kNoResource;     // pfs: the metadata server's operations
  double request_latency_s = 0;          // device access plus the network round trip
  double metadata_latency_s = 0;         // pfs: metadata service plus the network round trip
  std::vector<ResourceGroup> groups;     // for reporting utilisation, in a fixed order
};

StorageResources build_storage_resources(FairShare& fs, const StorageSpec& spec, int nodes, IoOp op);

}  // namespace hpcsim::storage_detail
