#include "models/collectives/link_ledger.h"

#include <algorithm>
#include <stdexcept>

namespace hpcsim {

LinkLedger::Claim LinkLedger::claim(std::span<const ResourceId> links) {
  const auto c = static_cast<Claim>(claims_.size());
  State s;
  s.links.assign(links.begin(), links.end());
  std::sort(s.links.begin(), s.links.end());
  s.links.erase(std::unique(s.links.begin(), s.links.end()), s.links.end());
  s.live = true;
  claims_.push_back(std::move(s));
  for (const ResourceId r : claims_[c].links) {
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
  for (const ResourceId r : s.links) --holders_[r];
  s.live = false;
  s.links = {};
}

}  // namespace hpcsim
