#include "workloads/hpc/spmd_program.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace hpcsim {

namespace {

double log2_ceil(long long v) { return v <= 1 ? 0.0 : std::ceil(std::log2(static_cast<double>(v))); }

int sharing(double node_bytes, double largest) {
  if (largest <= 0 || !(node_bytes / largest < 1e9)) return largest <= 0 ? 1 : 1000000000;
  return std::max(1, static_cast<int>(std::ceil(node_bytes / largest - 1e-9)));
}

// The cost of one phase on the representative rank, with what it sends.
struct PhaseCost {
  double time_s = 0;
  double rank_bytes = 0;     // the representative rank's halo bytes
  double offnode_bytes = 0;  // the representative node's bytes to other nodes
};

// The middle node's ranks: the first and one past the last.
std::pair<long long, long long> middle_node(const RankLayout& l) {
  const long long r = l.ranks_per_node;
  const long long first = ((l.nodes - 1) / 2) * r;
  return {first, std::min(first + r, static_cast<long long>(l.ranks))};
}

// Every message of every rank of the middle node goes out at once (non-blocking sends): a node's messages
// to other nodes share its NICs, those inside it the shared-memory bandwidth; a rank waits for the longer of
// its two kinds. The slowest rank of the node is the representative.
PhaseCost halo_cost(const HaloMessages& h, const ProcessGrid& g, const RankLayout& l, const MpiComm& comm) {
  struct Traffic {
    double off = 0, on = 0, off_max = 0, on_max = 0;
  };
  const auto [first, last] = middle_node(l);
  const long long r = l.ranks_per_node;
  std::vector<Traffic> ranks(static_cast<std::size_t>(last - first));
  double node_off = 0, node_on = 0;
  for (long long rank = first; rank < last; ++rank) {
    Traffic& t = ranks[static_cast<std::size_t>(rank - first)];
    const std::array<int, 3> c = g.coords(rank);
    for (int dz = -1; dz <= 1; ++dz) {
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          const std::array<int, 3> delta{dx, dy, dz};
          const int cut = (dx != 0) + (dy != 0) + (dz != 0);
          if (cut == 0) continue;
          double bytes = h.corner;
          if (cut == 1) {
            bytes = h.face[dx != 0 ? 0 : (dy != 0 ? 1 : 2)];
          } else if (cut == 2) {
            bytes = h.edge[dx == 0 ? 0 : (dy == 0 ? 1 : 2)];  // along the dimension not cut
          }
          if (bytes <= 0) continue;
          const long long peer = g.rank_at({c[0] + delta[0], c[1] + delta[1], c[2] + delta[2]});
          if (peer < 0) continue;
          if (peer / r == rank / r) {
            t.on += bytes;
            t.on_max = std::max(t.on_max, bytes);
            node_on += bytes;
          } else {
            t.off += bytes;
            t.off_max = std::max(t.off_max, bytes);
            node_off += bytes;
          }
        }
      }
    }
  }
  PhaseCost out;
  out.offnode_bytes = node_off;
  for (const Traffic& t : ranks) {
    const double off = t.off_max > 0 ? comm.message_s(t.off_max, false, sharing(node_off, t.off_max)) : 0.0;
    const double on = t.on_max > 0 ? comm.message_s(t.on_max, true, sharing(node_on, t.on_max)) : 0.0;
    // The slowest rank; among ranks as slow (they share the node's NICs), the one sending most.
    const double time = std::max(off, on);
    if (time > out.time_s * (1 + 1e-12) || (time >= out.time_s * (1 - 1e-12) && t.off + t.on > out.rank_bytes)) {
      out.time_s = std::max(time, out.time_s);
      out.rank_bytes = t.off + t.on;
    }
  }
  return out;
}

// Recursive doubling over every rank (ranks fill nodes in order): the first log2(ranks per node) rounds
// inside the node, the rest between nodes with all of a node's ranks sending at once; the threads
// combine their partial sums at a barrier first.
PhaseCost allreduce_cost(double bytes, const RankLayout& l, const MpiComm& comm) {
  PhaseCost out;
  out.time_s = omp_barrier_s(l.threads_per_rank);
  if (l.ranks_per_node > 1) out.time_s += log2_ceil(l.ranks_per_node) * comm.message_s(bytes, true, 1);
  if (l.nodes > 1) {
    out.time_s += comm.allreduce_s(bytes, l.nodes, l.ranks_per_node);
    out.offnode_bytes = log2_ceil(l.nodes) * bytes * l.ranks_per_node;
  }
  return out;
}

// Pairwise exchange: ranks - 1 steps, one message each, the node's ranks all sending at once.
PhaseCost alltoall_cost(double bytes, const RankLayout& l, const MpiComm& comm) {
  const long long r = l.ranks_per_node;
  const long long remote = static_cast<long long>(l.ranks) - r;
  PhaseCost out;
  out.time_s = (r - 1) * comm.message_s(bytes, true, static_cast<int>(r)) +
               remote * comm.message_s(bytes, false, static_cast<int>(r));
  out.offnode_bytes = static_cast<double>(r) * remote * bytes;
  return out;
}

// Every rank exchanges one message with rank xor distance (none when that rank does not exist).
PhaseCost p2p_cost(double bytes, long long distance, const RankLayout& l, const MpiComm& comm) {
  const auto [first, last] = middle_node(l);
  const long long r = l.ranks_per_node;
  int off = 0, on = 0;
  for (long long rank = first; rank < last; ++rank) {
    const long long peer = rank ^ distance;
    if (peer >= l.ranks || peer == rank) continue;
    (peer / r == rank / r ? on : off) += 1;
  }
  PhaseCost out;
  const double t_off = off > 0 ? comm.message_s(bytes, false, off) : 0.0;
  const double t_on = on > 0 ? comm.message_s(bytes, true, on) : 0.0;
  out.time_s = std::max(t_off, t_on);
  out.offnode_bytes = off * bytes;
  return out;
}

PhaseCost phase_cost(const SpmdPhase& p, const ClusterConfig& cluster, const RankLayout& l, const ProcessGrid& g,
                     const MpiComm& comm) {
  switch (p.kind) {
    case SpmdPhaseKind::compute: {
      PhaseCost out;
      if (p.work.flops > 0 || p.work.bytes > 0) out.time_s = omp_region_time(cluster.node.cpu, p.work, l.omp).total_s;
      return out;
    }
    case SpmdPhaseKind::halo: return halo_cost(p.halo, g, l, comm);
    case SpmdPhaseKind::allreduce: return allreduce_cost(p.bytes, l, comm);
    case SpmdPhaseKind::alltoall: return alltoall_cost(p.bytes, l, comm);
    case SpmdPhaseKind::p2p: return p2p_cost(p.bytes, p.distance, l, comm);
  }
  return {};
}

struct ProgramCost {
  double time_s = 0;
  double flops = 0;  // one rank
  std::array<double, 5> by_kind{};
  double halo_bytes = 0, offnode_bytes = 0;
};

ProgramCost program_cost(const std::vector<SpmdPhase>& phases, const ClusterConfig& cluster, const RankLayout& l,
                         const ProcessGrid& g, const MpiComm& comm) {
  ProgramCost out;
  std::vector<double> t(phases.size());
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const PhaseCost c = phase_cost(phases[i], cluster, l, g, comm);
    t[i] = c.time_s;
    out.by_kind[static_cast<std::size_t>(phases[i].kind)] += c.time_s;
    out.halo_bytes += c.rank_bytes;
    out.offnode_bytes += c.offnode_bytes;
    out.flops += phases[i].kind == SpmdPhaseKind::compute ? phases[i].work.flops : 0.0;
  }
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const bool hidden = phases[i].overlap && phases[i].kind != SpmdPhaseKind::compute && i + 1 < phases.size() &&
                        phases[i + 1].kind == SpmdPhaseKind::compute;
    if (hidden) {
      out.time_s += std::max(t[i], t[i + 1]);
      ++i;
    } else {
      out.time_s += t[i];
    }
  }
  return out;
}

}  // namespace

SpmdPhase compute_phase(const HpcKernelWork& work) {
  SpmdPhase p;
  p.kind = SpmdPhaseKind::compute;
  p.work = work;
  return p;
}

SpmdPhase comm_phase(SpmdPhaseKind kind, double bytes, long long distance) {
  SpmdPhase p;
  p.kind = kind;
  p.bytes = bytes;
  p.distance = distance;
  return p;
}

SpmdPhase halo_phase(const HaloMessages& messages, bool overlap) {
  SpmdPhase p;
  p.kind = SpmdPhaseKind::halo;
  p.halo = messages;
  p.overlap = overlap;
  return p;
}

HaloMessages box_halo(const std::array<double, 3>& cells, int ghost, double bytes_per_cell, bool diagonals) {
  HaloMessages h;
  const double g = ghost;
  for (int d = 0; d < 3; ++d) {
    const double a = cells[(d + 1) % 3], b = cells[(d + 2) % 3];
    h.face[d] = g * a * b * bytes_per_cell;
    if (diagonals) h.edge[d] = g * g * cells[d] * bytes_per_cell;
  }
  if (diagonals) h.corner = g * g * g * bytes_per_cell;
  return h;
}

SpmdResult simulate_spmd(const ClusterConfig& cluster, const RankLayout& layout, const SpmdProgram& program,
                         const MpiComm& comm) {
  if (program.grid.ranks() != layout.ranks) {
    throw std::invalid_argument("a process grid of " + std::to_string(program.grid.ranks()) + " ranks for a run of " +
                                std::to_string(layout.ranks));
  }
  SpmdResult out;
  out.layout = layout;
  out.grid = program.grid;
  out.iterations = program.iterations;
  const ProgramCost setup = program_cost(program.setup, cluster, layout, program.grid, comm);
  const ProgramCost it = program_cost(program.iteration, cluster, layout, program.grid, comm);
  out.iteration_s = it.time_s;
  const double n = static_cast<double>(program.iterations);
  out.time_s = setup.time_s + n * it.time_s;
  out.flops = (setup.flops + n * it.flops) * layout.ranks;
  out.flop_rate = out.time_s > 0 ? out.flops / out.time_s : 0.0;
  out.compute_s = it.by_kind[static_cast<std::size_t>(SpmdPhaseKind::compute)];
  out.halo_s = it.by_kind[static_cast<std::size_t>(SpmdPhaseKind::halo)];
  out.allreduce_s = it.by_kind[static_cast<std::size_t>(SpmdPhaseKind::allreduce)];
  out.alltoall_s = it.by_kind[static_cast<std::size_t>(SpmdPhaseKind::alltoall)];
  out.p2p_s = it.by_kind[static_cast<std::size_t>(SpmdPhaseKind::p2p)];
  out.exposed_comm_s = std::max(0.0, it.time_s - out.compute_s);
  out.halo_bytes_per_rank = it.halo_bytes;
  out.offnode_bytes_per_node = it.offnode_bytes;
  if (!std::isfinite(out.time_s) || !std::isfinite(out.flops) || !std::isfinite(out.offnode_bytes_per_node)) {
    throw std::invalid_argument("the program's time or traffic overflows a double (" + std::to_string(out.time_s) +
                                " s): its FLOPs, bytes or iterations are beyond what can be simulated");
  }
  return out;
}

}  // namespace hpcsim
