#pragma once
// A parallel or scale-out file system described as hardware (configs/filesystems/*.yaml): data servers
// with their network ports and devices, metadata servers, the clients' RPC pipeline and the file layout.
// The IO500 phases (io500.h) and checkpoint writes run on it as flows through fair-share resources.
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/enum_names.h"
#include "configs/schema.h"
#include "models/network/network_spec.h"
#include "models/storage/storage_spec.h"

namespace hpcsim {

// The file system's software, for the behaviour its design fixes (docs/storage.md, "Types").
enum class FileSystemType { lustre, spectrum_scale, beegfs, daos, ime, cephfs, orangefs, wekafs, vast, nfs, gekkofs };

inline constexpr EnumNames<FileSystemType, 11> kFileSystemTypeNames{{{
    {FileSystemType::lustre, "lustre"},
    {FileSystemType::spectrum_scale, "spectrum-scale"},
    {FileSystemType::beegfs, "beegfs"},
    {FileSystemType::daos, "daos"},
    {FileSystemType::ime, "ime"},
    {FileSystemType::cephfs, "cephfs"},
    {FileSystemType::orangefs, "orangefs"},
    {FileSystemType::wekafs, "wekafs"},
    {FileSystemType::vast, "vast"},
    {FileSystemType::nfs, "nfs"},
    {FileSystemType::gekkofs, "gekkofs"},
}}};

// Whether writers of one shared file take distributed extent (byte-range) locks the server revokes
// when another client writes the same stripe: Lustre's LDLM extent locks, Spectrum Scale's byte-range
// tokens, CephFS's capabilities (shared writers lose their buffering). BeeGFS, OrangeFS, NFS-based,
// log-structured (IME, DAOS, GekkoFS) and WekaFS designs write shared files without them.
bool takes_shared_file_locks(FileSystemType type);

// Devices protected by parity (RAID-6 8+2, erasure coding k+m): a full-stripe write stores
// (data + parity) / data bytes per byte; a smaller write reads and rewrites the data and parity chunks.
struct Protection {
  int data = 1;
  int parity = 0;
  double write_efficiency() const { return static_cast<double>(data) / (data + parity); }
};

struct DataServers {
  int count = 0;
  int ports = 0;            // network ports of each server
  int devices = 0;          // per server
  int targets = 1;          // per server: storage targets (OSTs) its devices form, files striped over them
  std::string device_name;  // the configs/storage local spec the device comes from
  DeviceSpec device;        // one device
  Protection protection;
  int replicas = 1;         // servers each written byte is stored on (Ceph pool size; 1: no replication)
};

struct MetadataServers {
  int count = 0;
  double ops_per_s = 0;       // metadata operations (create, stat, delete) per second per server
  // Opens of an existing file (with its close) per second per server: the small-file cost of readers that
  // open every sample file (DLIO). 0: not given, and opens are not a limit (the create rate above overstates
  // them; docs/storage.md, "MLPerf Storage").
  double open_ops_per_s = 0;
  double latency_s = 0;       // service time of one operation, before the network round trip
  bool distributes_directories = false;  // new directories spread over the servers (DNE, BeeGFS)
  bool shards_directories = false;       // one directory's entries spread over the servers
};

// The client's RPC pipeline per process: how many requests of what size it keeps in flight.
struct ClientSide {
  double rpc_size = 0;   // bytes
  int rpcs_in_flight = 0;
  int ports = 1;         // network ports of each client node
};

struct FileSystemSpec {
  std::string name;
  FileSystemType type = FileSystemType::lustre;
  NetworkSpec network;      // clients' and servers' ports (client.ports per client node)
  DataServers data;
  MetadataServers metadata;
  ClientSide client;
  int stripe_count = 1;     // targets one file spreads over, at most data.count * data.targets
  double stripe_size = 0;   // bytes per stripe chunk
  double lock_handoff_s = 0;  // shared-file writes of a locking type: one lock revoke and grant

  int total_targets() const { return data.count * data.targets; }
  // One data server's device bandwidth for `op` (writes pay the protection's parity bytes and the replicas).
  double server_device_bandwidth(IoOp op) const;
  double server_port_bandwidth() const { return network.payload_bandwidth() * data.ports; }
};

const Schema& filesystem_spec_schema();
// Validates and parses a file-system spec; the network and device are loaded from `catalog` by name.
// A stripe count above the targets and a device spec that is not a local device are ConfigErrors at the key.
FileSystemSpec parse_filesystem_spec(const ConfigNode& node, std::string name, const SpecCatalog& catalog);

}  // namespace hpcsim
