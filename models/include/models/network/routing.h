#pragma once
// How a cluster network's switches choose among equally short next hops (`routing:` in a network spec,
// `cluster.routing` to override it):
// - ecmp: Ethernet-style equal-cost multipath, a hash of the flow picks the next hop at every switch, so
//   two flows to one destination may take different spines and two flows to different destinations may
//   collide on one (RoCE, TCP, EFA).
// - d-mod-k: static destination-based forwarding as an InfiniBand or Omni-Path subnet manager programs
//   it (OpenSM's fat-tree routing; Zahavi's D-mod-K): every switch forwards by the destination alone,
//   and on a fat tree the up-port at level l is (destination index / product of the up-port counts
//   below l) mod the up-port count, destinations numbered leaf by leaf. A shift permutation then crosses
//   the tree without two flows on one link, and renumbering GPUs by a rail rotation maps routes to routes.
#include "configs/enum_names.h"

namespace hpcsim {

enum class Routing { ecmp, d_mod_k };

inline constexpr EnumNames<Routing, 2> kRoutingNames{{{{Routing::ecmp, "ecmp"}, {Routing::d_mod_k, "d-mod-k"}}}};

}  // namespace hpcsim
