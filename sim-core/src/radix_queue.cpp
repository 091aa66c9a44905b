#include "radix_queue.h"

namespace hpcsim::detail {

std::size_t RadixQueue::capacity_bytes() const {
  std::size_t bytes = 0;
  for (const auto& b : buckets_) bytes += b.capacity() * sizeof(QueueEntry);
  return bytes;
}

void RadixQueue::push(const QueueEntry& e) {
  const int b = bucket_of(e.time);
  auto& bucket = buckets_[b];
  if (bucket.size() == (b == 0 ? head0_ : 0) || e.time < bucket_min_[b]) bucket_min_[b] = e.time;
  bucket.push_back(e);
  ++size_;
}

int RadixQueue::lowest_nonempty() const {
  if (buckets_[0].size() > head0_) return 0;
  for (int b = 1; b < kBuckets; ++b) {
    if (!buckets_[b].empty()) return b;
  }
  return -1;
}

void RadixQueue::rebase() {
  buckets_[0].clear();
  head0_ = 0;
  last_ = 0;
}

std::uint64_t RadixQueue::min_time() const {
  const int b = lowest_nonempty();
  return b == 0 ? last_ : bucket_min_[b];
}

}  // namespace hpcsim::detail
