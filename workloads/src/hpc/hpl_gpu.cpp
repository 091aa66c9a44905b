#include "workloads/hpc/hpl_gpu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/gpu/host_transfer.h"
#include "models/mpi/shm_latency.h"
#include "hpl_iteration.h"

namespace hpcsim {

namespace {

double log2_ceil(int v) { return v <= 1 ? 0.0 : std::ceil(std::log2(static_cast<double>(v))); }

// The host's FP64 rate one rank's cores reach in DGEMM-like work (panel on host).
double host_rate_per_rank(const NodeSpec& node, int ranks_per_node) {
  const CpuSpec& cpu = node.cpu;
  const double efficiency = cpu.hpc.present() ? cpu.hpc.dgemm_efficiency : kGpuDgemmEfficiency;
  return cpu.flops_per_socket * cpu.sockets * efficiency / ranks_per_node;
}

// Seconds of a pinned copy between a GPU and the host over the node's PCIe link.
double pcie_copy_s(const NodeSpec& node, double bytes) {
  if (bytes <= 0) return 0;
  return pinned_copy_s(*node.pcie.link, node.pcie.lanes, bytes);
}

}  // namespace

HplResult simulate_hpl_gpu(const ClusterConfig& cluster, const HplConfig& c, const MpiComm& comm) {
  const NodeSpec& node = cluster.node;
  const int ranks = c.p * c.q;
  const int r = c.ranks_per_node;
  if (node.gpus == 0) throw std::invalid_argument("a " + node.name + " has no GPUs for GPU HPL");
  if (c.nb < 1 || c.n < c.nb || c.p < 1 || c.q < 1 || r < 1 || r > cluster.gpus_per_node) {
    throw std::invalid_argument("a GPU HPL run of " + std::to_string(ranks) + " ranks, " + std::to_string(r) +
                                " per node, does not fit " + std::to_string(cluster.gpus_per_node) + "-GPU nodes");
  }
  if (c.panel == HplPanel::host && !node.pcie.link) {
    throw std::invalid_argument("a " + node.name + " spec has no PCIe link: the panel cannot be copied to the host");
  }
  HplResult out;
  out.config = c;
  out.nodes = (ranks + r - 1) / r;
  out.gpus = ranks;
  if (out.nodes > cluster.nodes) {
    throw std::invalid_argument(std::to_string(ranks) + " ranks at " + std::to_string(r) + " per node need " +
                                std::to_string(out.nodes) + " nodes; the cluster has " + std::to_string(cluster.nodes));
  }
  const GpuSpec& gpu = node.gpu;
  const double peak = gpu.peak(Precision::fp64);
  const double rate = peak * c.gpu_dgemm_efficiency;
  const double nb = c.nb;
  const long long blocks = static_cast<long long>(std::ceil(c.n / nb));

  const bool row_in_node = out.nodes == 1 || r >= c.q;
  const bool col_in_node = out.nodes == 1 || (r >= c.q && c.p <= r / c.q);
  const int row_sharing = row_in_node ? 1 : std::max(1, r / c.q);
  const int col_sharing = col_in_node ? 1 : r;
  // One message between two GPUs: inside a node over the GPU's NVLink / NVSwitch port (or, without one,
  // through the host: two PCIe copies); between nodes through MpiComm, staged through host memory when
  // the NICs cannot reach GPU memory.
  auto message = [&](double bytes, bool same_node, int sharing) {
    if (bytes <= 0) return 0.0;
    if (same_node) {
      if (node.gpu_link.bandwidth > 0) {
        return std::max(node.gpu_link.latency_s, kShmLatencyS) + bytes * std::max(sharing, 1) / node.gpu_link.bandwidth;
      }
      if (node.pcie.link) return 2 * pcie_copy_s(node, bytes * std::max(sharing, 1));
      return comm.message_s(bytes, true, sharing);
    }
    const double staged = !node.nics.gpudirect_rdma && node.pcie.link ? 2 * pcie_copy_s(node, bytes) : 0.0;
    return comm.message_s(bytes, false, sharing) + staged;
  };
  auto local = [&](long long remaining, int procs) { return std::ceil(static_cast<double>(remaining) / procs) * nb; };
  const double host_rate = host_rate_per_rank(node, r);

  for (long long j = 0; j < blocks; ++j) {
    const long long left = blocks - j;
    const double m_loc = local(left, c.p);
    const double n_loc = local(left - 1, c.q);
    // Trailing update on the GPU: DTRSM (nb^2 n_loc) + DGEMM m_loc x n_loc x nb at the DGEMM rate.
    const double update = n_loc > 0 ? (2.0 * m_loc * n_loc * nb + nb * nb * n_loc) / rate : 0.0;
    // Panel: its FLOPs as a rank-nb/2 product (as the CPU model) plus a pivot all-reduce per column; on the
    // GPU one persistent kernel whose CTAs synchronize once per column (HPL-NVIDIA's HPL_CTA_PER_FCT sets
    // how many CTAs factor the panel; the grid-wide synchronization is taken at one kernel launch, UNSURE),
    // on the host the panel's copies down and back and the host cores' rate.
    const double panel_flops = m_loc * nb * nb;
    const double pivots = nb * comm.allreduce_s(8.0 * (nb + 4), c.p, 1);
    double panel = 0;
    if (c.panel == HplPanel::gpu) {
      panel = panel_flops / rate + pivots + nb * gpu.launch_overhead_s;
    } else {
      const double copies = 2 * pcie_copy_s(node, 8.0 * m_loc * nb);
      panel = copies + panel_flops / host_rate + pivots;
      out.host_copy_s += copies;
    }
    double crit = 0;
    double per_rank = 0;
    if (c.q > 1) {
      const double bytes = 8.0 * m_loc * nb;
      if (c.bcast == HplBcast::long_bcast) {
        crit = (log2_ceil(c.q) + c.q - 1) * message(bytes / c.q, row_in_node, row_sharing);
        per_rank = crit;
      } else {
        crit = message(bytes, row_in_node, row_sharing);
        per_rank = crit;
      }
    }
    double swap = 0;
    if (n_loc > 0) {
      const double bytes = 8.0 * nb * n_loc;
      if (c.p > 1) {
        swap = 2 * message(bytes * (c.p - 1) / c.p, col_in_node, col_sharing) +
               (log2_ceil(c.p) - 1) * message(8.0, col_in_node, 1);
      } else {
        swap = 2 * bytes / gpu.memory_bandwidth();  // rows exchanged inside the GPU's memory
      }
    }
    add_hpl_iteration(out, c.depth, swap, update, panel, crit, per_rank);
  }
  if (const int hops = hpl_ring_fill_hops(c); hops > 0) {
    out.time_s += hops * message(8.0 * local(blocks, c.p) * nb, row_in_node, row_sharing);
  }
  out.time_s += 2.0 * c.n * c.n / ranks / rate + blocks * message(8.0 * nb, false, 1);

  out.flops = 2.0 / 3.0 * c.n * c.n * c.n + 1.5 * c.n * c.n;
  out.flop_rate = out.flops / out.time_s;
  out.rpeak = ranks * peak;
  out.rpeak_host = out.nodes * node.cpu.flops_per_socket * node.cpu.sockets;
  out.efficiency = out.flop_rate / out.rpeak;
  out.matrix_bytes_per_node = 8.0 * c.n * c.n / out.nodes;
  return out;
}

}  // namespace hpcsim
