#include "models/collectives/collective_schedule.h"

#include <stdexcept>
#include <string>

namespace hpcsim {

CollectiveSchedule::CollectiveSchedule(int patterns, std::vector<int> step_patterns, Generator generator,
                                       std::uint64_t transfers_per_pattern)
    : steps_(std::move(step_patterns)), patterns_(patterns),
      distinct_transfers_(static_cast<std::uint64_t>(patterns) * transfers_per_pattern) {
  for (const int p : steps_) {
    if (p < 0 || p >= patterns) throw std::invalid_argument("schedule step names an unknown pattern");
  }
  parts_.push_back(Part{0, patterns, std::move(generator)});
}

void CollectiveSchedule::append(CollectiveSchedule next) {
  for (Part& part : next.parts_) {
    part.first_pattern += patterns_;
    parts_.push_back(std::move(part));
  }
  for (const int p : next.steps_) steps_.push_back(p + patterns_);
  patterns_ += next.patterns_;
  distinct_transfers_ += next.distinct_transfers_;
}

void CollectiveSchedule::transfers(int pattern, std::vector<Transfer>& out) const {
  out.clear();
  for (const Part& part : parts_) {
    if (pattern >= part.first_pattern && pattern < part.first_pattern + part.patterns) {
      part.generator(pattern - part.first_pattern, out);
      return;
    }
  }
  throw std::invalid_argument("schedule has no pattern " + std::to_string(pattern));
}

}  // namespace hpcsim
