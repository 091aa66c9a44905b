#include "gpu/warp_sim/sector_cache.h"

#include <algorithm>
#include <stdexcept>

#include "sim-core/random.h"

namespace hpcsim::warp_sim_detail {

namespace {
constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
}  // namespace

SectorCache::SectorCache(std::int64_t bytes, int line_bytes, int sector_bytes, int ways)
    : sectors_per_line_(line_bytes / sector_bytes), ways_(ways) {
  if (sectors_per_line_ < 1 || sectors_per_line_ > 8 || ways < 1) throw std::invalid_argument("bad cache geometry");
  const std::int64_t lines = std::max<std::int64_t>(bytes / line_bytes, 1);
  ways_ = static_cast<int>(std::min<std::int64_t>(ways, lines));
  sets_ = std::max<std::int64_t>(lines / ways_, 1);
  const std::int64_t slots = sets_ * ways_;
  tag_.assign(slots, kEmpty);
  valid_.assign(slots, 0);
  ready_.assign(slots * sectors_per_line_, 0);
  used_.assign(sets_, 0);
  for (int k = 0; k < 4; ++k) {
    if (sectors_per_line_ == 1 << k) sector_shift_ = k;
  }
  scanned_ = ways_ <= kMaxScannedWays;
  if (scanned_) {
    stamp_.assign(slots, 0);
    return;
  }
  prev_.assign(slots, -1);
  next_.assign(slots, -1);
  head_.assign(sets_, -1);
  tail_.assign(sets_, -1);
  std::uint64_t cap = 1;
  while (cap < static_cast<std::uint64_t>(slots) * 2) cap <<= 1;
  table_.assign(cap, -1);
  table_mask_ = cap - 1;
}

// Lines hash by splitmix64's mix: strided line addresses spread over the table.
std::int32_t SectorCache::find(std::uint64_t line) const {
  for (std::uint64_t h = splitmix64_mix(line) & table_mask_;; h = (h + 1) & table_mask_) {
    const std::int32_t s = table_[h];
    if (s < 0) return -1;
    if (tag_[s] == line) return s;
  }
}

void SectorCache::insert_into_table(std::uint64_t line, std::int32_t slot) {
  std::uint64_t h = splitmix64_mix(line) & table_mask_;
  while (table_[h] >= 0) h = (h + 1) & table_mask_;
  table_[h] = slot;
}

// Linear probing with backward-shift deletion: no tombstones, so probes stay short forever.
void SectorCache::erase_from_table(std::uint64_t line) {
  std::uint64_t h = splitmix64_mix(line) & table_mask_;
  while (tag_[table_[h]] != line) h = (h + 1) & table_mask_;
  std::uint64_t hole = h;
  for (std::uint64_t j = (h + 1) & table_mask_; table_[j] >= 0; j = (j + 1) & table_mask_) {
    const std::uint64_t home = splitmix64_mix(tag_[table_[j]]) & table_mask_;
    // Move j into the hole when its home is not cyclically within (hole, j].
    const bool between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!between) {
      table_[hole] = table_[j];
      hole = j;
    }
  }
  table_[hole] = -1;
}

void SectorCache::touch(std::int64_t set, std::int32_t slot) {
  if (head_[set] == slot) return;
  // unlink
  if (prev_[slot] >= 0) next_[prev_[slot]] = next_[slot];
  if (next_[slot] >= 0) prev_[next_[slot]] = prev_[slot];
  if (tail_[set] == slot) tail_[set] = prev_[slot];
  // push front
  prev_[slot] = -1;
  next_[slot] = head_[set];
  if (head_[set] >= 0) prev_[head_[set]] = slot;
  head_[set] = slot;
  if (tail_[set] < 0) tail_[set] = slot;
}

SectorCache::Lookup SectorCache::access(std::uint64_t sector) {
  const std::uint64_t per_line = static_cast<std::uint64_t>(sectors_per_line_);
  const std::uint64_t line = sector_shift_ >= 0 ? sector >> sector_shift_ : sector / per_line;
  const int index = static_cast<int>(sector_shift_ >= 0 ? sector & (per_line - 1) : sector % per_line);
  const std::int64_t set = static_cast<std::int64_t>(line % static_cast<std::uint64_t>(sets_));
  if (scanned_) return access_scanned(line, index, set);
  const std::uint8_t bit = static_cast<std::uint8_t>(1u << index);
  std::int32_t slot = find(line);
  if (slot >= 0) {
    touch(set, slot);
    const std::int64_t entry = static_cast<std::int64_t>(slot) * sectors_per_line_ + index;
    if (valid_[slot] & bit) return {true, ready_[entry], entry};
    valid_[slot] |= bit;
    return {false, 0, entry};
  }
  if (used_[set] < ways_) {
    slot = static_cast<std::int32_t>(set * ways_ + used_[set]++);
  } else {
    slot = tail_[set];
    erase_from_table(tag_[slot]);
  }
  tag_[slot] = line;
  valid_[slot] = bit;
  insert_into_table(line, slot);
  touch(set, slot);
  return {false, 0, static_cast<std::int64_t>(slot) * sectors_per_line_ + index};
}

// The same LRU as the linked list: every access stamps its line, so the set's oldest stamp is its tail.
SectorCache::Lookup SectorCache::access_scanned(std::uint64_t line, int index, std::int64_t set) {
  const std::uint8_t bit = static_cast<std::uint8_t>(1u << index);
  const std::int64_t first = set * ways_;
  const int used = used_[set];
  const std::uint64_t* tags = tag_.data() + first;
  ++clock_;
  for (int w = 0; w < used; ++w) {
    if (tags[w] != line) continue;
    const std::int64_t slot = first + w;
    stamp_[slot] = clock_;
    const std::int64_t entry = slot * sectors_per_line_ + index;
    if (valid_[slot] & bit) return {true, ready_[entry], entry};
    valid_[slot] |= bit;
    return {false, 0, entry};
  }
  std::int64_t slot = first + used;
  if (used < ways_) {
    ++used_[set];
  } else {
    slot = first;
    for (std::int64_t s = first + 1; s < first + ways_; ++s) {
      if (stamp_[s] < stamp_[slot]) slot = s;
    }
  }
  tag_[slot] = line;
  valid_[slot] = bit;
  stamp_[slot] = clock_;
  return {false, 0, slot * sectors_per_line_ + index};
}

}  // namespace hpcsim::warp_sim_detail
