#pragma once
// The fabric back end of MpiComm (mpi_comm.h): every question is answered by running its messages on
// MpiWorld (models/mpi/mpi_world.h) over the cluster as a FabricMachine, so they take the network spec's
// routes through the NIC ports and switch links of the topology as fair-share flows, the eager/rendezvous
// switch of the network spec's eager_threshold (one handshake latency above it), and shared memory inside
// a node (models/mpi/shm_latency.h). An all-reduce runs the algorithm Open MPI's tuned rules choose
// (mpi_collectives.h: recursive doubling below 10,000 B, ring above when the count exceeds the ranks, ...)
// as point-to-point messages.
//
// What is simulated for each question (answers are cached by their arguments):
//  - message_s(bytes, same_node, sharing): `sharing` messages at once from ranks of node 0 to ranks of the
//    node half the cluster away (the route AnalyticMpiComm prices), or between ranks of node 0 when
//    same_node; the time until the last one has arrived.
//  - allreduce_s(bytes, ranks, sharing): `sharing` independent all-reduces at once, each over `ranks` ranks
//    on consecutive nodes (rank i on node i modulo the nodes); the time until every rank has finished.
// Only the job's own messages of one question share the network: traffic of other node pairs at the same
// moment is not in the answer.
#include <map>
#include <memory>
#include <tuple>

#include "models/mpi/message_model.h"
#include "models/platform/cluster_config.h"
#include "workloads/hpc/mpi_comm.h"

namespace hpcsim {

class FabricMachine;

class FabricMpiComm final : public MpiComm {
 public:
  // std::invalid_argument when the node has no CPU cores or FP64 rate (FabricMachine).
  explicit FabricMpiComm(const ClusterConfig& cluster);
  ~FabricMpiComm() override;
  double message_s(double bytes, bool same_node, int sharing) const override;
  double allreduce_s(double bytes, int ranks, int sharing) const override;

  const MessageModel& model() const { return model_; }
  int peer_node() const { return peer_; }

 private:
  std::unique_ptr<FabricMachine> machine_;
  MessageModel model_;
  int nodes_ = 1;
  int peer_ = 0;
  mutable std::map<std::tuple<double, bool, int>, double> messages_;
  mutable std::map<std::tuple<double, int, int>, double> allreduces_;
};

}  // namespace hpcsim
