#include "models/mpi/mpi_collectives.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hpcsim {

namespace {

constexpr const char* kOpNames[] = {"barrier",   "bcast",     "reduce",     "allreduce",     "alltoall",
                                    "alltoallv", "gather",    "gatherv",    "allgather",     "allgatherv",
                                    "reducescatter", "scatter", "scatterv"};
constexpr const char* kAlgoNames[] = {"linear",       "binomial", "pipeline", "reduce_bcast", "recursive_doubling",
                                      "ring",         "rabenseifner", "pairwise", "bruck", "dissemination",
                                      "reduce_scatterv", "recursive_halving"};

using Out = std::vector<CollStep>;
void send(Out& o, int peer, double b) { o.push_back({CollStep::send, peer, b}); }
void recv(Out& o, int peer, double b) { o.push_back({CollStep::recv, peer, b}); }
void wait(Out& o) { o.push_back({CollStep::wait_all, 0, 0}); }
void sendrecv(Out& o, int to, double sb, int from, double rb) {
  recv(o, from, rb);
  send(o, to, sb);
  wait(o);
}
int mod(int a, int n) { return ((a % n) + n) % n; }
int pow2_floor(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// MPICH's binomial tree (SimGrid bcast__binomial_tree): receive from the parent, then send to the
// children, largest subtree first; sends are blocking.
void bcast_binomial(int rank, int n, int root, double b, Out& o) {
  const int rel = mod(rank - root, n);
  int mask = 1;
  while (mask < n) {
    if (rel & mask) {
      recv(o, mod(rank - mask, n), b);
      wait(o);
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  while (mask > 0) {
    if (rel + mask < n) {
      send(o, mod(rank + mask, n), b);
      wait(o);
    }
    mask >>= 1;
  }
}

void bcast_linear(int rank, int n, int root, double b, Out& o) {
  if (rank == root) {
    for (int i = 0; i < n; ++i)
      if (i != root) send(o, i, b);
  } else {
    recv(o, root, b);
  }
  wait(o);
}

// A chain in rank order from the root, the message cut in segments (Open MPI's pipeline bcast, 128 KiB).
void bcast_pipeline(int rank, int n, int root, double b, Out& o) {
  constexpr double seg = 131072;
  const int rel = mod(rank - root, n);
  const int prev = mod(rank - 1, n), next = mod(rank + 1, n);
  double left = b;
  do {
    const double s = std::min(seg, left);
    if (rel > 0) {
      recv(o, prev, s);
      wait(o);
    }
    if (rel + 1 < n) send(o, next, s);
    left -= s;
  } while (left > 0);
  wait(o);
}

void reduce_linear(int rank, int n, int root, double b, Out& o) {
  if (rank == root) {
    for (int i = 0; i < n; ++i)
      if (i != root) recv(o, i, b);
  } else {
    send(o, root, b);
  }
  wait(o);
}

void reduce_binomial(int rank, int n, int root, double b, Out& o) {
  const int rel = mod(rank - root, n);
  for (int mask = 1; mask < n; mask <<= 1) {
    if (rel & mask) {
      send(o, mod(rank - mask, n), b);
      wait(o);
      return;
    }
    if (rel + mask < n) {
      recv(o, mod(rank + mask, n), b);
      wait(o);
    }
  }
}

// Non-power-of-two ranks fold into the largest power of two below n (MPICH): the first 2 x rem ranks pair
// up, the even one hands its data to the odd one and sits out. Returns the rank's index among the pow2
// participants, or -1 when it sits out.
int fold_in(int rank, int n, double b, Out& o) {
  const int p = pow2_floor(n), rem = n - p;
  if (rank < 2 * rem) {
    if (rank % 2 == 0) {
      send(o, rank + 1, b);
      wait(o);
      return -1;
    }
    recv(o, rank - 1, b);
    wait(o);
    return rank / 2;
  }
  return rank - rem;
}
int unfold(int index, int n) {
  const int rem = n - pow2_floor(n);
  return index < rem ? index * 2 + 1 : index + rem;
}
void fold_out(int rank, int n, double b, Out& o) {
  const int rem = n - pow2_floor(n);
  if (rank < 2 * rem) {
    if (rank % 2 == 0) {
      recv(o, rank + 1, b);
    } else {
      send(o, rank - 1, b);
    }
    wait(o);
  }
}

void allreduce_recursive_doubling(int rank, int n, double b, Out& o) {
  const int p = pow2_floor(n);
  const int me = fold_in(rank, n, b, o);
  if (me >= 0)
    for (int mask = 1; mask < p; mask <<= 1) {
      const int peer = unfold(me ^ mask, n);
      sendrecv(o, peer, b, peer, b);
    }
  fold_out(rank, n, b, o);
}

void allreduce_rabenseifner(int rank, int n, double b, Out& o) {
  const int p = pow2_floor(n);
  const int me = fold_in(rank, n, b, o);
  if (me >= 0) {
    double part = b;
    for (int mask = p / 2; mask >= 1; mask >>= 1) {  // recursive halving: reduce-scatter
      part /= 2;
      const int peer = unfold(me ^ mask, n);
      sendrecv(o, peer, part, peer, part);
    }
    for (int mask = 1; mask < p; mask <<= 1) {  // recursive doubling: allgather
      const int peer = unfold(me ^ mask, n);
      sendrecv(o, peer, part, peer, part);
      part *= 2;
    }
  }
  fold_out(rank, n, b, o);
}

void allreduce_ring(int rank, int n, double b, Out& o) {
  const double block = b / n;
  const int right = mod(rank + 1, n), left = mod(rank - 1, n);
  for (int step = 0; step < 2 * (n - 1); ++step) sendrecv(o, right, block, left, block);
}

void barrier_linear(int rank, int n, Out& o) {
  if (rank == 0) {
    for (int i = 1; i < n; ++i) recv(o, i, 0);
    wait(o);
    for (int i = 1; i < n; ++i) send(o, i, 0);
    wait(o);
  } else {
    send(o, 0, 0);
    wait(o);
    recv(o, 0, 0);
    wait(o);
  }
}

void barrier_dissemination(int rank, int n, Out& o) {
  for (int k = 1; k < n; k <<= 1) sendrecv(o, mod(rank + k, n), 0, mod(rank - k, n), 0);
}

void alltoall_linear(int rank, int n, double b, std::span<const double> sc, std::span<const double> rc, Out& o) {
  for (int i = mod(rank + 1, n); i != rank; i = mod(i + 1, n)) recv(o, i, rc.empty() ? b : rc[i]);
  for (int i = mod(rank - 1, n); i != rank; i = mod(i - 1, n)) send(o, i, sc.empty() ? b : sc[i]);
  wait(o);
}

void alltoall_pairwise(int rank, int n, double b, std::span<const double> sc, std::span<const double> rc, Out& o) {
  for (int step = 1; step < n; ++step) {
    const int to = mod(rank + step, n), from = mod(rank - step, n);
    sendrecv(o, to, sc.empty() ? b : sc[to], from, rc.empty() ? b : rc[from]);
  }
}

void alltoall_bruck(int rank, int n, double b, Out& o) {
  for (int k = 1; k < n; k <<= 1) {
    int blocks = 0;
    for (int j = 0; j < n; ++j) blocks += (j & k) ? 1 : 0;
    sendrecv(o, mod(rank + k, n), blocks * b, mod(rank - k, n), blocks * b);
  }
}

void gather_linear(int rank, int n, int root, double b, std::span<const double> rc, Out& o) {
  if (rank == root) {
    for (int i = 0; i < n; ++i)
      if (i != root) recv(o, i, rc.empty() ? b : rc[i]);
  } else {
    send(o, root, b);
  }
  wait(o);
}

void gather_binomial(int rank, int n, int root, double b, Out& o) {
  const int rel = mod(rank - root, n);
  double held = b;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (rel & mask) {
      send(o, mod(rank - mask, n), held);
      wait(o);
      return;
    }
    if (rel + mask < n) {
      const double sub = b * std::min(mask, n - (rel + mask));
      recv(o, mod(rank + mask, n), sub);
      wait(o);
      held += sub;
    }
  }
}

void scatter_linear(int rank, int n, int root, double b, std::span<const double> sc, Out& o) {
  if (rank == root) {
    for (int i = 0; i < n; ++i)
      if (i != root) send(o, i, sc.empty() ? b : sc[i]);
  } else {
    recv(o, root, sc.empty() ? b : sc[rank]);
  }
  wait(o);
}

void allgather_linear(int rank, int n, double b, std::span<const double> rc, Out& o) {
  for (int i = 0; i < n; ++i)
    if (i != rank) recv(o, i, rc.empty() ? b : rc[i]);
  for (int i = 0; i < n; ++i)
    if (i != rank) send(o, i, b);
  wait(o);
}

void allgather_ring(int rank, int n, double b, std::span<const double> rc, Out& o) {
  const int right = mod(rank + 1, n), left = mod(rank - 1, n);
  for (int i = 0; i < n - 1; ++i) {
    const int sb = mod(rank - i, n), rb = mod(rank - i - 1, n);
    sendrecv(o, right, rc.empty() ? b : rc[sb], left, rc.empty() ? b : rc[rb]);
  }
}

void allgather_recursive_doubling(int rank, int n, double b, Out& o) {
  if (pow2_floor(n) != n) throw std::invalid_argument("recursive_doubling allgather needs a power-of-two rank count");
  for (int mask = 1; mask < n; mask <<= 1) sendrecv(o, rank ^ mask, b * mask, rank ^ mask, b * mask);
}

void allgather_bruck(int rank, int n, double b, Out& o) {
  for (int k = 1; k < n; k <<= 1) {
    const double blocks = std::min(k, n - k);
    sendrecv(o, mod(rank - k, n), blocks * b, mod(rank + k, n), blocks * b);
  }
}

double total(std::span<const double> c) {
  double t = 0;
  for (double v : c) t += v;
  return t;
}

void reducescatter_pairwise(int rank, int n, std::span<const double> c, Out& o) {
  for (int i = 1; i < n; ++i) {
    const int src = mod(rank - i, n), dst = mod(rank + i, n);
    sendrecv(o, dst, c[dst], src, c[rank]);
  }
}

void reducescatter_ring(int rank, int n, std::span<const double> c, Out& o) {
  const int right = mod(rank + 1, n), left = mod(rank - 1, n);
  for (int i = 1; i < n; ++i) sendrecv(o, right, c[mod(rank - i, n)], left, c[mod(rank - i - 1, n)]);
}

void reducescatter_halving(int rank, int n, std::span<const double> c, Out& o) {
  if (pow2_floor(n) != n) {  // MPICH folds non-powers of two; the pairwise exchange is used instead here
    reducescatter_pairwise(rank, n, c, o);
    return;
  }
  int lo = 0, hi = n;  // the ranks whose blocks this rank still holds
  for (int mask = n / 2; mask >= 1; mask >>= 1) {
    const int peer = rank ^ mask;
    const int mid = (lo + hi) / 2;
    const bool lower = rank < peer;
    double send_b = 0, recv_b = 0;
    for (int i = lo; i < hi; ++i) (((i < mid) == lower) ? recv_b : send_b) += c[i];
    sendrecv(o, peer, send_b, peer, recv_b);
    if (lower) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
}

void check_counts(std::span<const double> c, int n, const char* what) {
  if (static_cast<int>(c.size()) != n)
    throw std::invalid_argument(std::string(what) + " needs one count per rank (" + std::to_string(n) + "), got " +
                                std::to_string(c.size()));
}

}  // namespace

const char* mpi_collective_name(MpiCollective op) { return kOpNames[static_cast<int>(op)]; }
std::optional<MpiCollective> mpi_collective_from_name(const std::string& name) {
  for (int i = 0; i < static_cast<int>(std::size(kOpNames)); ++i)
    if (name == kOpNames[i]) return static_cast<MpiCollective>(i);
  return std::nullopt;
}
const char* coll_algorithm_name(CollAlgorithm a) { return kAlgoNames[static_cast<int>(a)]; }
std::optional<CollAlgorithm> coll_algorithm_from_name(const std::string& name) {
  for (int i = 0; i < static_cast<int>(std::size(kAlgoNames)); ++i)
    if (name == kAlgoNames[i]) return static_cast<CollAlgorithm>(i);
  return std::nullopt;
}

bool implements(CollAlgorithm a, MpiCollective op) {
  using A = CollAlgorithm;
  using O = MpiCollective;
  switch (op) {
    case O::barrier: return a == A::linear || a == A::dissemination || a == A::recursive_doubling;
    case O::bcast: return a == A::linear || a == A::binomial || a == A::pipeline;
    case O::reduce: return a == A::linear || a == A::binomial;
    case O::allreduce:
      return a == A::reduce_bcast || a == A::recursive_doubling || a == A::ring || a == A::rabenseifner;
    case O::alltoall: return a == A::linear || a == A::pairwise || a == A::bruck;
    case O::alltoallv: return a == A::linear || a == A::pairwise;
    case O::gather: return a == A::linear || a == A::binomial;
    case O::gatherv: return a == A::linear;
    case O::allgather: return a == A::linear || a == A::ring || a == A::recursive_doubling || a == A::bruck;
    case O::allgatherv: return a == A::linear || a == A::ring;
    case O::reducescatter:
      return a == A::reduce_scatterv || a == A::pairwise || a == A::ring || a == A::recursive_halving;
    case O::scatter:
    case O::scatterv: return a == A::linear;
  }
  return false;
}

void expand_collective(const CollectiveCall& c, int rank, int n, CollAlgorithm a, Out& o) {
  using A = CollAlgorithm;
  using O = MpiCollective;
  if (!implements(a, c.op))
    throw std::invalid_argument(std::string("algorithm ") + coll_algorithm_name(a) + " does not implement " + mpi_collective_name(c.op));
  if (n <= 1) return;
  const double b = c.bytes;
  switch (c.op) {
    case O::barrier:
      if (a == A::linear) barrier_linear(rank, n, o);
      else if (a == A::dissemination) barrier_dissemination(rank, n, o);
      else allreduce_recursive_doubling(rank, n, 0, o);
      return;
    case O::bcast:
      if (a == A::binomial) bcast_binomial(rank, n, c.root, b, o);
      else if (a == A::linear) bcast_linear(rank, n, c.root, b, o);
      else bcast_pipeline(rank, n, c.root, b, o);
      return;
    case O::reduce:
      if (a == A::linear) reduce_linear(rank, n, c.root, b, o);
      else reduce_binomial(rank, n, c.root, b, o);
      return;
    case O::allreduce:
      if (a == A::reduce_bcast) {
        reduce_linear(rank, n, 0, b, o);
        bcast_binomial(rank, n, 0, b, o);
      } else if (a == A::recursive_doubling) {
        allreduce_recursive_doubling(rank, n, b, o);
      } else if (a == A::ring) {
        allreduce_ring(rank, n, b, o);
      } else {
        allreduce_rabenseifner(rank, n, b, o);
      }
      return;
    case O::alltoall:
      if (a == A::linear) alltoall_linear(rank, n, b, {}, {}, o);
      else if (a == A::pairwise) alltoall_pairwise(rank, n, b, {}, {}, o);
      else alltoall_bruck(rank, n, b, o);
      return;
    case O::alltoallv:
      check_counts(c.counts, n, "alltoallv send counts");
      check_counts(c.recv_counts, n, "alltoallv receive counts");
      if (a == A::linear) alltoall_linear(rank, n, b, c.counts, c.recv_counts, o);
      else alltoall_pairwise(rank, n, b, c.counts, c.recv_counts, o);
      return;
    case O::gather:
      if (a == A::linear) gather_linear(rank, n, c.root, b, {}, o);
      else gather_binomial(rank, n, c.root, b, o);
      return;
    case O::gatherv:
      check_counts(c.counts, n, "gatherv receive counts");
      gather_linear(rank, n, c.root, b, c.counts, o);
      return;
    case O::scatter:
      scatter_linear(rank, n, c.root, b, {}, o);
      return;
    case O::scatterv:
      check_counts(c.counts, n, "scatterv send counts");
      scatter_linear(rank, n, c.root, b, c.counts, o);
      return;
    case O::allgather:
      if (a == A::linear) allgather_linear(rank, n, b, {}, o);
      else if (a == A::ring) allgather_ring(rank, n, b, {}, o);
      else if (a == A::recursive_doubling) allgather_recursive_doubling(rank, n, b, o);
      else allgather_bruck(rank, n, b, o);
      return;
    case O::allgatherv:
      check_counts(c.counts, n, "allgatherv receive counts");
      if (a == A::linear) allgather_linear(rank, n, b, c.counts, o);
      else allgather_ring(rank, n, b, c.counts, o);
      return;
    case O::reducescatter:
      check_counts(c.counts, n, "reducescatter counts");
      if (a == A::reduce_scatterv) {
        reduce_linear(rank, n, 0, total(c.counts), o);
        scatter_linear(rank, n, 0, 0, c.counts, o);
      } else if (a == A::pairwise) {
        reducescatter_pairwise(rank, n, c.counts, o);
      } else if (a == A::ring) {
        reducescatter_ring(rank, n, c.counts, o);
      } else {
        reducescatter_halving(rank, n, c.counts, o);
      }
      return;
  }
}

CollAlgorithm CollSelector::select(const CollectiveCall& c, int n) const {
  using A = CollAlgorithm;
  using O = MpiCollective;
  if (auto it = overrides_.find(c.op); it != overrides_.end()) return it->second;
  const double b = c.bytes;
  const bool pow2 = n > 0 && (n & (n - 1)) == 0;
  if (rules_ == Rules::smpi) {
    // SimGrid's smpi_default_selector.cpp: bcast binomial_tree, barrier ompi_basic_linear, reduce and
    // gather and allgather(v) and alltoallv their nonblocking (all-at-once) versions, allreduce = reduce
    // + bcast, alltoall = the ompi rules, reduce_scatter = reduce + scatterv for regular counts, else MPICH's.
    switch (c.op) {
      case O::barrier: return A::linear;
      case O::bcast: return A::binomial;
      case O::reduce: return A::linear;
      case O::allreduce: return A::reduce_bcast;
      case O::alltoall: break;  // the ompi rules below
      case O::alltoallv: return A::linear;
      case O::gather:
      case O::gatherv: return A::linear;
      case O::allgather:
      case O::allgatherv: return A::linear;
      case O::scatter:
      case O::scatterv: return A::linear;
      case O::reducescatter: {
        bool regular = true;
        for (double v : c.counts) regular = regular && v == c.counts[0];
        if (regular) return A::reduce_scatterv;
        // MPICH (smpi_mpich_selector.cpp): recursive halving below 512 KiB in total, else pairwise
        return total(c.counts) < 524288 ? A::recursive_halving : A::pairwise;
      }
    }
  }
  switch (c.op) {
    case O::allreduce:
      if (b < 10000) return A::recursive_doubling;
      if (c.elements > n) return A::ring;  // lr / ring_segmented
      return A::reduce_bcast;              // redbcast
    case O::alltoall:
      if (n == 2) return A::pairwise;
      if (b < 200 && n > 12) return A::bruck;
      if (b < 3000) return A::linear;
      return A::pairwise;  // ring: the same exchange steps
    case O::alltoallv: return A::pairwise;  // ring
    case O::barrier:
      if (n == 2 || pow2) return A::recursive_doubling;
      return A::dissemination;  // bruck
    case O::bcast:
      if (b < 2048 || c.elements <= 1) return A::binomial;
      if (b < 370728) return A::binomial;  // split_bintree: a binary tree of half-messages; binomial here
      return A::pipeline;
    case O::reduce:
      if (n < 8 && b < 512) return A::linear;
      return A::binomial;  // binomial (0K, 1K segments); pipeline/binary variants run as binomial here
    case O::reducescatter: {
      const double t = total(c.counts);
      if (t <= 12 * 1024 || (t <= 256 * 1024 && pow2) || n >= 0.0012 * t + 8) return A::recursive_halving;
      return A::ring;
    }
    case O::allgather:
      if (n == 2) return A::recursive_doubling;
      if (b * n < 50000) return pow2 ? A::recursive_doubling : A::bruck;
      return A::ring;  // ring (odd n) or neighbor exchange (even n): ring here
    case O::allgatherv: return A::ring;
    case O::gather:
      if (b > 6000) return A::linear;  // linear_sync
      if (n > 60 || (n > 10 && b < 1024)) return A::binomial;
      return A::linear;
    case O::gatherv:
    case O::scatter:
    case O::scatterv: return A::linear;
  }
  return A::linear;
}

}  // namespace hpcsim
