#pragma once
// MPI point-to-point on an MpiMachine: ranks placed on hosts, nonblocking sends and receives matched in
// order by (source, tag), each message one flow on the machine's fair-share resources after its latency,
// the eager/rendezvous switch and buffering of message_model.h, and compute on the hosts' cores. A rank's
// program (trace replay, collectives) is driven from outside through Listener callbacks: the world only
// says when a request or a computation has finished.
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "models/mpi/message_model.h"
#include "models/mpi/mpi_machine.h"
#include "sim-core/time.h"

namespace hpcsim {

using RequestId = std::uint32_t;
inline constexpr RequestId kNoRequest = std::numeric_limits<RequestId>::max();

class MpiWorld {
 public:
  class Listener {
   public:
    virtual ~Listener() = default;
    virtual void request_done(int rank, RequestId request) = 0;
    virtual void compute_done(int rank) = 0;
  };

  // rank_host[r]: the host rank r runs on. std::invalid_argument for a host outside the machine.
  MpiWorld(MpiMachine& machine, MessageModel model, std::vector<int> rank_host, Listener& listener);
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int ranks() const;
  int host_of(int rank) const;
  const MessageModel& model() const;
  MpiMachine& machine();

  // Nonblocking send / receive of `bytes` (>= 0). std::invalid_argument for a peer outside the world.
  RequestId isend(int rank, int dst, int tag, double bytes);
  RequestId irecv(int rank, int src, int tag, double bytes);
  bool done(RequestId request) const;
  // When the request's data started to move (its match, or the send when buffered); Time::max() if not yet.
  Time transfer_start(RequestId request) const;
  // The rank no longer needs the request (finished or not: a finished one's slot is reused).
  void release(RequestId request);

  // `flops` on the rank's host (its cores shared by the ranks on it), or a sleep; compute_done follows.
  void compute(int rank, double flops);
  void sleep(int rank, double seconds);

  // Sends and receives posted but never matched (a deadlocked or inconsistent program leaves some).
  std::size_t unmatched() const;
  std::uint64_t messages() const;  // messages matched so far

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpcsim
