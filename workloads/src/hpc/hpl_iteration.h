#pragma once
// One HPL iteration's time from its parts, and the rings' pipeline fill: the CPU and the GPU models share
// them (private to workloads/src/hpc).
#include <algorithm>

#include "workloads/hpc/hpl_model.h"

namespace hpcsim {

// With look-ahead the next panel (and its broadcast) hides behind the update; without it they add up.
// `per_rank` is the rank's own share of the broadcast, of which the part beyond `crit` shows.
inline void add_hpl_iteration(HplResult& out, int depth, double swap, double update, double panel, double crit,
                              double per_rank) {
  const double iteration = depth >= 1 ? swap + std::max({update, panel + crit, per_rank})
                                      : swap + panel + crit + update + std::max(0.0, per_rank - crit);
  out.update_s += update;
  out.panel_s += panel;
  out.bcast_s += crit;
  out.swap_s += swap;
  out.exposed_s += iteration - update;
  out.time_s += iteration;
}

// The rings' pipeline fill in panel messages: the last column gets the first panel Q - 1 hops after it is
// made (the modified ring's root serves two columns, one hop less); none for the long broadcast.
inline int hpl_ring_fill_hops(const HplConfig& c) {
  if (c.q <= 2 || c.bcast == HplBcast::long_bcast) return 0;
  return c.bcast == HplBcast::increasing_ring ? c.q - 2 : c.q - 3;
}

}  // namespace hpcsim
