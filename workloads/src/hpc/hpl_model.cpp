#include "workloads/hpc/hpl_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/cpu/omp_region.h"
#include "workloads/hpc/hpl_gpu.h"
#include "hpl_iteration.h"

namespace hpcsim {

namespace {

// Where one rank's threads sit and with how many other threads each socket streams.
struct RankPlacement {
  OmpPlacement omp;
};

RankPlacement rank_placement(const CpuSpec& cpu, const HplConfig& c) {
  RankPlacement r;
  r.omp.threads = c.threads_per_rank;
  r.omp.sockets = std::clamp((c.threads_per_rank + cpu.cores_per_socket - 1) / cpu.cores_per_socket, 1, cpu.sockets);
  // Ranks fill the node socket by socket; every rank's threads stream at once during the update.
  const int busy = c.ranks_per_node * c.threads_per_rank;
  r.omp.socket_threads = std::min((busy + cpu.sockets - 1) / cpu.sockets, cpu.cores_per_socket);
  return r;
}

double log2_ceil(int v) { return v <= 1 ? 0.0 : std::ceil(std::log2(static_cast<double>(v))); }

}  // namespace

double hpl_n_from_memory(const ClusterConfig& cluster, int nodes, int nb, double fraction) {
  const double elements = fraction * cluster.node.host_memory_bytes * nodes / 8.0;
  const double n = std::floor(std::sqrt(elements) / nb) * nb;
  return std::max(n, static_cast<double>(nb));
}

double hpl_n_from_gpu_memory(const ClusterConfig& cluster, int gpus, int nb, double fraction) {
  const double elements = fraction * cluster.node.gpu.memory_bytes() * gpus / 8.0;
  const double n = std::floor(std::sqrt(elements) / nb) * nb;
  return std::max(n, static_cast<double>(nb));
}

HplResult simulate_hpl(const ClusterConfig& cluster, const HplConfig& c, const MpiComm& comm) {
  if (c.accelerator == HplAccelerator::gpu) return simulate_hpl_gpu(cluster, c, comm);
  const CpuSpec& cpu = cluster.node.cpu;
  if (!cpu.hpc.present()) {
    throw std::invalid_argument("the " + cluster.node.name + " node spec has no HPC description of its CPU");
  }
  const int ranks = c.p * c.q;
  const int r = c.ranks_per_node;
  const int cores = cpu.sockets * cpu.cores_per_socket;
  if (c.nb < 1 || c.n < c.nb || c.p < 1 || c.q < 1 || r < 1 || c.threads_per_rank < 1 ||
      static_cast<long long>(r) * c.threads_per_rank > cores) {
    throw std::invalid_argument("an HPL run of " + std::to_string(ranks) + " ranks, " + std::to_string(r) + " per node x " +
                                std::to_string(c.threads_per_rank) + " threads, does not fit " + std::to_string(cores) +
                                "-core nodes");
  }
  HplResult out;
  out.config = c;
  out.nodes = (ranks + r - 1) / r;
  if (out.nodes > cluster.nodes) {
    throw std::invalid_argument(std::to_string(ranks) + " ranks at " + std::to_string(r) + " per node need " +
                                std::to_string(out.nodes) + " nodes; the cluster has " + std::to_string(cluster.nodes));
  }
  const RankPlacement place = rank_placement(cpu, c);
  const double nb = c.nb;
  const long long blocks = static_cast<long long>(std::ceil(c.n / nb));

  // Which of the grid's messages stay inside a node (row-major ranks: a node holds r consecutive ranks).
  const bool row_in_node = out.nodes == 1 || r >= c.q;
  const bool col_in_node = out.nodes == 1 || (r >= c.q && c.p <= r / c.q);
  const int row_sharing = row_in_node ? 1 : std::max(1, r / c.q);  // ranks of a node crossing to the next node at once
  const int col_sharing = col_in_node ? 1 : r;                      // every rank of a node swaps at once

  // Rows and columns of the most loaded rank's trailing matrix at iteration j.
  auto local = [&](long long remaining, int procs) { return std::ceil(static_cast<double>(remaining) / procs) * nb; };

  for (long long j = 0; j < blocks; ++j) {
    const long long left = blocks - j;
    const double m_loc = local(left, c.p);          // rows of the panel and trailing matrix on this rank
    const double n_loc = local(left - 1, c.q);      // trailing columns on this rank

    // Trailing update: DTRSM of the U block row (nb^2 n_loc) and the DGEMM m_loc x n_loc x nb.
    double update = 0;
    if (n_loc > 0) {
      HpcKernelWork gemm = dgemm_work(m_loc, n_loc, nb);
      gemm.flops += nb * nb * n_loc;
      update = omp_region_time(cpu, gemm, place.omp).total_s;
    }
    // Panel factorization on the panel's process column: m_loc x nb, recursive (its flops as a rank-nb/2
    // product), a pivot search per column: an all-reduce of the pivot row over the P ranks plus a barrier
    // of the rank's threads.
    const double panel_compute = omp_region_time(cpu, dgemm_work(m_loc, nb, nb / 2), place.omp).total_s;
    const double pivots = nb * (comm.allreduce_s(8.0 * (nb + 4), c.p, 1) + 2 * omp_barrier_s(c.threads_per_rank));
    const double panel = panel_compute + pivots;

    // Panel broadcast along the process row: a hop carries the rank's m_loc x nb panel rows.
    double crit = 0;     // until the next panel's column has it
    double per_rank = 0; // what one rank spends receiving and passing it on
    if (c.q > 1) {
      const double bytes = 8.0 * m_loc * nb;
      const double hop = comm.message_s(bytes, row_in_node, row_sharing);
      if (c.bcast == HplBcast::long_bcast) {
        // Spread (scatter of Q pieces) then roll (Q - 1 exchanges of a piece): bandwidth-optimal, and
        // every rank, the next panel's column too, has the panel only at the end.
        const double piece = comm.message_s(bytes / c.q, row_in_node, row_sharing);
        crit = (log2_ceil(c.q) + c.q - 1) * piece;
        per_rank = crit;
      } else {
        crit = hop;        // both rings send to the next column first
        per_rank = hop;    // receive one, pass one on (full duplex)
      }
    }
    // Row swaps along the process column (spread-roll): each rank's nb x n_loc rows go out and come back.
    double swap = 0;
    if (n_loc > 0) {
      const double bytes = 8.0 * nb * n_loc;
      if (c.p > 1) {
        swap = 2 * comm.message_s(bytes * (c.p - 1) / c.p, col_in_node, col_sharing) +
               (log2_ceil(c.p) - 1) * comm.message_s(8.0, col_in_node, 1);
      } else {
        swap = 2 * bytes / (socket_bandwidth(cpu, place.omp.socket_threads) * place.omp.threads /
                            std::max(place.omp.socket_threads, 1));
      }
    }

    add_hpl_iteration(out, c.depth, swap, update, panel, crit, per_rank);
  }
  // The rings' pipeline fill and the back substitution (N^2 FLOP over the grid plus a message per block
  // along the critical path).
  if (const int hops = hpl_ring_fill_hops(c); hops > 0) {
    out.time_s += hops * comm.message_s(8.0 * local(blocks, c.p) * nb, row_in_node, row_sharing);
  }
  const double solve_rate = cpu_core_vector_peak(cpu) * cpu.hpc.dgemm_efficiency * c.threads_per_rank;
  out.time_s += 2.0 * c.n * c.n / ranks / solve_rate + blocks * comm.message_s(8.0 * nb, false, 1);

  out.flops = 2.0 / 3.0 * c.n * c.n * c.n + 1.5 * c.n * c.n;
  out.flop_rate = out.flops / out.time_s;
  out.rpeak = out.nodes * cpu_node_rpeak(cpu);
  out.efficiency = out.flop_rate / out.rpeak;
  out.matrix_bytes_per_node = 8.0 * c.n * c.n / out.nodes;
  return out;
}

}  // namespace hpcsim
