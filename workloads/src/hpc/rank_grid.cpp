#include "workloads/hpc/rank_grid.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace hpcsim {

std::array<int, 3> ProcessGrid::coords(long long rank) const {
  const int x = static_cast<int>(rank % dims[0]);
  const int y = static_cast<int>((rank / dims[0]) % dims[1]);
  const int z = static_cast<int>(rank / (static_cast<long long>(dims[0]) * dims[1]));
  return {x, y, z};
}

long long ProcessGrid::rank_at(const std::array<int, 3>& c) const {
  for (int d = 0; d < 3; ++d) {
    if (c[d] < 0 || c[d] >= dims[d]) return -1;
  }
  return c[0] + static_cast<long long>(dims[0]) * (c[1] + static_cast<long long>(dims[1]) * c[2]);
}

ProcessGrid balanced_grid(int ranks, int ndims, const std::array<double, 3>& domain) {
  ProcessGrid best;
  if (ranks <= 1 || ndims <= 1) {
    best.dims = {std::max(ranks, 1), 1, 1};
    return best;
  }
  double best_surface = std::numeric_limits<double>::infinity();
  // A rank's box is domain[d] / p[d]; its halo surface is the sum over the cut dimensions of the face
  // area (the product of the other two box sides).
  auto surface = [&](const std::array<int, 3>& p) {
    std::array<double, 3> box{};
    for (int d = 0; d < 3; ++d) box[d] = domain[d] / p[d];
    double s = 0;
    for (int d = 0; d < 3; ++d) {
      if (p[d] > 1) s += box[(d + 1) % 3] * box[(d + 2) % 3];
    }
    return s;
  };
  std::vector<int> divisors;  // of ranks, descending
  for (int d = 1; static_cast<long long>(d) * d <= ranks; ++d) {
    if (ranks % d != 0) continue;
    divisors.push_back(d);
    if (d != ranks / d) divisors.push_back(ranks / d);
  }
  std::sort(divisors.rbegin(), divisors.rend());
  for (const int px : divisors) {
    const int rest = ranks / px;
    for (const int py : divisors) {
      if (py > rest || rest % py != 0 || (ndims < 2 && py != 1)) continue;
      const int pz = rest / py;
      if (ndims == 2 && pz != 1) continue;
      const std::array<int, 3> p{px, py, pz};
      const double s = surface(p);
      if (s < best_surface * (1 - 1e-12)) {
        best_surface = s;
        best.dims = p;
      }
    }
  }
  return best;
}

RankLayout rank_layout(const CpuSpec& cpu, int ranks, int ranks_per_node, int threads_per_rank, int cluster_nodes) {
  const int cores = cpu.sockets * cpu.cores_per_socket;
  if (ranks < 1 || ranks_per_node < 1 || threads_per_rank < 1 ||
      static_cast<long long>(ranks_per_node) * threads_per_rank > cores) {
    throw std::invalid_argument(std::to_string(ranks_per_node) + " ranks x " + std::to_string(threads_per_rank) +
                                " threads per node do not fit " + std::to_string(cores) + "-core nodes");
  }
  RankLayout l;
  l.ranks = ranks;
  l.ranks_per_node = std::min(ranks_per_node, ranks);
  l.threads_per_rank = threads_per_rank;
  l.nodes = static_cast<int>((static_cast<long long>(ranks) + l.ranks_per_node - 1) / l.ranks_per_node);
  if (l.nodes > cluster_nodes) {
    throw std::invalid_argument(std::to_string(ranks) + " ranks at " + std::to_string(l.ranks_per_node) + " per node need " +
                                std::to_string(l.nodes) + " nodes; the cluster has " + std::to_string(cluster_nodes));
  }
  l.omp.threads = threads_per_rank;
  l.omp.sockets = std::clamp((threads_per_rank + cpu.cores_per_socket - 1) / cpu.cores_per_socket, 1, cpu.sockets);
  // Ranks fill the node socket by socket; every thread of the node streams at once in a compute phase.
  const int busy = l.ranks_per_node * threads_per_rank;
  l.omp.socket_threads = std::min((busy + cpu.sockets - 1) / cpu.sockets, cpu.cores_per_socket);
  return l;
}

}  // namespace hpcsim
