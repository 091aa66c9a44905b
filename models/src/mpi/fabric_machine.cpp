#include "models/mpi/fabric_machine.h"

#include <stdexcept>
#include <string>
#include <unordered_map>

#include "models/network/cluster_fabric.h"

namespace hpcsim {

namespace {

NodeSpec host_endpoint_node(const NodeSpec& node) {
  NodeSpec n = node;
  n.gpus = 1;
  n.gpu_link = GpuLinkSpec{};
  n.gpu_link.kind = "pcie";
  n.gpu_link_spec.reset();
  n.nvlink_pairs.clear();
  n.pcie = PcieTreeSpec{};
  return n;
}

}  // namespace

struct FabricMachine::Impl {
  ClusterConfig cluster;
  double shm_latency;
  Simulator sim;
  FairShare fs{sim};
  std::unique_ptr<ClusterFabric> fabric;
  std::vector<std::string> names;
  std::vector<ResourceId> shm;
  std::unordered_map<std::uint64_t, MpiRoute> routes;
  int cores = 1;
  double speed = 0;
};

FabricMachine::FabricMachine(const ClusterConfig& cluster, double shm_latency_s) : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  d.fs.keep_resource_stats(false);  // an MPI run reads no link statistics
  d.cluster = cluster;
  d.shm_latency = shm_latency_s;
  const CpuSpec& cpu = cluster.node.cpu;
  d.cores = cpu.sockets * cpu.cores_per_socket;
  if (d.cores < 1 || !(cpu.flops_per_socket > 0))
    throw std::invalid_argument("node '" + cluster.node.name + "' has no CPU cores or FP64 rate to run MPI ranks on");
  d.speed = cpu.flops_per_socket / cpu.cores_per_socket;
  d.fabric = std::make_unique<ClusterFabric>(d.fs, host_endpoint_node(cluster.node), cluster.nodes, 1, cluster.network,
                                             cluster.topology);
  const double copy_bw = cpu.memory_bandwidth_per_socket > 0 ? cpu.memory_bandwidth_per_socket * cpu.sockets / 2 : 0;
  for (int n = 0; n < cluster.nodes; ++n) {
    d.names.push_back(cluster.node.name + "-" + std::to_string(n));
    d.shm.push_back(copy_bw > 0 ? d.fs.add_resource(copy_bw, d.names.back() + ".shm") : 0);
  }
}

FabricMachine::~FabricMachine() = default;
int FabricMachine::hosts() const { return impl_->cluster.nodes; }
const std::string& FabricMachine::host_name(int h) const { return impl_->names.at(h); }
double FabricMachine::host_speed(int) const { return impl_->speed; }
int FabricMachine::host_cores(int) const { return impl_->cores; }
Simulator& FabricMachine::sim() { return impl_->sim; }
FairShare& FabricMachine::fair_share() { return impl_->fs; }

const MpiRoute& FabricMachine::route(int from, int to) {
  Impl& d = *impl_;
  if (from < 0 || to < 0 || from >= hosts() || to >= hosts()) throw std::invalid_argument("route: host out of range");
  const std::uint64_t key = static_cast<std::uint64_t>(from) * static_cast<std::uint64_t>(hosts()) + static_cast<std::uint64_t>(to);
  auto it = d.routes.find(key);
  if (it != d.routes.end()) return it->second;
  MpiRoute r;
  if (from == to) {
    r.latency_s = d.shm_latency;
    if (d.cluster.node.cpu.memory_bandwidth_per_socket > 0) {
      r.forward = {d.shm[from]};
      r.bandwidth = d.fs.capacity(d.shm[from]);
      r.inverse_bandwidth_sum = 1 / r.bandwidth;
    }
  } else {
    const Hop& there = d.fabric->route(from, to, 0);
    const Hop& back = d.fabric->route(to, from, 0);
    r.forward = there.path;
    r.reverse = back.path;
    r.latency_s = there.latency_s;
    r.bandwidth = there.bandwidth;
    for (ResourceId id : there.path) r.inverse_bandwidth_sum += 1 / d.fs.capacity(id);
  }
  return d.routes.emplace(key, std::move(r)).first->second;
}

}  // namespace hpcsim
