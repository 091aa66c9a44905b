#include "models/storage/storage_spec.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "configs/config_error.h"
#include "configs/count_limits.h"

namespace hpcsim {

namespace {

Schema device_schema() {
  return Schema::map({
      required("read_bandwidth", Schema::quantity(Dimension::bandwidth).positive(), "bandwidth of reads"),
      required("write_bandwidth", Schema::quantity(Dimension::bandwidth).positive(), "bandwidth of writes"),
      required("read_iops", Schema::number().positive(), "read requests per second"),
      required("write_iops", Schema::number().positive(), "write requests per second"),
      required("latency", Schema::quantity(Dimension::time).at_least(0), "access latency of one request, before data moves"),
      required("queue_depth", Schema::integer().at_least(1), "requests served at once; the rest wait in FIFO order"),
  });
}

DeviceSpec parse_device(const ConfigNode& node) {
  DeviceSpec d;
  d.read_bandwidth = node.get_quantity("read_bandwidth", Dimension::bandwidth);
  d.write_bandwidth = node.get_quantity("write_bandwidth", Dimension::bandwidth);
  d.read_iops = node.get_number("read_iops");
  d.write_iops = node.get_number("write_iops");
  d.latency_s = node.get_quantity("latency", Dimension::time);
  d.queue_depth = static_cast<int>(node.get_int("queue_depth"));
  return d;
}

StorageKind kind_of(const std::string& text) {
  if (text == "local") return StorageKind::local;
  if (text == "nas") return StorageKind::nas;
  if (text == "san") return StorageKind::san;
  return StorageKind::pfs;  // the schema admits nothing else
}

// The keys each kind requires; every other key but `extends` and `kind` is refused for that kind, so a
// Lustre field in an NVMe spec is an error rather than silently ignored.
std::vector<std::string_view> keys_of(StorageKind kind) {
  switch (kind) {
    case StorageKind::local: return {"media", "device"};
    case StorageKind::nas:
    case StorageKind::san: return {"server", "network", "server_ports"};
    case StorageKind::pfs:
      return {"network", "metadata", "target", "targets", "servers", "server_ports", "stripe_count",
              "stripe_size"};
  }
  return {};
}

void check_keys_for_kind(const ConfigNode& node, StorageKind kind) {
  const auto keys = keys_of(kind);
  for (const auto& entry : node.entries()) {
    if (entry.key == "extends" || entry.key == "kind") continue;
    if (std::find(keys.begin(), keys.end(), entry.key) == keys.end())
      throw ConfigError(entry.key_loc, "'" + entry.key + "' does not apply to a '" + to_string(kind) +
                                           "' storage system");
  }
  for (std::string_view key : keys) node.at(key);  // "missing required key" at the map
}

}  // namespace

std::string to_string(StorageKind kind) {
  switch (kind) {
    case StorageKind::local: return "local";
    case StorageKind::nas: return "nas";
    case StorageKind::san: return "san";
    case StorageKind::pfs: return "pfs";
  }
  return "?";
}

const Schema& storage_spec_schema() {
  // Which keys a kind needs is checked by check_keys_for_kind; the defaults below say so.
  static const Schema schema = Schema::map({
      extends_field(),
      required("kind", Schema::one_of({"local", "nas", "san", "pfs"}),
               "local device in each node, NAS (NFS) or SAN server, or parallel file system (Lustre-like)"),
      optional("media", Schema::one_of({"nvme", "ssd", "hdd"}), "the local device's media (descriptive)",
               "none: required for local, refused otherwise"),
      optional("device", device_schema(), "the device in each client node",
               "none: required for local, refused otherwise"),
      optional("server", device_schema(), "the NAS or SAN server", "none: required for nas and san, refused otherwise"),
      optional("target", device_schema(), "one object storage target (OST)", "none: required for pfs, refused otherwise"),
      optional("network", Schema::string(),
               "the network between clients and servers: a name in configs/networks; each client node has one port",
               "none: required for nas, san and pfs, refused for local"),
      optional("server_ports", Schema::integer().at_least(1),
               "network ports of the server (pfs: of each object storage server)", "none: required for nas, san and pfs, refused for local"),
      optional("metadata", Schema::map({
                               required("ops", Schema::number().positive(), "metadata operations per second"),
                               required("latency", Schema::quantity(Dimension::time).at_least(0),
                                        "latency of one metadata operation"),
                           }),
               "the metadata server: every file open costs it one operation", "none: required for pfs, refused otherwise"),
      optional("targets", Schema::integer().at_least(1), "object storage targets (OSTs)",
               "none: required for pfs, refused otherwise"),
      optional("servers", Schema::integer().at_least(1), "object storage servers; targets are spread evenly over them",
               "none: required for pfs, refused otherwise"),
      optional("stripe_count", Schema::integer().at_least(1), "targets one file is striped over; at most targets",
               "none: required for pfs, refused otherwise"),
      optional("stripe_size", Schema::quantity(Dimension::bytes).at_least(4096), "bytes per stripe chunk",
               "none: required for pfs, refused otherwise"),
  });
  return schema;
}

StorageSpec parse_storage_spec(const ConfigNode& node, std::string name, const SpecCatalog& catalog) {
  storage_spec_schema().validate(node);
  StorageSpec s;
  s.name = std::move(name);
  s.kind = kind_of(node.get_string("kind"));
  check_keys_for_kind(node, s.kind);
  if (s.kind == StorageKind::local) {
    s.media = node.get_string("media");
    s.device = parse_device(node.at("device"));
    return s;
  }
  const ConfigNode& network_name = node.at("network");
  s.network = parse_network_spec(catalog.load("networks", network_name, "network"), network_name.as_string());
  s.server_ports = static_cast<int>(node.get_int("server_ports"));
  if (s.kind != StorageKind::pfs) {
    s.device = parse_device(node.at("server"));
    return s;
  }
  s.device = parse_device(node.at("target"));
  const ConfigNode& metadata = node.at("metadata");
  s.metadata.ops_per_s = metadata.get_number("ops");
  s.metadata.latency_s = metadata.get_quantity("latency", Dimension::time);
  s.targets = static_cast<int>(node.get_int("targets"));
  // Each target is a shared resource of the simulation, held and solved like a node (16 million targets ran
  // `hpcsim io` for minutes, silently).
  check_count(CountLimit::nodes, s.targets, node.at("targets").loc(), "the storage system (a resource per target)");
  s.servers = static_cast<int>(node.get_int("servers"));
  s.stripe_count = static_cast<int>(node.get_int("stripe_count"));
  s.stripe_size = node.get_quantity("stripe_size", Dimension::bytes);
  if (s.stripe_count > s.targets)
    throw ConfigError(node.at("stripe_count").loc(), "stripe_count " + std::to_string(s.stripe_count) +
                                                         " exceeds the " + std::to_string(s.targets) +
                                                         " targets a file can be striped over");
  if (s.targets % s.servers != 0)
    throw ConfigError(node.at("servers").loc(), std::to_string(s.targets) + " targets cannot be spread evenly over " +
                                                    std::to_string(s.servers) + " servers");
  return s;
}

}  // namespace hpcsim
