#pragma once
// Which running collectives hold which links, so that a collective can tell that no other traffic meets it.
//
// A ring step's duration depends only on its own flows while nothing else crosses its links (max-min rates
// split along connected components). The solver-wide test "no other flow on the solver" never holds in a
// pipelined training step, where every stage reduces at once; per link it does: stages own different nodes,
// and on a fat tree their rings share no link. A collective claims the links its routes can touch for as
// long as it runs; a claim no other claim has met since it was made is exclusive, and its holder may replay
// repeated steps (collective_runner.h). A claim that meets one whose holder has already replayed a step came
// too late: that replay assumed links the newcomer shares. broken_replays() counts such meetings (callers
// that issue one collective per link set at a time, as the training step does per stage, keep it 0).
//
// Only traffic started through collectives that carry this ledger is seen: use it where nothing else
// starts flows on those links (a single-tenant platform).
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sim-core/fair_share.h"

namespace hpcsim {

class LinkLedger {
 public:
  using Claim = std::uint32_t;

  // Claims `links` (any order, repeats allowed) until release().
  Claim claim(std::span<const ResourceId> links);
  // As claim(), for a list holding each link once, kept as it is (a training step claims one such list per
  // gradient bucket: copying it each time cost more than the claim).
  Claim claim_distinct(std::shared_ptr<const std::vector<ResourceId>> links);
  void release(Claim c);
  // True while no other claim has held one of c's links at any time since c was made.
  bool exclusive(Claim c) const { return !claims_.at(c).met; }
  // c's holder replayed a step on the strength of exclusive(c).
  void note_replay(Claim c) { claims_.at(c).replayed = true; }
  std::uint64_t broken_replays() const { return broken_; }

 private:
  struct State {
    std::shared_ptr<const std::vector<ResourceId>> links;  // each once
    bool met = false;
    bool replayed = false;
    bool live = false;
  };
  void meet(Claim c);

  std::vector<State> claims_;
  std::vector<std::uint32_t> holders_;  // per resource: live claims holding it
  std::vector<Claim> holder_;           // per resource: one of them (all are met once there are two)
  std::vector<Claim> stamp_;            // per resource: 1 + the last claim that listed it
  std::uint64_t broken_ = 0;
};

}  // namespace hpcsim
