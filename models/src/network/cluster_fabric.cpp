#include "models/network/cluster_fabric.h"

#include <algorithm>
#include <charconv>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hpcsim {

namespace {

std::string str(long long v) { return std::to_string(v); }

void append(std::string& to, std::string_view text) { to += text; }
void append(std::string& to, long long v) {
  char digits[24];
  to.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
}

// A resource name assembled in one reused buffer: a fabric of 8,192 GPUs names ~75,000 resources, and
// the temporaries of chained operator+ cost more than adding the resources themselves.
template <class... Parts>
const std::string& join(std::string& buffer, const Parts&... parts) {
  buffer.clear();
  (append(buffer, parts), ...);
  return buffer;
}

std::uint64_t flow_key(int from, int to, int rail) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(from)) << 36) ^
         (static_cast<std::uint64_t>(static_cast<std::uint32_t>(to)) << 8) ^ static_cast<std::uint64_t>(rail);
}

// Next hop from a towards b over the NVLink pairs (shortest path; ties go to the lowest GPU index).
std::vector<int> nvlink_next_hops(int g, const std::vector<NvlinkPair>& pairs) {
  std::vector<std::vector<int>> nbr(static_cast<std::size_t>(g));
  for (const NvlinkPair& p : pairs) {
    nbr[p.a].push_back(p.b);
    nbr[p.b].push_back(p.a);
  }
  for (auto& n : nbr) std::sort(n.begin(), n.end());
  std::vector<int> via(static_cast<std::size_t>(g) * g, -1);
  for (int b = 0; b < g; ++b) {  // BFS from each destination; first discovery = lowest index parent
    std::vector<int> dist(static_cast<std::size_t>(g), -1);
    std::deque<int> queue{b};
    dist[b] = 0;
    while (!queue.empty()) {
      const int at = queue.front();
      queue.pop_front();
      for (int n : nbr[at]) {
        if (dist[n] < 0) {
          dist[n] = dist[at] + 1;
          queue.push_back(n);
        }
      }
    }
    for (int a = 0; a < g; ++a) {
      if (a == b || dist[a] < 0) continue;
      for (int n : nbr[a]) {
        if (dist[n] == dist[a] - 1) {
          via[static_cast<std::size_t>(a) * g + b] = n;
          break;
        }
      }
    }
  }
  return via;
}

}  // namespace

constexpr ResourceId kNoLink = std::numeric_limits<ResourceId>::max();

ResourceId ClusterFabric::add(double capacity, const std::string& name) const {
  const ResourceId id = fs_.add_resource(capacity, name);
  if (capacity_.empty()) first_ = id;
  // Links added on first use may come after resources of other models: ids are not contiguous.
  if (id - first_ >= capacity_.size()) capacity_.resize(id - first_ + 1, 0);
  capacity_[id - first_] = capacity;
  return id;
}

ResourceId ClusterFabric::link_resource(int directed) const {
  ResourceId& id = link_res_[static_cast<std::size_t>(directed)];
  if (id == kNoLink) {
    const auto [a, b] = topology_->link_ends(directed / 2);
    std::string name;
    id = add(network_->payload_bandwidth(), join(name, "switch", a, "-switch", b, directed % 2 == 0 ? ".fwd" : ".rev"));
  }
  return id;
}

ClusterFabric::ClusterFabric(FairShare& fs, const NodeSpec& node, int nodes, int gpus_per_node,
                             std::optional<NetworkSpec> network, const TopologySpec& topology)
    : fs_(fs), node_(node), nodes_(nodes), gpus_per_node_(gpus_per_node), network_(std::move(network)),
      nics_(node.nics.count) {
  if (nodes < 1 || gpus_per_node < 1 || gpus_per_node > node.gpus) {
    throw std::invalid_argument("cluster needs >= 1 node and 1.." + str(node.gpus) + " GPUs per node");
  }
  if (nodes > 1 && (!network_ || nics_ < 1)) {
    throw std::invalid_argument("a cluster of more than one node needs a network and NICs");
  }
  const int G = node.gpus;
  const std::string& kind = node.gpu_link.kind;
  const bool pcie = node.pcie.modelled();
  if (nodes > 1) {  // validate the topology before adding anything
    const int rails = node.nics.rails > 0 ? node.nics.rails : nics_;
    topology_.emplace(Topology::build(topology, nodes, nics_, rails, network_->routing));
  }
  std::string name;
  for (int n = 0; n < nodes; ++n) {
    if (kind == "nvlink") {
      const double link = node.gpu_link.bandwidth;
      if (n == 0) {
        pair_.assign(static_cast<std::size_t>(nodes) * G * G, 0);
        via_ = nvlink_next_hops(G, node.nvlink_pairs);
      }
      for (const NvlinkPair& p : node.nvlink_pairs) {
        if (p.a >= gpus_per_node || p.b >= gpus_per_node) continue;
        pair_[(static_cast<std::size_t>(n) * G + p.a) * G + p.b] =
            add(p.links * link, join(name, "node", n, ".nvlink", p.a, "-", p.b, ".fwd"));
        pair_[(static_cast<std::size_t>(n) * G + p.b) * G + p.a] =
            add(p.links * link, join(name, "node", n, ".nvlink", p.a, "-", p.b, ".rev"));
      }
    } else if (kind != "pcie") {  // nvswitch, or a node described only by its per-GPU port
      for (int g = 0; g < gpus_per_node; ++g) {
        gpu_out_.push_back(add(node.gpu_link.bandwidth, join(name, "node", n, ".gpu", g, ".link_out")));
        gpu_in_.push_back(add(node.gpu_link.bandwidth, join(name, "node", n, ".gpu", g, ".link_in")));
      }
    }
    if (pcie) {
      const double lane_bw = node.pcie.link->payload_bandwidth(node.pcie.lanes);
      for (int g = 0; g < gpus_per_node; ++g) {
        pcie_up_.push_back(add(lane_bw, join(name, "node", n, ".gpu", g, ".pcie_up")));
        pcie_down_.push_back(add(lane_bw, join(name, "node", n, ".gpu", g, ".pcie_down")));
      }
      for (int s = 0; s < node.pcie.switches; ++s) {
        uplink_up_.push_back(add(lane_bw, join(name, "node", n, ".pcie_switch", s, ".uplink_up")));
        uplink_down_.push_back(add(lane_bw, join(name, "node", n, ".pcie_switch", s, ".uplink_down")));
      }
    }
  }
  if (kind == "nvlink" && nodes_ >= 1) {
    for (int a = 0; a < gpus_per_node; ++a) {
      for (int b = 0; b < gpus_per_node; ++b) {
        if (a != b && via_[static_cast<std::size_t>(a) * G + b] < 0 && !pcie) {
          throw std::invalid_argument(node.name + ": GPU " + str(a) + " cannot reach GPU " + str(b) +
                                      " over NVLink and the node has no PCIe tree");
        }
      }
    }
  }
  if (nodes > 1) {
    // A NIC carries the lesser of its own rate and the technology's data rate, less per-packet headers.
    const double header_share = network_->payload_bandwidth() / network_->data_rate();
    const double port = std::min(network_->data_rate(), node.nics.rate_bits / 8.0) * header_share;
    for (int n = 0; n < nodes; ++n) {
      for (int i = 0; i < nics_; ++i) {
        nic_out_.push_back(add(port, join(name, "node", n, ".nic", i, ".tx")));
        nic_in_.push_back(add(port, join(name, "node", n, ".nic", i, ".rx")));
      }
    }
    link_res_.assign(2 * static_cast<std::size_t>(topology_->link_count()), kNoLink);
  }
}

int ClusterFabric::rails() const { return nodes_ > 1 ? nics_ : 1; }

int ClusterFabric::gpu_near_nic(int nic) const {
  if (node_.pcie.modelled() && node_.pcie.nics_per_switch > 0) {
    const int sw = node_.pcie_switch_of_nic(nic);
    for (int g = 0; g < gpus_per_node_; ++g) {
      if (node_.pcie_switch_of_gpu(g) == sw) return g;
    }
  }
  return nic % gpus_per_node_;
}

std::vector<int> ClusterFabric::nics_near_gpu(int local_gpu) const {
  const long long gpus = node_.gpus;  // the node's GPUs, used or not: the NICs are wired to all of them
  const long long l = local_gpu % gpus;
  // [l N / G, (l + 1) N / G), at least one NIC: with fewer NICs than GPUs that is NIC l N / G alone.
  const int first = static_cast<int>(l * nics_ / gpus);
  const int end = std::max(first + 1, static_cast<int>((l + 1) * nics_ / gpus));
  std::vector<int> out;
  for (int n = first; n < end; ++n) out.push_back(n);
  return out;
}

// The PCIe legs between a GPU and a NIC of one node: the GPU's link, and the switch uplinks when the two
// are on different switches or when the NIC cannot read GPU memory directly (staged through the host).
void ClusterFabric::add_gpu_legs(Hop& hop, int g, int nic, bool outbound, int n) const {
  if (!node_.pcie.modelled() || node_.pcie.nics_per_switch < 1) return;
  const int sg = node_.pcie_switch_of_gpu(g), sn = node_.pcie_switch_of_nic(nic);
  const std::size_t base = static_cast<std::size_t>(n) * node_.pcie.switches;
  const std::size_t gi = static_cast<std::size_t>(n) * gpus_per_node_ + g;
  const bool via_root = sg != sn || !node_.nics.gpudirect_rdma;
  // NCCL's PXN (on by default, NCCL_PXN_DISABLE=0; src/graph/paths.cc PATH_PXN): on an NVSwitch node a GPU
  // reaches a NIC on another PCIe switch through the GPU beside that NIC, over NVLink, instead of through
  // the CPU's root complex.
  const std::string& kind = node_.gpu_link.kind;
  if (via_root && node_.nics.gpudirect_rdma && kind != "nvlink" && kind != "pcie") {
    const int proxy = gpu_near_nic(nic);
    if (node_.pcie_switch_of_gpu(proxy) == sn && proxy != g) {
      const std::size_t node_base = static_cast<std::size_t>(n) * gpus_per_node_;
      if (outbound) {
        hop.path.push_back(gpu_out_[node_base + g]);
        hop.path.push_back(gpu_in_[node_base + proxy]);
        hop.path.push_back(pcie_up_[node_base + proxy]);
      } else {
        hop.path.push_back(pcie_down_[node_base + proxy]);
        hop.path.push_back(gpu_out_[node_base + proxy]);
        hop.path.push_back(gpu_in_[node_base + g]);
      }
      return;
    }
  }
  if (outbound) {
    hop.path.push_back(pcie_up_[gi]);
    if (via_root) {
      hop.path.push_back(uplink_up_[base + sg]);
      hop.path.push_back(uplink_down_[base + sn]);
    }
  } else {
    if (via_root) {
      hop.path.push_back(uplink_up_[base + sn]);
      hop.path.push_back(uplink_down_[base + sg]);
    }
    hop.path.push_back(pcie_down_[gi]);
  }
}

Hop ClusterFabric::intra_node(int n, int a, int b) const {
  Hop hop;
  const int G = node_.gpus;
  const std::string& kind = node_.gpu_link.kind;
  if (kind == "nvlink" && via_[static_cast<std::size_t>(a) * G + b] >= 0) {
    for (int at = a; at != b;) {
      const int next = via_[static_cast<std::size_t>(at) * G + b];
      hop.path.push_back(pair_[(static_cast<std::size_t>(n) * G + at) * G + next]);
      hop.latency_s += node_.gpu_link.latency_s;  // each forwarding GPU issues its own copy
      at = next;
    }
    return hop;
  }
  if (kind != "nvlink" && kind != "pcie") {
    const std::size_t base = static_cast<std::size_t>(n) * gpus_per_node_;
    return Hop{{gpu_out_[base + a], gpu_in_[base + b]}, node_.gpu_link.latency_s};
  }
  // PCIe: peer-to-peer through the shared switch, else up through the root complex; without P2P the copy
  // is staged in host memory, which costs a second copy's latency.
  const PcieTreeSpec& t = node_.pcie;
  const std::size_t base = static_cast<std::size_t>(n) * t.switches;
  const std::size_t ga = static_cast<std::size_t>(n) * gpus_per_node_ + a, gb = ga - a + b;
  const int sa = node_.pcie_switch_of_gpu(a), sb = node_.pcie_switch_of_gpu(b);
  hop.path.push_back(pcie_up_[ga]);
  if (sa != sb || !t.p2p) {
    hop.path.push_back(uplink_up_[base + sa]);
    hop.path.push_back(uplink_down_[base + sb]);
  }
  hop.path.push_back(pcie_down_[gb]);
  hop.latency_s = t.link->software_latency_s * (t.p2p ? 1 : 2) + t.link->switch_latency_s * (sa == sb ? 1 : 2);
  return hop;
}

Hop ClusterFabric::compute_route(int from, int to, int rail) const {
  const int na = node_of(from), nb = node_of(to);
  const int a = from % gpus_per_node_, b = to % gpus_per_node_;
  if (na == nb) return intra_node(na, a, b);
  Hop hop;
  hop.inter_node = true;
  hop.path.reserve(8);  // NIC ports, up to 4 switch links, PCIe legs: one allocation per route
  const int nic = nic_of_rail(rail);
  add_gpu_legs(hop, a, nic, true, na);
  const int src = na * nics_ + nic, dst = nb * nics_ + nic;
  hop.path.push_back(nic_out_[src]);
  scratch_.clear();
  topology_->route(src, dst, flow_key(from, to, rail), scratch_);
  for (int directed : scratch_) hop.path.push_back(link_resource(directed));
  hop.path.push_back(nic_in_[dst]);
  add_gpu_legs(hop, b, nic, false, nb);
  const double switch_hops = static_cast<double>(scratch_.size()) + 1;
  hop.latency_s = network_->software_latency_s + switch_hops * network_->switch_latency_s;
  return hop;
}

std::uint64_t ClusterFabric::route_key(int from, int to, int& rail) const {
  if (from < 0 || to < 0 || from >= gpus() || to >= gpus() || from == to || rail < 0) {
    throw std::invalid_argument("route: bad GPU pair " + str(from) + " -> " + str(to) + " on rail " + str(rail));
  }
  rail = node_of(from) == node_of(to) ? 0 : rail % nics_;
  return (static_cast<std::uint64_t>(from) * gpus() + to) * static_cast<std::uint64_t>(nics_ + 1) + rail;
}

Hop ClusterFabric::complete_route(int from, int to, int rail) const {
  Hop hop = compute_route(from, to, rail);
  hop.bandwidth = capacity(hop.path.front());
  for (ResourceId id : hop.path) hop.bandwidth = std::min(hop.bandwidth, capacity(id));
  return hop;
}

const Hop& ClusterFabric::route(int from, int to, int rail) const {
  const std::uint64_t key = route_key(from, to, rail);
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(key, complete_route(from, to, rail)).first;
  return it->second;
}

const Hop& ClusterFabric::route_once(int from, int to, int rail, Hop& scratch) const {
  const std::uint64_t key = route_key(from, to, rail);
  const auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  scratch = complete_route(from, to, rail);
  return scratch;
}

}  // namespace hpcsim
