#include "workloads/hpc/fabric_mpi_comm.h"

#include <algorithm>
#include <vector>

#include "models/mpi/fabric_machine.h"
#include "models/mpi/mpi_collectives.h"
#include "workloads/mpi_replay/ti_replay.h"

namespace hpcsim {

namespace {

TiAction point_to_point(TiKind kind, int peer, double bytes) {
  TiAction a;
  a.kind = kind;
  a.peer = peer;
  a.bytes = bytes;
  a.elements = bytes;
  return a;
}

TiAction wait_all() {
  TiAction a;
  a.kind = TiKind::waitall;
  return a;
}

}  // namespace

FabricMpiComm::FabricMpiComm(const ClusterConfig& cluster)
    : machine_(std::make_unique<FabricMachine>(cluster)),
      model_(cluster.network ? mpi_message_model(*cluster.network)
                             : mpi_message_model(NetworkSpec::kDefaultEagerThreshold)),
      nodes_(std::max(cluster.nodes, 1)),
      peer_(cluster.nodes / 2) {}

FabricMpiComm::~FabricMpiComm() = default;

double FabricMpiComm::message_s(double bytes, bool same_node, int sharing) const {
  if (bytes <= 0) return 0;  // as AnalyticMpiComm: no message
  const int k = std::max(sharing, 1);
  const bool inside = same_node || peer_ == 0;
  const auto key = std::make_tuple(bytes, inside, k);
  if (auto it = messages_.find(key); it != messages_.end()) return it->second;
  // Ranks 0..k-1 on node 0 send to ranks k..2k-1 (on the peer node, or on node 0 too).
  TiTrace t;
  t.ranks = 2 * k;
  t.files.push_back("fabric-mpi-comm");
  t.actions.assign(t.ranks, {});
  ReplayOptions o;
  o.model = model_;
  for (int r = 0; r < t.ranks; ++r) o.rank_host.push_back(r < k || inside ? 0 : peer_);
  for (int i = 0; i < k; ++i) {
    t.actions[i].push_back(point_to_point(TiKind::send, k + i, bytes));
    t.actions[k + i].push_back(point_to_point(TiKind::recv, i, bytes));
  }
  const double start = machine_->sim().now().to_seconds();
  const double s = replay_ti_trace(t, *machine_, o).time_s - start;
  messages_.emplace(key, s);
  return s;
}

double FabricMpiComm::allreduce_s(double bytes, int ranks, int sharing) const {
  if (ranks <= 1) return 0;
  const int k = std::max(sharing, 1);
  const auto key = std::make_tuple(bytes, ranks, k);
  if (auto it = allreduces_.find(key); it != allreduces_.end()) return it->second;
  // `k` groups of `ranks` ranks; group g's rank i is world rank g x ranks + i, on node i mod nodes. Each
  // rank's steps of the selected algorithm become isend / irecv / waitall actions within its group.
  CollectiveCall call;
  call.op = MpiCollective::allreduce;
  call.bytes = bytes;
  call.elements = bytes / 8;  // doubles
  const CollAlgorithm algorithm = CollSelector(CollSelector::Rules::ompi).select(call, ranks);
  TiTrace t;
  t.ranks = k * ranks;
  t.files.push_back("fabric-mpi-comm");
  t.actions.assign(t.ranks, {});
  ReplayOptions o;
  o.model = model_;
  std::vector<CollStep> steps;
  for (int g = 0; g < k; ++g)
    for (int i = 0; i < ranks; ++i) {
      const int r = g * ranks + i;
      o.rank_host.push_back(i % nodes_);
      steps.clear();
      expand_collective(call, i, ranks, algorithm, steps);
      for (const CollStep& s : steps) {
        // The all-reduce programs defer no request, so a wait is a waitall of everything posted.
        if (s.kind == CollStep::wait_all || s.kind == CollStep::wait_deferred) {
          t.actions[r].push_back(wait_all());
        } else {
          const int peer = g * ranks + s.peer;
          t.actions[r].push_back(point_to_point(s.kind == CollStep::send ? TiKind::isend : TiKind::irecv, peer, s.bytes));
        }
      }
      t.actions[r].push_back(wait_all());
    }
  const double start = machine_->sim().now().to_seconds();
  const double s = replay_ti_trace(t, *machine_, o).time_s - start;
  allreduces_.emplace(key, s);
  return s;
}

}  // namespace hpcsim
