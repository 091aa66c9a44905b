// Open MPI's segmented collectives as per-rank programs (models/mpi/mpi_collectives.h): every byte a rank sends
// is a byte its peer receives, in order; each algorithm delivers what its operation promises (a bcast's whole
// message to every rank, a reduce's whole vector from every non-root rank); and the ompi selector picks them as
// Open MPI's fixed rules do.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "models/mpi/mpi_collectives.h"

namespace hpcsim {
namespace {

struct Traffic {
  std::map<std::pair<int, int>, std::vector<double>> sent, received;  // (from, to) -> sizes in order
  std::vector<double> sent_by, received_by;                           // per rank
};

Traffic expand_all(const CollectiveCall& call, int n, CollAlgorithm a) {
  Traffic t;
  t.sent_by.assign(n, 0);
  t.received_by.assign(n, 0);
  for (int r = 0; r < n; ++r) {
    std::vector<CollStep> steps;
    expand_collective(call, r, n, a, steps);
    for (const CollStep& s : steps) {
      if (s.kind == CollStep::send) {
        t.sent[{r, s.peer}].push_back(s.bytes);
        t.sent_by[r] += s.bytes;
      } else if (s.kind == CollStep::recv) {
        t.received[{s.peer, r}].push_back(s.bytes);
        t.received_by[r] += s.bytes;
      }
    }
  }
  return t;
}

CollectiveCall call_of(MpiCollective op, double bytes, double elements, int root = 0) {
  CollectiveCall c;
  c.op = op;
  c.bytes = bytes;
  c.elements = elements;
  c.root = root;
  return c;
}

TEST_CASE("Open MPI's segmented collectives match every send with a receive of the same size, in order") {
  struct Case {
    MpiCollective op;
    CollAlgorithm a;
    double bytes, elements;
  };
  const Case cases[] = {
      {MpiCollective::bcast, CollAlgorithm::split_bintree, 300000, 37500},     // 1 KiB segments
      {MpiCollective::bcast, CollAlgorithm::split_bintree, 1000008, 125001},   // 8 KiB segments, odd count
      {MpiCollective::bcast, CollAlgorithm::split_bintree, 3000, 375},         // a half under a segment: the chain
      {MpiCollective::bcast, CollAlgorithm::pipeline, 2e6, 2.5e5},
      {MpiCollective::reduce, CollAlgorithm::pipeline, 1e6, 1.25e5},
      {MpiCollective::reduce, CollAlgorithm::binary, 300000, 37500},
      {MpiCollective::reduce, CollAlgorithm::binomial, 100000, 12500},
      {MpiCollective::allgather, CollAlgorithm::neighbor_exchange, 40000, 5000},
      {MpiCollective::allreduce, CollAlgorithm::ring_segmented, 40e6, 5e6},     // several phases of 1 MiB
      {MpiCollective::allreduce, CollAlgorithm::ring_segmented, 8000, 1000},    // the plain ring
  };
  for (const Case& c : cases) {
    for (int n : {2, 3, 4, 5, 7, 8, 12, 13, 16, 33}) {
      for (int root : {0, n / 2}) {
        INFO(mpi_collective_name(c.op) << " " << coll_algorithm_name(c.a) << " of " << c.bytes << " B on " << n
                                       << " ranks, root " << root);
        const Traffic t = expand_all(call_of(c.op, c.bytes, c.elements, root), n, c.a);
        CHECK(t.sent == t.received);
        for (int r = 0; r < n; ++r) {
          INFO("rank " << r);
          if (c.op == MpiCollective::bcast) {  // every rank but the root receives the message once
            CHECK(t.received_by[r] == Approx(r == root ? 0.0 : c.bytes));
          } else if (c.op == MpiCollective::reduce) {  // every rank but the root sends its vector once
            CHECK(t.sent_by[r] == Approx(r == root ? 0.0 : c.bytes));
          } else if (c.op == MpiCollective::allgather) {  // every other rank's block
            CHECK(t.received_by[r] == Approx((n - 1) * c.bytes));
          } else {  // a ring allreduce receives every block but its own in the reduce-scatter, all but one after
            CHECK(t.received_by[r] <= 2 * c.bytes);
            CHECK(t.received_by[r] >= 2 * c.bytes * (n - 1) / n - 2 * c.bytes / c.elements * 2);
          }
        }
      }
    }
  }
}

TEST_CASE("the split binary tree sends each half down one subtree, then pairs swap halves") {
  // 8 ranks, root 0: 1 and 2 head the subtrees of odd and even ranks; 300,000 bytes in halves of 150,000 in
  // 1 KiB segments (147 each: 146 of 1,024 bytes and one of 504).
  const Traffic t = expand_all(call_of(MpiCollective::bcast, 300000, 300000), 8, CollAlgorithm::split_bintree);
  REQUIRE(t.sent.count({0, 1}));
  const std::vector<double>& left = t.sent.at({0, 1});
  CHECK(left.size() == 147);
  CHECK(left.front() == 1024);
  CHECK(left.back() == 150000 - 146 * 1024);
  CHECK(t.sent.at({0, 2}).size() == 147);
  CHECK(t.sent.at({1, 3}).size() == 147);  // 1's children are 3 and 5; 2's are 4 and 6
  CHECK(t.sent.at({2, 6}).size() == 147);
  CHECK(t.sent.at({3, 7}).size() == 147);
  // The swap: (1, 2), (3, 4), (5, 6) exchange whole halves; 7 has no partner and gets the second half from the root.
  CHECK(t.sent.at({1, 2}) == std::vector<double>{150000});
  CHECK(t.sent.at({4, 3}) == std::vector<double>{150000});
  CHECK(t.sent.at({0, 7}) == std::vector<double>{150000});
  CHECK_FALSE(t.sent.count({7, 0}));
}

TEST_CASE("a segmented reduce: the pipeline is a chain to the root, the binary tree that of the split bcast") {
  // 1 MB on 64 ranks: Open MPI's pipeline with 1 KiB segments (64 > 0.0410/1024 x 1e6 + 9.7128).
  const Traffic chain = expand_all(call_of(MpiCollective::reduce, 1e6, 1e6), 64, CollAlgorithm::pipeline);
  CHECK(chain.sent.size() == 63);  // r -> r - 1 only
  CHECK(chain.sent.at({1, 0}).size() == 977);  // ceil(1e6 / 1024)
  // 300 kB on 8 ranks: the binary tree's edges, 32 KiB segments.
  const Traffic binary = expand_all(call_of(MpiCollective::reduce, 300000, 300000), 8, CollAlgorithm::binary);
  CHECK(binary.sent.size() == 7);
  for (auto [from, to] : {std::pair{1, 0}, {2, 0}, {3, 1}, {5, 1}, {4, 2}, {6, 2}, {7, 3}})
    CHECK(binary.sent.at({from, to}).size() == 10);  // ceil(300000 / 32768)
  // Binomial: unsegmented below Open MPI's line, 1 KiB segments above it (60 ranks > 0.6016/1024 x 100 kB + 1.35).
  CHECK(expand_all(call_of(MpiCollective::reduce, 100000, 100000), 16, CollAlgorithm::binomial).sent.at({1, 0}).size() == 1);
  CHECK(expand_all(call_of(MpiCollective::reduce, 100000, 100000), 64, CollAlgorithm::binomial).sent.at({1, 0}).size() == 98);
}

TEST_CASE("neighbour exchange: n / 2 steps, one block and then two, with the left and right neighbours in turn") {
  const Traffic t = expand_all(call_of(MpiCollective::allgather, 1000, 125), 8, CollAlgorithm::neighbor_exchange);
  CHECK(t.sent.at({0, 1}) == std::vector<double>{1000, 2000});  // steps 0 and 2
  CHECK(t.sent.at({0, 7}) == std::vector<double>{2000, 2000});  // steps 1 and 3
  CHECK_FALSE(t.sent.count({0, 2}));
  // Odd rank counts run the ring.
  const Traffic odd = expand_all(call_of(MpiCollective::allgather, 1000, 125), 7, CollAlgorithm::neighbor_exchange);
  CHECK(odd.sent.at({0, 1}).size() == 6);
}

TEST_CASE("the segmented ring allreduce runs phases of 1 MiB segments, then one allgather ring") {
  // 40 MB of doubles on 4 ranks: 5e6 elements, 131,072 per segment, 9 phases (5e6 / 524,288 = 9.5; the rest,
  // 281,408 elements, is above half of 4 segments, so one more: 10).
  const Traffic t = expand_all(call_of(MpiCollective::allreduce, 40e6, 5e6), 4, CollAlgorithm::ring_segmented);
  const std::vector<double>& right = t.sent.at({0, 1});
  CHECK(right.size() == 10 * 3 + 3);
  CHECK(right.front() == 125000 * 8);  // block 0 (1.25e6 elements) in 10 phases of 125,000
  CHECK(right.back() == 1.25e6 * 8);   // the allgather sends whole blocks
  CHECK_FALSE(t.sent.count({0, 2}));
}

TEST_CASE("the ompi selector picks Open MPI's segmented algorithms where its fixed rules do") {
  CollSelector ompi(CollSelector::Rules::ompi);
  const auto pick = [&](MpiCollective op, double bytes, int n) { return ompi.select(call_of(op, bytes, bytes / 8), n); };
  CHECK(pick(MpiCollective::bcast, 1000, 16) == CollAlgorithm::binomial);
  CHECK(pick(MpiCollective::bcast, 100000, 16) == CollAlgorithm::split_bintree);
  CHECK(pick(MpiCollective::bcast, 1e7, 8) == CollAlgorithm::pipeline);       // 8 < 1.6134e-6 x 1e7 + 2.1102
  CHECK(pick(MpiCollective::bcast, 1e6, 8) == CollAlgorithm::split_bintree);  // below 13 ranks, 8 KiB segments
  CHECK(pick(MpiCollective::bcast, 1e6, 64) == CollAlgorithm::pipeline);
  CHECK(pick(MpiCollective::reduce, 256, 4) == CollAlgorithm::basic_linear);
  CHECK(pick(MpiCollective::reduce, 10000, 4) == CollAlgorithm::binomial);
  CHECK(pick(MpiCollective::reduce, 1e6, 64) == CollAlgorithm::pipeline);
  CHECK(pick(MpiCollective::reduce, 1e5, 8) == CollAlgorithm::binary);
  CHECK(pick(MpiCollective::reduce, 1e5, 64) == CollAlgorithm::binomial);
  CHECK(pick(MpiCollective::allgather, 1e5, 8) == CollAlgorithm::neighbor_exchange);
  CHECK(pick(MpiCollective::allgather, 1e5, 7) == CollAlgorithm::ring);
  CHECK(pick(MpiCollective::allreduce, 8e6, 16) == CollAlgorithm::ring);
  CHECK(pick(MpiCollective::allreduce, 1e8, 4) == CollAlgorithm::ring_segmented);
}

}  // namespace
}  // namespace hpcsim

namespace hpcsim {
namespace {

TEST_CASE("a segmented collective of more segments than the actions limit is refused before its steps are made") {
  std::vector<CollStep> steps;
  CHECK_THROWS_WITH(expand_collective(call_of(MpiCollective::bcast, 1e15, 1e15), 1, 64, CollAlgorithm::pipeline, steps),
                    Catch::Contains("a message of 1e+15 bytes in 131072-byte segments") && Catch::Contains("--limit actions=N"));
  CHECK_THROWS_WITH(expand_collective(call_of(MpiCollective::allreduce, 1e15, 1.25e14), 1, 8, CollAlgorithm::ring_segmented, steps),
                    Catch::Contains("a segmented ring allreduce of 1e+15 bytes"));
  CHECK(steps.empty());
}

TEST_CASE("Open MPI's gathers and scatters: basic linear one message at a time, linear_sync, the binomial scatter") {
  const auto steps_of = [](MpiCollective op, double bytes, double elements, int rank, int n, CollAlgorithm a, int root = 0) {
    std::vector<CollStep> steps;
    expand_collective(call_of(op, bytes, elements, root), rank, n, a, steps);
    return steps;
  };
  // Basic linear: the root waits for each message before the next; reduce's root from the last rank down.
  const std::vector<CollStep> gather = steps_of(MpiCollective::gather, 100, 25, 0, 4, CollAlgorithm::basic_linear);
  REQUIRE(gather.size() == 6);
  CHECK((gather[0].kind == CollStep::recv && gather[0].peer == 1 && gather[1].kind == CollStep::wait_all));
  CHECK(gather[4].peer == 3);
  const std::vector<CollStep> reduce = steps_of(MpiCollective::reduce, 100, 25, 0, 4, CollAlgorithm::basic_linear);
  REQUIRE(reduce.size() == 6);
  CHECK((reduce[0].peer == 3 && reduce[2].peer == 2 && reduce[4].peer == 1));
  const std::vector<CollStep> scatter = steps_of(MpiCollective::scatter, 100, 25, 2, 4, CollAlgorithm::basic_linear, 2);
  REQUIRE(scatter.size() == 6);
  CHECK((scatter[0].kind == CollStep::send && scatter[0].peer == 0 && scatter[1].kind == CollStep::wait_all));

  // linear_sync, 10,000-byte blocks of doubles: a zero-byte go-ahead, then 1,024 bytes and the rest; the root
  // defers each rest's receive to its last wait.
  const std::vector<CollStep> leaf = steps_of(MpiCollective::gather, 10000, 1250, 2, 4, CollAlgorithm::linear_sync);
  REQUIRE(leaf.size() == 6);
  CHECK((leaf[0].kind == CollStep::recv && leaf[0].bytes == 0));
  CHECK((leaf[2].kind == CollStep::send && leaf[2].bytes == 1024));
  CHECK((leaf[4].kind == CollStep::send && leaf[4].bytes == 10000 - 1024));
  const std::vector<CollStep> root = steps_of(MpiCollective::gather, 10000, 1250, 0, 4, CollAlgorithm::linear_sync);
  REQUIRE(root.size() == 3 * 4 + 1);
  CHECK((root[0].kind == CollStep::recv && root[0].bytes == 1024 && !root[0].deferred));
  CHECK((root[1].kind == CollStep::send && root[1].bytes == 0));
  CHECK((root[2].kind == CollStep::recv && root[2].bytes == 10000 - 1024 && root[2].deferred));
  CHECK(root[3].kind == CollStep::wait_all);
  CHECK(root.back().kind == CollStep::wait_deferred);
  // Above 92,160 bytes the first segment is 32 KiB.
  CHECK(steps_of(MpiCollective::gather, 100000, 12500, 1, 4, CollAlgorithm::linear_sync)[2].bytes == 32768);

  for (int n : {2, 3, 5, 8, 11, 16, 33}) {
    for (int root : {0, n / 2, n - 1}) {
      INFO(n << " ranks, root " << root);
      // Every send met by a receive of its size, in order; every rank but the root gets (or gives) its block.
      const Traffic sync = expand_all(call_of(MpiCollective::gather, 10000, 1250, root), n, CollAlgorithm::linear_sync);
      CHECK(sync.sent == sync.received);
      const Traffic bin = expand_all(call_of(MpiCollective::scatter, 200, 50, root), n, CollAlgorithm::binomial);
      CHECK(bin.sent == bin.received);
      double from_root = 0;
      for (int r = 0; r < n; ++r) {
        CHECK(sync.sent_by[r] == Approx(r == root ? 0.0 : 10000.0));
        // A rank receives its subtree's blocks once and passes all but its own on.
        if (r != root) {
          CHECK(bin.received_by[r] - bin.sent_by[r] == Approx(200.0));
        } else {
          CHECK(bin.received_by[r] == 0);
        }
      }
      for (const auto& [edge, sizes] : bin.sent)
        if (edge.first == root) for (double s : sizes) from_root += s;
      CHECK(from_root == Approx(200.0 * (n - 1)));
    }
  }
  // The binomial scatter's tree on 8 ranks, root 0: 0 -> 1 (1 block), 2 (2), 4 (4); 2 -> 3; 4 -> 5, 6 (2); 6 -> 7.
  const Traffic tree = expand_all(call_of(MpiCollective::scatter, 100, 25), 8, CollAlgorithm::binomial);
  CHECK(tree.sent.at({0, 1}) == std::vector<double>{100});
  CHECK(tree.sent.at({0, 2}) == std::vector<double>{200});
  CHECK(tree.sent.at({0, 4}) == std::vector<double>{400});
  CHECK(tree.sent.at({4, 6}) == std::vector<double>{200});
  CHECK(tree.sent.at({6, 7}) == std::vector<double>{100});
  CHECK(tree.sent.size() == 7);
}

TEST_CASE("the ompi selector's gathers and scatters follow Open MPI's fixed rules") {
  CollSelector ompi(CollSelector::Rules::ompi);
  const auto pick = [&](MpiCollective op, double bytes, int n) { return ompi.select(call_of(op, bytes, bytes / 4), n); };
  CHECK(pick(MpiCollective::gather, 8000, 4) == CollAlgorithm::linear_sync);     // block > 6,000 bytes
  CHECK(pick(MpiCollective::gather, 4000, 64) == CollAlgorithm::binomial);       // more than 60 ranks
  CHECK(pick(MpiCollective::gather, 512, 12) == CollAlgorithm::binomial);        // more than 10 ranks, under 1 KiB
  CHECK(pick(MpiCollective::gather, 2000, 12) == CollAlgorithm::basic_linear);
  CHECK(pick(MpiCollective::scatter, 200, 11) == CollAlgorithm::binomial);       // more than 10 ranks, under 300 bytes
  CHECK(pick(MpiCollective::scatter, 200, 10) == CollAlgorithm::basic_linear);
  CHECK(pick(MpiCollective::scatter, 400, 64) == CollAlgorithm::basic_linear);
  // SimGrid's default selector keeps its all-at-once versions.
  CollSelector smpi(CollSelector::Rules::smpi);
  CHECK(smpi.select(call_of(MpiCollective::gather, 8000, 2000), 4) == CollAlgorithm::linear);
  CHECK(smpi.select(call_of(MpiCollective::scatter, 200, 50), 11) == CollAlgorithm::linear);
}

TEST_CASE("Open MPI's non-overlapping allreduce is its rules' reduce to rank 0, then their bcast") {
  CollSelector ompi(CollSelector::Rules::ompi);
  // 16 KiB of doubles on 2,048 ranks: 2,048 elements, not more than the ranks, so the rules fall through to
  // the non-overlapping allreduce (below 10,000 bytes recursive doubling, above with more elements the rings).
  CHECK(ompi.select(call_of(MpiCollective::allreduce, 16384, 2048), 2048) == CollAlgorithm::nonoverlapping);
  CHECK(ompi.select(call_of(MpiCollective::allreduce, 16384, 2048), 1024) == CollAlgorithm::ring);
  for (int n : {3, 8, 13, 64}) {
    INFO(n << " ranks");
    const CollectiveCall call = call_of(MpiCollective::allreduce, 40000, 40000 / 8.0, 5 % n);
    CollectiveCall reduce = call, bcast = call;
    reduce.op = MpiCollective::reduce;
    reduce.root = bcast.root = 0;
    bcast.op = MpiCollective::bcast;
    for (int r = 0; r < n; ++r) {
      std::vector<CollStep> whole, parts;
      expand_collective(call, r, n, CollAlgorithm::nonoverlapping, whole);
      expand_collective(reduce, r, n, ompi.select(reduce, n), parts);
      expand_collective(bcast, r, n, ompi.select(bcast, n), parts);
      REQUIRE(whole.size() == parts.size());
      for (std::size_t i = 0; i < whole.size(); ++i)
        CHECK((whole[i].kind == parts[i].kind && whole[i].peer == parts[i].peer && whole[i].bytes == parts[i].bytes));
    }
    const Traffic t = expand_all(call, n, CollAlgorithm::nonoverlapping);
    CHECK(t.sent == t.received);
  }
}

TEST_CASE("the neighbour exchange allgatherv passes on each rank's own block, whatever its size") {
  for (int n : {2, 4, 6, 10, 16}) {
    std::vector<double> counts;
    for (int r = 0; r < n; ++r) counts.push_back(1000.0 + 37.0 * ((r * 7) % 5));
    CollectiveCall call = call_of(MpiCollective::allgatherv, 1000, 1000);
    call.counts = counts;
    const Traffic t = expand_all(call, n, CollAlgorithm::neighbor_exchange);
    INFO(n << " ranks");
    CHECK(t.sent == t.received);
    double all = 0;
    for (double c : counts) all += c;
    for (int r = 0; r < n; ++r) CHECK(t.received_by[r] == Approx(all - counts[static_cast<std::size_t>(r)]));
  }
  CollSelector ompi(CollSelector::Rules::ompi);
  CollectiveCall big = call_of(MpiCollective::allgatherv, 10000, 10000);
  const std::vector<double> eight(8, 10000.0), seven(7, 10000.0), four(4, 10000.0);
  big.counts = eight;
  CHECK(ompi.select(big, 8) == CollAlgorithm::neighbor_exchange);  // 80,000 bytes in all, an even count
  big.counts = seven;
  CHECK(ompi.select(big, 7) == CollAlgorithm::ring);
  big.counts = four;
  CHECK(ompi.select(big, 4) == CollAlgorithm::ring);  // below 50,000 bytes in all
}

TEST_CASE("recursive halving reducescatter folds a rank count that is not a power of two, as Open MPI and MPICH do") {
  for (int n : {2, 3, 5, 6, 7, 8, 12}) {
    std::vector<double> counts;
    for (int r = 0; r < n; ++r) counts.push_back(100.0 * (1 + (r * 5) % 3));
    double all = 0;
    for (double c : counts) all += c;
    CollectiveCall call = call_of(MpiCollective::reducescatter, 0, 0);
    call.counts = counts;
    const Traffic t = expand_all(call, n, CollAlgorithm::recursive_halving);
    INFO(n << " ranks");
    CHECK(t.sent == t.received);
    const int p = n == 12 ? 8 : n >= 8 ? 8 : n >= 4 ? 4 : 2, remain = n - p;
    for (int r = 0; r < 2 * remain; r += 2) {
      CHECK(t.sent.at({r, r + 1}) == std::vector<double>{all});         // the even rank hands over its vector
      CHECK(t.sent.at({r + 1, r}) == std::vector<double>{counts[static_cast<std::size_t>(r)]});  // and gets its block back
      CHECK(t.sent_by[r] == all);
    }
    // Every rank that halves ends with its block of the sum: it sends everything it held but that block.
    for (int r = 2 * remain; r < n; ++r) CHECK(t.sent_by[r] == Approx(all - counts[static_cast<std::size_t>(r)]));
  }
}

}  // namespace
}  // namespace hpcsim
