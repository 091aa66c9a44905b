#include "workloads/hpc/mpi_comm.h"

#include <algorithm>
#include <cmath>

#include "models/mpi/shm_latency.h"
#include "models/network/topology.h"

namespace hpcsim {

AnalyticMpiComm::AnalyticMpiComm(const ClusterConfig& cluster) {
  const NodeSpec& node = cluster.node;
  if (cluster.network && cluster.nodes > 1) {
    const NetworkSpec& net = *cluster.network;
    const int nics = std::max(node.nics.count, 1);
    const int rails = node.nics.rails > 0 ? node.nics.rails : nics;
    const Topology topology = Topology::build(cluster.topology, cluster.nodes, nics, rails);
    const int far = cluster.nodes / 2;
    const int switches = topology.hops(0, far * nics) + 1;  // switch-to-switch hops + the first switch
    latency_s_ = net.software_latency_s + switches * net.switch_latency_s;
    node_bandwidth_ = std::min(net.payload_bandwidth(), node.nics.rate_bits / 8.0) * nics;
  }
  shm_latency_s_ = kShmLatencyS;
  const double stream = node.cpu.hpc.present() ? node.cpu.hpc.memory.stream_per_socket : node.cpu.memory_bandwidth_per_socket;
  shm_bandwidth_ = stream / 2.0;
}

double AnalyticMpiComm::message_s(double bytes, bool same_node, int sharing) const {
  if (bytes <= 0) return 0;
  const int share = std::max(sharing, 1);
  if (same_node || node_bandwidth_ <= 0) return shm_latency_s_ + bytes * share / shm_bandwidth_;
  return latency_s_ + bytes * share / node_bandwidth_;
}

double AnalyticMpiComm::allreduce_s(double bytes, int ranks, int sharing) const {
  if (ranks <= 1) return 0;
  const double rounds = std::ceil(std::log2(static_cast<double>(ranks)));
  return rounds * message_s(bytes, false, sharing);
}

}  // namespace hpcsim
