#include "storage_resources.h"

namespace hpcsim::storage_detail {

namespace {

// A request and its reply cross the client's port, one switch and the server's port; the network's
// per-message software latency is paid at each end of each direction.
double network_round_trip_s(const NetworkSpec& net) {
  return 2 * (net.software_latency_s + net.switch_latency_s);
}

std::string server_word(StorageKind kind) {
  switch (kind) {
    case StorageKind::local: return "device";
    case StorageKind::nas:
    case StorageKind::san: return "server";
    case StorageKind::pfs: return "target";
  }
  return "?";
}

}  // namespace

StorageResources build_storage_resources(FairShare& fs, const StorageSpec& spec, int nodes, IoOp op) {
  StorageResources r;
  const std::string word = server_word(spec.kind);
  const int server_count = spec.kind == StorageKind::local ? nodes
                           : spec.kind == StorageKind::pfs ? spec.targets
                                                           : 1;
  ResourceGroup bytes{word + " bandwidth", {}};
  ResourceGroup ops{word + " IOPS", {}};
  for (int i = 0; i < server_count; ++i) {
    Server s;
    s.bytes = fs.add_resource(spec.device.bandwidth(op), bytes.name + " " + std::to_string(i));
    s.ops = fs.add_resource(spec.device.iops(op), ops.name + " " + std::to_string(i));
    s.free_slots = spec.device.queue_depth;
    bytes.members.push_back(s.bytes);
    ops.members.push_back(s.ops);
    r.servers.push_back(std::move(s));
  }
  r.request_latency_s = spec.device.latency_s;
  r.groups = {bytes, ops};
  if (spec.kind == StorageKind::local) return r;

  // Remote storage: a non-blocking switch between one port per client node and the servers' ports.
  const NetworkSpec& net = *spec.network;
  const double port = net.payload_bandwidth();
  ResourceGroup clients{"client network", {}};
  for (int n = 0; n < nodes; ++n) {
    r.client_ports.push_back(fs.add_resource(port, "client port " + std::to_string(n)));
    clients.members.push_back(r.client_ports.back());
  }
  ResourceGroup uplinks{"server network", {}};
  const int uplink_count = spec.kind == StorageKind::pfs ? spec.servers : 1;
  for (int i = 0; i < uplink_count; ++i)
    uplinks.members.push_back(fs.add_resource(port * spec.server_ports, "server ports " + std::to_string(i)));
  const int servers_per_uplink = server_count / uplink_count;
  for (int i = 0; i < server_count; ++i) r.servers[i].uplink = uplinks.members[i / servers_per_uplink];
  r.request_latency_s += network_round_trip_s(net);
  r.groups.push_back(clients);
  r.groups.push_back(uplinks);
  if (spec.kind == StorageKind::pfs) {
    r.metadata = fs.add_resource(spec.metadata.ops_per_s, "metadata server");
    r.metadata_latency_s = spec.metadata.latency_s + network_round_trip_s(net);
    r.groups.push_back({"metadata server", {r.metadata}});
  }
  return r;
}

}  // namespace hpcsim::storage_detail
