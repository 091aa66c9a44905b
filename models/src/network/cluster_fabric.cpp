#include "models/network/cluster_fabric.h"

#include <stdexcept>
#include <string>

namespace hpcsim {

ClusterFabric::ClusterFabric(FairShare& fs, const NodeSpec& node, int nodes, int gpus_per_node,
                             std::optional<NetworkSpec> network)
    : nodes_(nodes), gpus_per_node_(gpus_per_node), gpu_link_(node.gpu_link), network_(std::move(network)),
      nics_(node.nics.count) {
  if (nodes < 1 || gpus_per_node < 1 || gpus_per_node > node.gpus) {
    throw std::invalid_argument("cluster needs >= 1 node and 1.." + std::to_string(node.gpus) + " GPUs per node");
  }
  if (nodes > 1 && (!network_ || nics_ < 1)) {
    throw std::invalid_argument("a cluster of more than one node needs a network and NICs");
  }
  for (int g = 0; g < gpus(); ++g) {
    const std::string id = "gpu" + std::to_string(g);
    gpu_out_.push_back(fs.add_resource(gpu_link_.bandwidth, id + ".link_out"));
    gpu_in_.push_back(fs.add_resource(gpu_link_.bandwidth, id + ".link_in"));
  }
  if (nodes > 1) {
    // A port carries the lesser of what the NIC is sold at and what the link technology achieves.
    const double port = std::min(network_->payload_bandwidth(), node.nics.rate_bits / 8.0);
    for (int n = 0; n < nodes; ++n) {
      for (int i = 0; i < nics_; ++i) {
        const std::string id = "node" + std::to_string(n) + ".nic" + std::to_string(i);
        nic_out_.push_back(fs.add_resource(port, id + ".tx"));
        nic_in_.push_back(fs.add_resource(port, id + ".rx"));
      }
    }
  }
}

int ClusterFabric::rails() const { return nodes_ > 1 ? nics_ : 1; }

Hop ClusterFabric::route(int from, int to, int rail) const {
  if (from < 0 || to < 0 || from >= gpus() || to >= gpus() || from == to) {
    throw std::invalid_argument("route: bad GPU pair " + std::to_string(from) + " -> " + std::to_string(to));
  }
  const int node_from = from / gpus_per_node_;
  const int node_to = to / gpus_per_node_;
  if (node_from == node_to) return Hop{{gpu_out_[from], gpu_in_[to]}, gpu_link_.latency_s};
  const int port = rail % nics_;
  return Hop{{nic_out_[node_from * nics_ + port], nic_in_[node_to * nics_ + port]},
             network_->software_latency_s + network_->switch_latency_s};
}

}  // namespace hpcsim
