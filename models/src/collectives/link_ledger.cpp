#include "models/collectives/link_ledger.h"

#include <algorithm>
#include <stdexcept>

namespace hpcsim {

LinkLedger::Claim LinkLedger::claim(std::span<const ResourceId> links) {
  const auto c = static_cast<Claim>(claims_.size());
  // Each link once, in first-seen order (the order does not matter): a stamp per resource instead of
  // sorting, since a 131,072-GPU stage's claim lists 650,000 route links.
  auto distinct = std::make_shared<std::vector<ResourceId>>();
  for (const ResourceId r : links) {
    if (r >= stamp_.size()) stamp_.resize(static_cast<std::size_t>(r) + 1, 0);
    if (stamp_[r] == c + 1) continue;
    stamp_[r] = c + 1;
    distinct->push_back(r);
  }
  return claim_distinct(std::move(distinct));
}

LinkLedger::Claim LinkLedger::claim_distinct(std::shared_ptr<const std::vector<ResourceId>> links) {
  const auto c = static_cast<Claim>(claims_.size());
  State s;
  s.links = std::move(links);
  s.live = true;
  claims_.push_back(std::move(s));
  for (const ResourceId r : *claims_[c].links) {
    if (r >= holders_.size()) {
      holders_.resize(static_cast<std::size_t>(r) + 1, 0);
      holder_.resize(static_cast<std::size_t>(r) + 1, 0);
    }
    if (holders_[r] > 0) {
      meet(holder_[r]);
      meet(c);
    }
    ++holders_[r];
    holder_[r] = c;
  }
  return c;
}

void LinkLedger::meet(Claim c) {
  State& s = claims_[c];
  if (s.replayed && !s.met) ++broken_;
  s.met = true;
}

void LinkLedger::release(Claim c) {
  State& s = claims_.at(c);
  if (!s.live) throw std::logic_error("LinkLedger: claim released twice");
  for (const ResourceId r : *s.links) --holders_[r];
  s.live = false;
  s.links = nullptr;
}

}  // namespace hpcsim
