#include "models/collectives/lockstep_memo.h"

#include <stdexcept>

namespace hpcsim {

namespace {

bool same_groups(const std::vector<std::vector<int>>& gpus, const std::vector<CollectiveGroup>& groups) {
  if (gpus.size() != groups.size()) return false;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (static_cast<int>(gpus[g].size()) != groups[g].size()) return false;
    for (int r = 0; r < groups[g].size(); ++r) {
      if (gpus[g][static_cast<std::size_t>(r)] != groups[g].gpu(r)) return false;
    }
  }
  return true;
}

std::vector<std::vector<int>> gpus_of(const std::vector<CollectiveGroup>& groups) {
  std::vector<std::vector<int>> gpus;
  for (const CollectiveGroup& g : groups) {
    std::vector<int>& list = gpus.emplace_back(static_cast<std::size_t>(g.size()));
    for (int r = 0; r < g.size(); ++r) list[static_cast<std::size_t>(r)] = g.gpu(r);
  }
  return gpus;
}

}  // namespace

bool LockstepMemo::share(Record& record, const std::vector<CollectiveGroup>& groups, const Transfers& transfers) const {
  for (const LinkSet& l : link_sets_) {
    if (l.transfers == transfers && same_groups(l.gpus, groups)) {
      record.links = l.links;
      record.routes = l.routes;
      return true;
    }
  }
  return false;
}

void LockstepMemo::keep(Record& record, const std::vector<CollectiveGroup>& groups, Transfers transfers,
                        std::vector<ResourceId> links, Routes routes) {
  record.links = std::make_shared<const std::vector<ResourceId>>(std::move(links));
  record.routes = std::make_shared<Routes>(std::move(routes));
  link_sets_.push_back(LinkSet{gpus_of(groups), std::move(transfers), record.links, record.routes});
}

std::shared_ptr<LockstepMemo::Record> LockstepMemo::record(const ClusterFabric& fabric, CollectiveOp op,
                                                           CollectiveAlgorithm algorithm, double bytes,
                                                           const ScheduleOptions& options, bool symmetric,
                                                           const std::vector<CollectiveGroup>& groups, int patterns) {
  if (fabric_ && fabric_ != &fabric) throw std::invalid_argument("LockstepMemo: records of another fabric");
  fabric_ = &fabric;
  for (const Entry& e : entries_) {
    // Sizes compare exactly: another size moves other amounts.
    if (e.op == op && e.algorithm == algorithm && e.bytes == bytes && e.options.root == options.root &&
        e.options.chunk_bytes == options.chunk_bytes && e.options.max_chunks == options.max_chunks &&
        e.symmetric == symmetric && static_cast<int>(e.record->durations.size()) == patterns &&
        same_groups(e.gpus, groups)) {
      return e.record;
    }
  }
  std::vector<std::vector<int>> gpus = gpus_of(groups);
  auto r = std::make_shared<Record>();
  r->durations.assign(static_cast<std::size_t>(patterns), -1);
  entries_.push_back(Entry{op, algorithm, bytes, options, symmetric, std::move(gpus), r});
  return r;
}

}  // namespace hpcsim
