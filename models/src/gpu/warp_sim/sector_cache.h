#pragma once
// A set-associative cache of lines split into sectors (NVIDIA's L1 and L2: 128-byte lines of four 32-byte
// sectors, a miss fetches only the sectors asked for). LRU within a set. A line is found through an
// open-addressing table and each set keeps its LRU order as a linked list, so a lookup costs O(1) however
// many ways the set has (the V100's L1 has 256). Everything is allocated by the constructor.
#include <cstdint>
#include <vector>

namespace hpcsim::warp_sim_detail {

class SectorCache {
 public:
  SectorCache(std::int64_t bytes, int line_bytes, int sector_bytes, int ways);

  struct Lookup {
    bool hit;
    double ready;  // when the sector's data is there (a sector still being filled is a hit that waits)
    std::int64_t entry;  // the sector's place, for set_ready
  };
  // Looks the sector up; a miss allocates it (evicting the set's LRU line if needed) with data ready at
  // time 0, which the caller raises to the fill time once it knows it (set_ready).
  Lookup access(std::uint64_t sector);
  void set_ready(std::int64_t entry, double ready) { ready_[entry] = ready; }
  std::int64_t lines() const { return static_cast<std::int64_t>(tag_.size()); }

 private:
  static constexpr int kMaxScannedWays = 32;  // past this, the hash index is faster than a scan

  Lookup access_scanned(std::uint64_t line, int index, std::int64_t set);
  std::int32_t find(std::uint64_t line) const;
  void erase_from_table(std::uint64_t line);
  void insert_into_table(std::uint64_t line, std::int32_t slot);
  void touch(std::int64_t set, std::int32_t slot);

  int sectors_per_line_;
  int ways_;
  std::int64_t sets_;
  std::vector<std::uint64_t> tag_;   // line address per slot; kEmpty when unused
  std::vector<std::uint8_t> valid_;  // sector bits per slot
  std::vector<double> ready_;        // per slot and sector: when its fill arrives
  std::vector<std::int32_t> prev_, next_;
  std::vector<std::int32_t> head_, tail_, used_;  // per set: MRU, LRU, slots in use
  std::vector<std::int32_t> table_;  // line -> slot, -1 empty
  std::uint64_t table_mask_ = 0;
  bool scanned_ = false;
  std::vector<std::uint64_t> stamp_;  // scanned sets: per slot, when it was last used
  std::uint64_t clock_ = 0;
  int sector_shift_ = -1;  // log2 of the sectors per line
};

}  // namespace hpcsim::warp_sim_detail
