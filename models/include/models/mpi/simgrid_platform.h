#pragma once
// SimGrid's XML platform files (platform version 4.x), read well enough to replay traces on the platform
// they were recorded for: one zone with <host id speed core>, <router id>, <link id bandwidth latency
// sharing_policy>, <route src dst symmetrical> of <link_ctn id direction>, <cluster> (FLAT: hosts with a private
// link each and an optional backbone; TORUS; Full routing only), and <config><prop id value/> (the SMPI network
// options of message_model.h). Routing Full (or None): routes between hosts as declared; Floyd, Dijkstra or
// DijkstraCache: the declared routes are edges between hosts and routers, and a route is the cheapest chain
// of them (simgrid_graph_routing.h). Nested zones, zone routes and other routing algorithms are refused.
// Every error is a ConfigError "file:line:column: message".
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "configs/source_loc.h"
#include "models/mpi/message_model.h"
#include "models/mpi/mpi_machine.h"

namespace hpcsim {

struct SimgridHost {
  std::string name;
  double speed = 0;  // flop/s per core
  int cores = 1;
  SourceLoc where;
};

enum class LinkSharing { shared, fatpipe, splitduplex };

struct SimgridLink {
  std::string name;
  double bandwidth = 0;  // bytes/s
  double latency_s = 0;
  LinkSharing sharing = LinkSharing::shared;
};

// One link of a route; for a SPLITDUPLEX link the direction used (up: false, down: true).
struct SimgridLinkUse {
  int link = 0;
  bool down = false;
};

// A <cluster>'s hosts and links: the route from its i-th to its j-th host (i != j) crosses links[i], the
// backbone (if any) and links[j] (its DOWN direction when split), computed when asked rather than stored
// for every pair (1,024 hosts would hold a million routes); with limiters, i's limiter first and j's last.
struct SimgridCluster {
  std::vector<int> hosts, links;
  int backbone = -1;
  bool split = false;
  // Per host, where the cluster gives them (loopback_bw/loopback_lat; limiter_link): a host's route to itself
  // is its loopback; a route between two hosts starts and ends at their limiters, outside their private links.
  std::vector<int> loopbacks, limiters;
  // TORUS topology (topo_parameters d1,...,dD): links[i * D + j] joins host i to its next host in dimension j
  // (wrapping around), and a route goes dimension by dimension the shorter way, as SimGrid's TorusZone goes.
  std::vector<int> dims;  // empty: FLAT
};

enum class SimgridRouting { full, floyd, dijkstra };

// A Floyd or Dijkstra zone's routes. Points are the zone's hosts and routers in declaration order.
struct SimgridGraphRoutes {
  std::vector<int> host_point;  // per host
  std::map<std::pair<int, int>, std::vector<SimgridLinkUse>> edges;  // (from point, to point): a declared route
  std::vector<std::pair<int, int>> edge_order;  // the edges as declared (a symmetric route's reverse after it)
  std::vector<std::vector<int>> pred;  // pred[s][d]: the point before d on the route from s (-1: none)
};

struct SimgridPlatform {
  std::string file;
  std::vector<SimgridHost> hosts;
  std::vector<SimgridLink> links;
  std::map<std::pair<int, int>, std::vector<SimgridLinkUse>> routes;  // (src host, dst host), as declared
  std::map<std::pair<int, int>, bool> symmetric;                      // per declared route
  std::vector<SimgridCluster> clusters;
  std::vector<std::pair<int, int>> cluster_of;  // per host: (cluster, index in it), or (-1, -1)
  struct Prop {
    std::string id, value;
    SourceLoc where;
  };
  std::vector<Prop> config;  // <config><prop .../></config>, in file order
  SimgridRouting routing = SimgridRouting::full;
  SimgridGraphRoutes graph;  // Floyd and Dijkstra zones

  int host_index(const std::string& name) const;  // -1 when absent
  // The links of the route from a to b: a cluster's (both hosts in it), else declared, else the reverse of
  // a symmetric (b, a) route with SPLITDUPLEX directions swapped; nullopt when none exists.
  std::optional<std::vector<SimgridLinkUse>> links_between(int a, int b) const;
  // Whether a route from a to b exists (a host's own is its loopback), without building it.
  bool has_route(int a, int b) const;
};

SimgridPlatform read_simgrid_platform(const std::string& path);
SimgridPlatform parse_simgrid_platform(const std::string& text, const std::string& file);

// The SMPI options of the platform's <config> applied to `model` (smpi/bw-factor, smpi/lat-factor,
// smpi/send-is-detached-thresh, smpi/async-small-thresh, network/crosstraffic, network/weight-S,
// network/TCP-gamma, smpi/test); other options are SimGrid's and ignored. A malformed value is a ConfigError.
void apply_simgrid_config(const SimgridPlatform& platform, MessageModel& model);

// The platform as an MpiMachine: a SHARED link is one fair-share resource for both directions (as in
// SimGrid), a SPLITDUPLEX link one per direction, a FATPIPE link a per-flow limit. A host's own route is
// its declared loopback, else SimGrid's default loopback (network/loopback-bw 10 GBps, latency 0, FATPIPE).
class SimgridMachine final : public MpiMachine {
 public:
  explicit SimgridMachine(SimgridPlatform platform);
  ~SimgridMachine() override;
  int hosts() const override;
  const std::string& host_name(int host) const override;
  double host_speed(int host) const override;
  int host_cores(int host) const override;
  const MpiRoute& route(int from, int to) override;
  Simulator& sim() override;
  FairShare& fair_share() override;
  const SimgridPlatform& platform() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpcsim
