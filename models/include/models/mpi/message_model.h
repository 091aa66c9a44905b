#pragma once
// How an MPI library turns a message into network time: size-dependent bandwidth and latency factors, the
// eager/rendezvous switch, per-message overheads and the flow-model details SimGrid's SMPI adds (cross
// traffic of acknowledgements, RTT-unfair sharing, the TCP window bound). One struct, two presets:
// SimGrid SMPI's defaults (to replay traces as SimGrid does) and a real MPI over an hpcsim network spec.
#include <string>
#include <utility>
#include <vector>

#include "models/network/network_spec.h"

namespace hpcsim {

// A factor by message size: the value of the largest threshold <= size (SimGrid's "if size >= threshold");
// 1 below the first threshold or when empty.
class SizeFactor {
 public:
  SizeFactor() = default;
  explicit SizeFactor(std::vector<std::pair<double, double>> steps);  // any order; sorted here
  // "threshold:value;threshold:value;..." as SimGrid's smpi/bw-factor option; std::invalid_argument when
  // malformed (the message names the piece), a threshold is negative or a value is not finite and > 0.
  static SizeFactor parse(const std::string& text);
  double at(double bytes) const;
  const std::vector<std::pair<double, double>>& steps() const { return steps_; }

 private:
  std::vector<std::pair<double, double>> steps_;  // ascending thresholds
};

struct MessageModel {
  std::string name;
  SizeFactor bandwidth_factor;  // the flow's share of the bottleneck bandwidth, by size
  SizeFactor latency_factor;    // multiplies the route's latency, by size
  // Below: the sender's request completes when posted (eager); at or above: when the data has arrived
  // (rendezvous). SMPI: smpi/send-is-detached-thresh.
  double eager_threshold = 65536;
  // Below: the data leaves when the send is posted, before the receive exists (buffered at the
  // receiver); at or above: the transfer starts when send and receive have matched. SMPI:
  // smpi/async-small-thresh (0: every transfer waits for the match); a real MPI's eager protocol = the
  // eager threshold.
  double buffered_threshold = 0;
  // One-way latencies a rendezvous pays before its data moves (RTS, then an RDMA read: 1). SMPI: 0.
  int rendezvous_handshakes = 0;
  // LogGP o at the sender (CPU time per message) and at the receiver, for messages between hosts (a
  // shared-memory route's latency is an end-to-end figure that already holds the library's overhead).
  double send_overhead_s = 0;
  double recv_overhead_s = 0;
  // Acknowledgements loading the reverse route, as a share of the flow's rate (SimGrid network/crosstraffic:
  // 0.05; on SimGrid's SHARED links the reverse route is the same link, so a lone flow gets 1/1.05 of it).
  double crosstraffic = 0;
  // RTT-unfair sharing (SimGrid network/weight-S, SMPI 8775): a flow's share on a contended link is
  // inversely proportional to latency + weight_s / bandwidth summed over its route. 0: plain max-min.
  double weight_s = 0;
  // TCP window bound (SimGrid network/TCP-gamma, 4 MiB): a flow's rate <= gamma / (2 x route latency).
  double tcp_gamma = 0;
  // SimGrid's MPI_Test cost (smpi/test, 1e-4 s): each test sleeps k x test_sleep, k counting the failed
  // tests since the last successful one (shared by every rank, as SMPI's static counter is).
  double test_sleep_s = 0;
};

// SimGrid SMPI's defaults (simgrid.org Configuring SimGrid: smpi/bw-factor, smpi/lat-factor,
// smpi/send-is-detached-thresh, smpi/async-small-thresh, network/crosstraffic, network/weight-S,
// network/TCP-gamma, smpi/test).
MessageModel smpi_message_model();
// A real MPI over an hpcsim network spec: no size factors (the spec's software latency and payload
// bandwidth are the measured end-to-end figures), eager data flows at once below `eager_threshold`, a
// rendezvous pays one handshake latency (RTS, then the receiver reads).
MessageModel mpi_message_model(double eager_threshold);
// The same for a network spec: its eager_threshold, and its mpi_overhead as o at both ends.
MessageModel mpi_message_model(const NetworkSpec& network);

}  // namespace hpcsim
