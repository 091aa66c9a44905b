#include "models/storage/filesystem_spec.h"

#include <cstdint>
#include <limits>
#include <string>

#include "configs/config_error.h"
#include "configs/count_limits.h"

namespace hpcsim {

bool takes_shared_file_locks(FileSystemType type) {
  switch (type) {
    case FileSystemType::lustre:
    case FileSystemType::spectrum_scale:
    case FileSystemType::cephfs: return true;
    case FileSystemType::beegfs:
    case FileSystemType::daos:
    case FileSystemType::ime:
    case FileSystemType::orangefs:
    case FileSystemType::wekafs:
    case FileSystemType::vast:
    case FileSystemType::nfs:
    case FileSystemType::gekkofs: return false;
  }
  return false;
}

double FileSystemSpec::server_device_bandwidth(IoOp op) const {
  const double raw = data.devices * data.device.bandwidth(op);
  return op == IoOp::write ? raw * data.protection.write_efficiency() / data.replicas : raw;
}

const Schema& filesystem_spec_schema() {
  static const Schema schema = Schema::map({
      extends_field(),
      required("type", Schema::one_of(kFileSystemTypeNames.names()),
               "the file system's software (its shared-file locking and directory placement follow its design)"),
      required("network", Schema::string(),
               "the network of the servers' and clients' ports: a name in configs/networks; each client node has one port"),
      required("data_servers",
               Schema::map({
                   required("count", Schema::integer().at_least(1), "data (object storage) servers"),
                   required("ports", Schema::integer().at_least(1), "network ports of each data server"),
                   required("devices", Schema::integer().at_least(1), "storage devices in each data server"),
                   required("device", Schema::string(),
                            "the device: a local storage spec in configs/storage (its device's bandwidths, IOPS, latency)"),
                   optional("targets", Schema::integer().at_least(1),
                            "storage targets per server its devices form (files are striped over targets)", "1"),
                   optional("protection",
                            Schema::map({
                                required("data", Schema::integer().at_least(1), "data chunks per parity group"),
                                required("parity", Schema::integer().at_least(0), "parity chunks per group"),
                            }),
                            "RAID or erasure coding over the devices (RAID-6 8+2: data 8, parity 2)", "none"),
                   optional("replicas", Schema::integer().at_least(1),
                            "servers each written byte is stored on (a Ceph pool's size); at most the servers", "1"),
               }),
               "the data servers"),
      required("metadata_servers",
               Schema::map({
                   required("count", Schema::integer().at_least(1), "metadata servers"),
                   required("ops", Schema::number().positive(), "metadata operations per second of one server"),
                   required("latency", Schema::quantity(Dimension::time).at_least(0),
                            "service time of one metadata operation"),
                   optional("open_ops", Schema::number().positive(),
                            "opens (with their closes) of existing files per second of one server: the readers' "
                            "small-file cost (MLPerf Storage)",
                            "not a limit"),
                   optional("distributes_directories", Schema::boolean(),
                            "new directories are placed on the servers in turn (Lustre DNE, BeeGFS)", "false"),
                   optional("shards_directories", Schema::boolean(),
                            "one directory's entries are spread over the servers (striped directories)", "false"),
               }),
               "the metadata servers"),
      required("client",
               Schema::map({
                   required("rpc_size", Schema::quantity(Dimension::bytes).at_least(4096), "bytes per data request"),
                   required("rpcs_in_flight", Schema::integer().at_least(1), "data requests one process keeps in flight"),
                   optional("ports", Schema::integer().at_least(1), "network ports of `network` on each client node", "1"),
               }),
               "the client's request pipeline, per process"),
      required("striping",
               Schema::map({
                   required("count", Schema::integer().at_least(1), "targets one file spreads over; at most the targets"),
                   required("size", Schema::quantity(Dimension::bytes).at_least(4096), "bytes per stripe chunk"),
               }),
               "how a file is laid out over the targets"),
      optional("lock_handoff", Schema::quantity(Dimension::time).positive(),
               "a locking type's shared-file write: time for one extent lock to pass to another client",
               "none: shared-file writes pay no lock cost; refused for a type without shared-file locks"),
  });
  return schema;
}

FileSystemSpec parse_filesystem_spec(const ConfigNode& node, std::string name, const SpecCatalog& catalog) {
  filesystem_spec_schema().validate(node);
  FileSystemSpec s;
  s.name = std::move(name);
  s.type = *kFileSystemTypeNames.parse(node.get_string("type"));
  const ConfigNode& network_name = node.at("network");
  s.network = parse_network_spec(catalog.load("networks", network_name, "network"), network_name.as_string());

  const ConfigNode& data = node.at("data_servers");
  s.data.count = static_cast<int>(data.get_int("count"));
  s.data.ports = static_cast<int>(data.get_int("ports"));
  s.data.devices = static_cast<int>(data.get_int("devices"));
  s.data.targets = static_cast<int>(data.get_int_or("targets", 1));
  // Each server and each target is a resource of the simulation (the servers' ports, devices and IOPS, the
  // targets files are striped over): held to the `nodes` limit as a storage spec's targets are, and the
  // product to an int, as striping counts in int.
  const double total_targets = static_cast<double>(s.data.count) * s.data.targets;
  check_count(CountLimit::nodes, total_targets, data.at(data.has("targets") ? "targets" : "count").loc(),
              "the file system (" + std::to_string(s.data.count) + " servers x " + std::to_string(s.data.targets) +
                  " targets, a resource per target)");
  if (total_targets > std::numeric_limits<int>::max())
    throw ConfigError(data.at("count").loc(), "servers x targets = " + std::to_string(static_cast<std::int64_t>(total_targets)) +
                                                  " is more than 2,147,483,647");
  const ConfigNode& device_name = data.at("device");
  s.data.device_name = device_name.as_string();
  const StorageSpec device =
      parse_storage_spec(catalog.load("storage", device_name, "storage device"), s.data.device_name, catalog);
  if (device.kind != StorageKind::local)
    throw ConfigError(device_name.loc(), "'" + s.data.device_name + "' is a " + to_string(device.kind) +
                                             " storage system; a data server's device must be a local device spec");
  s.data.device = device.device;
  if (s.data.targets > s.data.devices)
    throw ConfigError(data.at("targets").loc(), std::to_string(s.data.targets) + " targets cannot be formed from " +
                                                    std::to_string(s.data.devices) + " devices");
  if (const ConfigNode* protection = data.find("protection")) {
    s.data.protection.data = static_cast<int>(protection->get_int("data"));
    s.data.protection.parity = static_cast<int>(protection->get_int("parity"));
    // In 64 bits: data and parity are each up to 2^31-1, and their sum in int wrapped past this check.
    const std::int64_t group = std::int64_t{s.data.protection.data} + s.data.protection.parity;
    if (group > s.data.devices / s.data.targets)
      throw ConfigError(protection->loc(), "a parity group of " + std::to_string(group) + " devices does not fit a target of " +
                                               std::to_string(s.data.devices / s.data.targets) + " devices");
  }

  if (const ConfigNode* replicas = data.find("replicas")) {
    s.data.replicas = static_cast<int>(data.get_int("replicas"));
    if (s.data.replicas > s.data.count)
      throw ConfigError(replicas->loc(), std::to_string(s.data.replicas) + " replicas need as many servers; there are " +
                                             std::to_string(s.data.count));
  }

  const ConfigNode& md = node.at("metadata_servers");
  s.metadata.count = static_cast<int>(md.get_int("count"));
  check_count(CountLimit::nodes, s.metadata.count, md.at("count").loc(), "the file system's metadata servers (a resource each)");
  s.metadata.ops_per_s = md.get_number("ops");
  s.metadata.latency_s = md.get_quantity("latency", Dimension::time);
  if (md.has("open_ops")) s.metadata.open_ops_per_s = md.get_number("open_ops");
  s.metadata.distributes_directories = md.get_bool_or("distributes_directories", false);
  s.metadata.shards_directories = md.get_bool_or("shards_directories", false);

  const ConfigNode& client = node.at("client");
  s.client.rpc_size = client.get_quantity("rpc_size", Dimension::bytes);
  s.client.rpcs_in_flight = static_cast<int>(client.get_int("rpcs_in_flight"));
  s.client.ports = static_cast<int>(client.get_int_or("ports", 1));

  const ConfigNode& striping = node.at("striping");
  s.stripe_count = static_cast<int>(striping.get_int("count"));
  s.stripe_size = striping.get_quantity("size", Dimension::bytes);
  if (s.stripe_count > s.total_targets())
    throw ConfigError(striping.at("count").loc(), "stripe count " + std::to_string(s.stripe_count) + " exceeds the " +
                                                      std::to_string(s.total_targets()) + " targets (" +
                                                      std::to_string(s.data.count) + " servers x " +
                                                      std::to_string(s.data.targets) + ")");
  if (const ConfigNode* handoff = node.find("lock_handoff")) {
    if (!takes_shared_file_locks(s.type))
      throw ConfigError(handoff->loc(), "lock_handoff: a '" + std::string(kFileSystemTypeNames.name(s.type)) +
                                            "' file system takes no shared-file locks");
    s.lock_handoff_s = node.get_quantity("lock_handoff", Dimension::time);
  }
  return s;
}

}  // namespace hpcsim
