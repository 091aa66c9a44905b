#include "models/mpi/mpi_collectives.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "configs/count_limits.h"

namespace hpcsim {

namespace {

constexpr const char* kOpNames[] = {"barrier",   "bcast",     "reduce",     "allreduce",     "alltoall",
                                    "alltoallv", "gather",    "gatherv",    "allgather",     "allgatherv",
                                    "reducescatter", "scatter", "scatterv"};
constexpr const char* kAlgoNames[] = {"linear",       "binomial", "pipeline", "reduce_bcast", "recursive_doubling",
                                      "ring",         "rabenseifner", "pairwise", "bruck", "dissemination",
                                      "reduce_scatterv", "recursive_halving", "split_bintree", "binary",
                                      "neighbor_exchange", "ring_segmented", "basic_linear", "linear_sync",
                                      "nonoverlapping"};

using Out = std::vector<CollStep>;
void send(Out& o, int peer, double b) { o.push_back({CollStep::send, peer, b}); }
void recv(Out& o, int peer, double b) { o.push_back({CollStep::recv, peer, b}); }
void wait(Out& o) { o.push_back({CollStep::wait_all, 0, 0}); }
void recv_deferred(Out& o, int peer, double b) { o.push_back({CollStep::recv, peer, b, true}); }
void wait_deferred(Out& o) { o.push_back({CollStep::wait_deferred, 0, 0}); }
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

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Open MPI's segments of a message (COLL_BASE_COMPUTED_SEGCOUNT, coll_base_util.h): a segment of `seg`
// bytes holds whole elements, rounded up past half an element; with `seg` 0, below one element or not below
// the message, the message is one segment. Byte sizes, the last segment holding the rest.
std::vector<double> segments(double bytes, double elements, double seg) {
  if (!(bytes > 0)) return {0.0};
  const double size = elements >= 1 ? bytes / elements : 1.0;  // the datatype's size
  const double count = elements >= 1 ? elements : bytes;
  double per = count;
  if (seg >= size && seg < bytes) {
    per = std::floor(seg / size);
    if (seg - per * size > std::floor(size / 2)) per += 1;
  }
  const double n = std::ceil(count / per);
  // Each segment is a message of every rank on the way: more segments than the replay's action limit would
  // exhaust memory before the limit is checked.
  if (std::string excess = count_limit_excess(CountLimit::actions, n, "a message of " + number(bytes) + " bytes in " + number(per * size) + "-byte segments");
      !excess.empty()) {
    throw std::invalid_argument(excess);
  }
  std::vector<double> out(static_cast<std::size_t>(n), per * size);
  out.back() = (count - (n - 1) * per) * size;
  return out;
}

// Open MPI's fixed decision (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c before its 2020 rewrite, the
// rules SimGrid's ompi selector and its segmented algorithms follow), for B bytes on n ranks: the conditions
// that both choose an algorithm (CollSelector::select) and set its segment size, each stated once. Its fitted
// lines (a [1/B] x B + b ranks) are Open MPI's.
constexpr double kSplitBintreeLarge = 370728;  // split binary tree bcast: 1 KiB segments below, 8 KiB above
bool bcast_pipeline_128k(double b, int n) { return n < 1.6134e-6 * b + 2.1102; }
bool reduce_binomial_unsegmented(double b, double elements, int n) {
  return (n < 8 && b < 20480) || b < 2048 || elements <= 1;
}
bool reduce_binomial_1k(double b, int n) { return n > 0.6016 / 1024 * b + 1.3496; }
bool reduce_pipeline_1k(double b, int n) { return n > 0.0410 / 1024 * b + 9.7128; }
bool reduce_binary_32k(double b, int n) { return n > 0.0422 / 1024 * b + 1.1614; }

double bcast_pipeline_segment(double b, int n) {
  if (bcast_pipeline_128k(b, n)) return 128 * 1024.0;
  if (n < 2.3679e-6 * b + 1.1787) return 64 * 1024.0;
  if (n < 3.2118e-6 * b + 8.7936) return 16 * 1024.0;
  return 8 * 1024.0;
}
double bcast_split_bintree_segment(double b) { return b < kSplitBintreeLarge ? 1024.0 : 8 * 1024.0; }
double reduce_pipeline_segment(double b, int n) {
  if (reduce_pipeline_1k(b, n)) return 1024.0;
  if (n > 0.0033 / 1024 * b + 1.6761) return 32 * 1024.0;
  return 64 * 1024.0;
}
double reduce_binomial_segment(double b, double elements, int n) {
  return !reduce_binomial_unsegmented(b, elements, n) && reduce_binomial_1k(b, n) ? 1024.0 : 0.0;
}
constexpr double kBinaryReduceSegment = 32 * 1024.0;
constexpr double kRingSegment = 1024 * 1024.0;  // allreduce ring_segmented

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

// A chain in rank order from the root, the message cut in segments (Open MPI's pipeline bcast; its segment
// size from bcast_pipeline_segment).
void bcast_chain(int rank, int n, int root, const std::vector<double>& segs, Out& o) {
  const int rel = mod(rank - root, n);
  const int prev = mod(rank - 1, n), next = mod(rank + 1, n);
  for (const double s : segs) {
    if (rel > 0) {
      recv(o, prev, s);
      wait(o);
    }
    if (rel + 1 < n) send(o, next, s);
  }
  wait(o);
}

// Open MPI's binary tree over shifted ranks (ompi_coll_base_topo_build_tree, fanout 2): the children of s are
// s + 2^L and s + 2^(L+1), L = floor(log2(s + 1)); shifted 1's subtree holds the odd ranks, 2's the even ones.
int binary_level(int s) {
  int level = 0;
  while ((2 << level) <= s + 1) ++level;
  return level;
}
std::vector<int> binary_children(int s, int n) {
  const int step = 1 << binary_level(s);
  std::vector<int> kids;
  for (int c : {s + step, s + 2 * step})
    if (c < n) kids.push_back(c);
  return kids;
}
int binary_parent(int s) {
  if (s == 0) return -1;
  const int level = binary_level(s);
  const int half = 1 << (level - 1);
  return (half - 1) + (s - ((1 << level) - 1)) % half;
}

// Open MPI's split binary tree bcast (ompi_coll_base_bcast_intra_split_bintree): the message in two halves
// (the first the larger), each pipelined in segments down one of the root's two subtrees (odd shifted ranks
// take the first), then each odd rank swaps its half with the even rank after it; with an even rank count the
// last rank has no partner and the root sends it the second half. A half smaller than a segment: the chain.
void bcast_split_bintree(int rank, int n, int root, double b, double elements, Out& o) {
  const double seg = bcast_split_bintree_segment(b);
  const double count = elements >= 1 ? elements : b;
  const double size = b / count;
  const double half_bytes[2] = {std::ceil(count / 2) * size, std::floor(count / 2) * size};
  if (!(half_bytes[1] >= seg) || n == 1) {
    bcast_chain(rank, n, root, segments(b, elements, seg), o);
    return;
  }
  const std::vector<double> halves[2] = {segments(half_bytes[0], std::ceil(count / 2), seg),
                                         segments(half_bytes[1], std::floor(count / 2), seg)};
  const int s = mod(rank - root, n);
  const auto real = [&](int shifted) { return mod(shifted + root, n); };
  const std::vector<int> kids = binary_children(s, n);
  if (s == 0) {
    for (std::size_t k = 0; k < halves[0].size(); ++k)
      for (std::size_t i = 0; i < kids.size(); ++i)
        if (k < halves[i].size()) {
          send(o, real(kids[i]), halves[i][k]);
          wait(o);
        }
  } else {
    const std::vector<double>& mine = halves[(s + 1) % 2];  // odd shifted ranks: the first half
    const int parent = real(binary_parent(s));
    recv(o, parent, mine[0]);
    wait(o);
    for (std::size_t k = 1; k <= mine.size(); ++k) {
      if (k < mine.size()) recv(o, parent, mine[k]);  // the next segment posted before this one is passed on
      for (int c : kids) send(o, real(c), mine[k - 1]);
      wait(o);
    }
  }
  // The swap of halves.
  if (s == 0) {
    if (n % 2 == 0) {
      send(o, real(n - 1), half_bytes[1]);
      wait(o);
    }
    return;
  }
  const bool first = s % 2 == 1;
  if (n % 2 == 0 && s == n - 1) {
    recv(o, root, half_bytes[1]);
    wait(o);
    return;
  }
  const int pair = real(first ? s + 1 : s - 1);
  sendrecv(o, pair, half_bytes[first ? 0 : 1], pair, half_bytes[first ? 1 : 0]);
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

// Open MPI's segmented reduce over a tree (ompi_coll_base_reduce_generic): segment by segment, a rank
// receives the segment from each child, reduces, and sends it on to its parent (the send overlapping the next
// segment's receives); a leaf sends its segments one after another. Ranks and tree are shifted (root 0).
void reduce_tree(int n, int root, const std::vector<double>& segs, int parent, const std::vector<int>& kids, Out& o) {
  const auto real = [&](int shifted) { return mod(shifted + root, n); };
  for (const double s : segs) {
    for (int c : kids) recv(o, real(c), s);
    if (!kids.empty()) wait(o);
    if (parent >= 0) {
      send(o, real(parent), s);
      if (kids.empty()) wait(o);  // a leaf's sends are blocking
    }
  }
  wait(o);
}

// The binomial tree of MPICH and Open MPI's in-order binomial tree (the same tree): a rank's parent clears the
// lowest set bit of its shifted rank, its children add the powers of two below that bit. Open MPI segments it
// (reduce_binomial_segment); unsegmented, each rank receives from its children in turn, then sends.
void reduce_binomial(int rank, int n, int root, double b, double elements, Out& o) {
  const int rel = mod(rank - root, n);
  const double seg = reduce_binomial_segment(b, elements, n);
  if (seg > 0) {
    std::vector<int> kids;
    for (int mask = 1; mask < n && !(rel & mask); mask <<= 1)
      if (rel + mask < n) kids.push_back(rel + mask);
    reduce_tree(n, root, segments(b, elements, seg), rel == 0 ? -1 : (rel & (rel - 1)), kids, o);
    return;
  }
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

// Open MPI's pipeline reduce: a chain toward the root (shifted s receives from s + 1, sends to s - 1).
void reduce_pipeline(int rank, int n, int root, double b, double elements, Out& o) {
  const int s = mod(rank - root, n);
  std::vector<int> kids;
  if (s + 1 < n) kids.push_back(s + 1);
  reduce_tree(n, root, segments(b, elements, reduce_pipeline_segment(b, n)), s - 1, kids, o);
}

// Open MPI's binary reduce: up the binary tree of the split bcast, 32 KiB segments.
void reduce_binary(int rank, int n, int root, double b, double elements, Out& o) {
  const int s = mod(rank - root, n);
  reduce_tree(n, root, segments(b, elements, kBinaryReduceSegment), binary_parent(s), binary_children(s, n), o);
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

// Open MPI's segmented ring (ompi_coll_base_allreduce_intra_ring_segmented): the count in n blocks (the first
// count mod n one element larger), each block cut into P phases; in each phase a reduce-scatter ring of that
// phase's part of every block, then one allgather ring of whole blocks. P = count / (n x segment), one more when
// the rest is large; with fewer elements than n segments it is the plain ring.
void allreduce_ring_segmented(int rank, int n, double b, double elements, Out& o) {
  const double count = elements >= 1 ? elements : b;
  const double size = b / count;
  const double seg = std::max(1.0, std::floor(kRingSegment / size));  // whole elements (1 MiB is a multiple)
  if (count < n * seg) {
    allreduce_ring(rank, n, b, o);
    return;
  }
  double phases = std::floor(count / (n * seg));
  const double rest = std::fmod(count, n * seg);
  if (rest >= n && rest > n * seg / 2) phases += 1;
  if (std::string excess = count_limit_excess(CountLimit::actions, phases * (n - 1), "a segmented ring allreduce of " + number(b) + " bytes");
      !excess.empty()) {
    throw std::invalid_argument(excess);
  }
  const double early = std::ceil(count / n), late = std::floor(count / n), split = std::fmod(count, n);
  const auto block = [&](int k) { return k < split ? early : late; };
  const auto part = [&](int k, double p) {  // elements of phase p of block k
    const double bc = block(k);
    return (p < std::fmod(bc, phases) ? std::ceil(bc / phases) : std::floor(bc / phases)) * size;
  };
  const int right = mod(rank + 1, n), left = mod(rank - 1, n);
  for (double p = 0; p < phases; ++p)
    for (int k = 1; k < n; ++k) sendrecv(o, right, part(mod(rank - k + 1, n), p), left, part(mod(rank - k, n), p));
  for (int k = 0; k < n - 1; ++k)
    sendrecv(o, right, block(mod(rank + 1 - k, n)) * size, left, block(mod(rank - k, n)) * size);
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

// Open MPI's basic linear gather, scatter and reduce (coll_base_gather.c, coll_base_scatter.c,
// coll_base_reduce.c): the root receives (scatter: sends) each rank's block with blocking calls, one message
// at a time, in rank order; reduce's root from the last rank down.
void root_one_at_a_time(int rank, int n, int root, double b, bool to_root, bool last_first, Out& o) {
  void (*const at_root)(Out&, int, double) = to_root ? recv : send;
  if (rank != root) {
    (to_root ? send : recv)(o, root, b);
    wait(o);
    return;
  }
  for (int k = 0; k < n; ++k) {
    const int i = last_first ? n - 1 - k : k;
    if (i == root) continue;
    at_root(o, i, b);
    wait(o);
  }
}

// Open MPI's linear_sync gather (ompi_coll_base_gather_intra_linear_sync): each non-root rank waits for a
// zero-byte message from the root, then sends a first segment (1 KiB, 32 KiB for blocks above 92,160 bytes, as
// the fixed rules choose it) and the rest. The root, rank by rank, posts the first segment's receive, sends the
// zero-byte message, posts the rest's receive and waits for the first segment only; the rests are awaited at
// the end.
void gather_linear_sync(int rank, int n, int root, double b, double elements, Out& o) {
  const double first = segments(b, elements, b > 92160 ? 32768 : 1024).front();
  if (rank != root) {
    recv(o, root, 0);
    wait(o);
    send(o, root, first);
    wait(o);
    send(o, root, b - first);
    wait(o);
    return;
  }
  for (int i = 0; i < n; ++i) {
    if (i == root) continue;
    recv(o, i, first);
    send(o, i, 0);
    recv_deferred(o, i, b - first);
    wait(o);
  }
  wait_deferred(o);
}

// Open MPI's binomial scatter (ompi_coll_base_scatter_intra_binomial, its in-order binomial tree): rank r
// (relative to the root) receives its subtree's blocks from r minus its lowest set bit, then sends each child
// r + m (m = 1, 2, 4, ... below that bit) the blocks of the child's subtree, smallest first, one blocking send
// at a time.
void scatter_binomial(int rank, int n, int root, double b, Out& o) {
  const int rel = mod(rank - root, n);
  int low = 1;
  if (rel == 0) {
    while (low < n) low <<= 1;
  } else {
    low = rel & -rel;
    recv(o, mod(rank - low, n), b * std::min(low, n - rel));
    wait(o);
  }
  for (int m = 1; m < low && rel + m < n; m <<= 1) {
    send(o, mod(rank + m, n), b * std::min(m, n - (rel + m)));
    wait(o);
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

// Chen et al.'s neighbour exchange (Open MPI's allgather_intra_neighborexchange), even rank counts: n / 2
// exchanges with the left and right neighbours in turn, one block at the first and two after it; odd counts
// run the ring, as Open MPI does.
// Chen et al.'s neighbour exchange as Open MPI runs it (ompi_coll_base_allgather(v)_intra_neighborexchange):
// a first step swaps single blocks with one neighbour, then n / 2 - 1 steps pass on the pair of blocks last
// received, to the other neighbour in turn; pairs start at even blocks. rc: each rank's block (allgatherv).
void allgather_neighbor_exchange(int rank, int n, double b, std::span<const double> rc, Out& o) {
  if (n % 2 == 1) {
    allgather_ring(rank, n, b, rc, o);
    return;
  }
  const auto pair = [&](int first) {
    return rc.empty() ? 2 * b : rc[static_cast<std::size_t>(mod(first, n))] + rc[static_cast<std::size_t>(mod(first + 1, n))];
  };
  const bool even = rank % 2 == 0;
  const int neighbor[2] = {mod(rank + (even ? 1 : -1), n), mod(rank + (even ? -1 : 1), n)};
  const int offset[2] = {even ? 2 : -2, even ? -2 : 2};
  int recv_from[2] = {even ? rank : neighbor[0], even ? rank : neighbor[0]};
  sendrecv(o, neighbor[0], rc.empty() ? b : rc[static_cast<std::size_t>(rank)], neighbor[0],
           rc.empty() ? b : rc[static_cast<std::size_t>(neighbor[0])]);
  int send_from = even ? rank : recv_from[0];
  for (int i = 1; i < n / 2; ++i) {
    const int p = i % 2;
    recv_from[p] = mod(recv_from[p] + offset[p], n);
    sendrecv(o, neighbor[p], pair(send_from), neighbor[p], pair(recv_from[p]));
    send_from = recv_from[p];
  }
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

// Recursive halving (Open MPI's ompi_coll_base_reduce_scatter_intra_basic_recursivehalving, as MPICH's): with
// n not a power of two, the first 2 (n - p) ranks fold in pairs (the even one hands its whole vector to the odd
// one and waits), p ranks halve the vector log2 p times, exchanging the half the peer keeps (messages of no
// bytes are not sent), and at the end each odd folded rank sends its even partner that partner's block.
void reducescatter_halving(int rank, int n, std::span<const double> c, Out& o) {
  const int p = pow2_floor(n), remain = n - p;
  int shrunk = rank - remain;  // the rank among the p that halve; -1: folded out
  if (rank < 2 * remain) {
    if (rank % 2 == 0) {
      send(o, rank + 1, total(c));
      shrunk = -1;
    } else {
      recv(o, rank - 1, total(c));
      shrunk = rank / 2;
    }
    wait(o);
  }
  if (shrunk >= 0) {
    std::vector<double> block(static_cast<std::size_t>(p));
    for (int i = 0; i < p; ++i)
      block[static_cast<std::size_t>(i)] = i < remain ? c[2 * i] + c[2 * i + 1] : c[i + remain];
    const auto sum = [&](int from, int to) {
      double t = 0;
      for (int i = from; i < to; ++i) t += block[static_cast<std::size_t>(i)];
      return t;
    };
    int send_index = 0, recv_index = 0, last = p;
    for (int mask = p / 2; mask > 0; mask >>= 1) {
      const int shrunk_peer = shrunk ^ mask;
      const int peer = shrunk_peer < remain ? shrunk_peer * 2 + 1 : shrunk_peer + remain;
      double send_b = 0, recv_b = 0;
      if (shrunk < shrunk_peer) {
        send_index = recv_index + mask;
        send_b = sum(send_index, last);
        recv_b = sum(recv_index, send_index);
      } else {
        recv_index = send_index + mask;
        send_b = sum(send_index, recv_index);
        recv_b = sum(recv_index, last);
      }
      if (recv_b > 0) recv(o, peer, recv_b);
      if (send_b > 0) send(o, peer, send_b);
      if (recv_b > 0 || send_b > 0) wait(o);
      send_index = recv_index;
      last = recv_index + mask;
    }
  }
  if (rank < 2 * remain) {
    const bool even = rank % 2 == 0;
    const double b = c[even ? rank : rank - 1];
    if (b > 0) {
      if (even) {
        recv(o, rank + 1, b);
      } else {
        send(o, rank - 1, b);
      }
      wait(o);
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
    case O::bcast: return a == A::linear || a == A::binomial || a == A::pipeline || a == A::split_bintree;
    case O::reduce:
      return a == A::linear || a == A::binomial || a == A::pipeline || a == A::binary || a == A::basic_linear;
    case O::allreduce:
      return a == A::reduce_bcast || a == A::nonoverlapping || a == A::recursive_doubling || a == A::ring || a == A::rabenseifner ||
             a == A::ring_segmented;
    case O::alltoall: return a == A::linear || a == A::pairwise || a == A::bruck;
    case O::alltoallv: return a == A::linear || a == A::pairwise;
    case O::gather: return a == A::linear || a == A::binomial || a == A::basic_linear || a == A::linear_sync;
    case O::gatherv: return a == A::linear;
    case O::allgather:
      return a == A::linear || a == A::ring || a == A::recursive_doubling || a == A::bruck || a == A::neighbor_exchange;
    case O::allgatherv: return a == A::linear || a == A::ring || a == A::neighbor_exchange;
    case O::reducescatter:
      return a == A::reduce_scatterv || a == A::pairwise || a == A::ring || a == A::recursive_halving;
    case O::scatter: return a == A::linear || a == A::binomial || a == A::basic_linear;
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
      else if (a == A::split_bintree) bcast_split_bintree(rank, n, c.root, b, c.elements, o);
      else bcast_chain(rank, n, c.root, segments(b, c.elements, bcast_pipeline_segment(b, n)), o);
      return;
    case O::reduce:
      if (a == A::linear) reduce_linear(rank, n, c.root, b, o);
      else if (a == A::basic_linear) root_one_at_a_time(rank, n, c.root, b, true, true, o);
      else if (a == A::pipeline) reduce_pipeline(rank, n, c.root, b, c.elements, o);
      else if (a == A::binary) reduce_binary(rank, n, c.root, b, c.elements, o);
      else reduce_binomial(rank, n, c.root, b, c.elements, o);
      return;
    case O::allreduce:
      if (a == A::reduce_bcast) {
        reduce_linear(rank, n, 0, b, o);
        bcast_binomial(rank, n, 0, b, o);
      } else if (a == A::nonoverlapping) {
        // Open MPI's ompi_coll_base_allreduce_intra_nonoverlapping (SimGrid's redbcast under its ompi selector):
        // the communicator's reduce to rank 0, then its bcast, each chosen by the fixed rules. Every reduce
        // message is received before the root's bcast starts, so the two share the collective's tag safely.
        const CollSelector rules(CollSelector::Rules::ompi);
        CollectiveCall part = c;
        part.root = 0;
        part.op = O::reduce;
        expand_collective(part, rank, n, rules.select(part, n), o);
        part.op = O::bcast;
        expand_collective(part, rank, n, rules.select(part, n), o);
      } else if (a == A::recursive_doubling) {
        allreduce_recursive_doubling(rank, n, b, o);
      } else if (a == A::ring) {
        allreduce_ring(rank, n, b, o);
      } else if (a == A::ring_segmented) {
        allreduce_ring_segmented(rank, n, b, c.elements, o);
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
      else if (a == A::basic_linear) root_one_at_a_time(rank, n, c.root, b, true, false, o);
      else if (a == A::linear_sync) gather_linear_sync(rank, n, c.root, b, c.elements, o);
      else gather_binomial(rank, n, c.root, b, o);
      return;
    case O::gatherv:
      check_counts(c.counts, n, "gatherv receive counts");
      gather_linear(rank, n, c.root, b, c.counts, o);
      return;
    case O::scatter:
      if (a == A::linear) scatter_linear(rank, n, c.root, b, {}, o);
      else if (a == A::basic_linear) root_one_at_a_time(rank, n, c.root, b, false, false, o);
      else scatter_binomial(rank, n, c.root, b, o);
      return;
    case O::scatterv:
      check_counts(c.counts, n, "scatterv send counts");
      scatter_linear(rank, n, c.root, b, c.counts, o);
      return;
    case O::allgather:
      if (a == A::linear) allgather_linear(rank, n, b, {}, o);
      else if (a == A::ring) allgather_ring(rank, n, b, {}, o);
      else if (a == A::recursive_doubling) allgather_recursive_doubling(rank, n, b, o);
      else if (a == A::neighbor_exchange) allgather_neighbor_exchange(rank, n, b, {}, o);
      else allgather_bruck(rank, n, b, o);
      return;
    case O::allgatherv:
      check_counts(c.counts, n, "allgatherv receive counts");
      if (a == A::linear) allgather_linear(rank, n, b, c.counts, o);
      else if (a == A::neighbor_exchange) allgather_neighbor_exchange(rank, n, b, c.counts, o);
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
      if (c.elements > n) return n * kRingSegment >= b ? A::ring : A::ring_segmented;
      return A::nonoverlapping;
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
      if (b < kSplitBintreeLarge) return A::split_bintree;  // 1 KiB segments
      if (bcast_pipeline_128k(b, n)) return A::pipeline;
      if (n < 13) return A::split_bintree;  // 8 KiB segments
      return A::pipeline;  // 64, 16 or 8 KiB segments
    case O::reduce:
      if (n < 8 && b < 512) return A::basic_linear;
      if (reduce_binomial_unsegmented(b, c.elements, n)) return A::binomial;
      if (reduce_binomial_1k(b, n)) return A::binomial;
      if (reduce_pipeline_1k(b, n)) return A::pipeline;
      if (reduce_binary_32k(b, n)) return A::binary;
      return A::pipeline;  // 32 or 64 KiB segments
    case O::reducescatter: {
      const double t = total(c.counts);
      if (t <= 12 * 1024 || (t <= 256 * 1024 && pow2) || n >= 0.0012 * t + 8) return A::recursive_halving;
      return A::ring;
    }
    case O::allgather:
      if (n == 2) return A::recursive_doubling;
      if (b * n < 50000) return pow2 ? A::recursive_doubling : A::bruck;
      return n % 2 == 1 ? A::ring : A::neighbor_exchange;
    case O::allgatherv:  // SimGrid's port: the ring below 50,000 bytes in all, and for odd rank counts
      if (total(c.counts) < 50000 || n % 2 == 1) return A::ring;
      return A::neighbor_exchange;
    case O::gather:
      if (b > 6000) return A::linear_sync;
      if (n > 60 || (n > 10 && b < 1024)) return A::binomial;
      return A::basic_linear;
    case O::scatter:
      if (n > 10 && b < 300) return A::binomial;
      return A::basic_linear;
    case O::gatherv:
    case O::scatterv: return A::linear;
  }
  return A::linear;
}

}  // namespace hpcsim
