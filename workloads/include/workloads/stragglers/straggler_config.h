#pragma once
// A training scenario's `stragglers:` section (docs/resilience.md): slow GPUs (thermal throttling: a clock
// below the GPU's own) and degraded network links (a link at a fraction of its rate) among the fleet a job's
// GPUs and nodes are drawn from. In a synchronous job the slowest rank sets every step, so one slow GPU
// anywhere in the job slows the whole job: the chance a job holds one grows with its size.
#include <optional>

#include "configs/config_node.h"
#include "configs/schema.h"

namespace hpcsim {

struct StragglerConfig {
  double slow_gpus = 0;       // fraction of the fleet's GPUs that run slow, [0, 1]
  double gpu_clock = 1;       // a slow GPU's clocks as a fraction of its own, (0, 1]
  double slow_links = 0;      // fraction of the fleet's nodes whose network link is degraded, [0, 1]
  double link_bandwidth = 1;  // a degraded link's rate as a fraction of the network's, (0, 1]
};

// The chances that a job of `gpus` GPUs on `nodes` nodes holds at least one slow GPU, at least one degraded
// link (each GPU and each node drawn independently from the fleet).
struct StragglerOdds {
  double slow_gpu = 0, slow_link = 0;
};
StragglerOdds straggler_odds(const StragglerConfig& c, int gpus, int nodes);

const Schema& straggler_schema();
// A slow fraction without its speed (or the reverse), nothing slow at all: ConfigErrors at the key.
StragglerConfig parse_stragglers(const ConfigNode& section);

}  // namespace hpcsim
