#include "models/storage/page_cache.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hpcsim {

namespace {

// P(X Y > t) for X and Y independent and uniform on [low, 1]: the integral over X of the length of the Y
// with Y > t / X, over the square of the range.
double product_exceeds(double t, double low) {
  if (t <= low * low) return 1.0;
  if (t >= 1.0) return 0.0;
  const double width = 1.0 - low;
  double area = 0;
  // X from max(low, t) to t / low: the Y above t / X, a length 1 - t / X.
  const double lo = std::max(low, t);
  const double hi = low > 0 ? std::min(1.0, t / low) : 1.0;
  if (hi > lo) area += (hi - lo) - t * std::log(hi / lo);
  // X above t / low: every Y, the whole width.
  const double all_from = low > 0 ? std::max(low, t / low) : 1.0;
  if (all_from < 1.0) area += (1.0 - all_from) * width;
  return std::min(1.0, area / (width * width));
}

}  // namespace

// Derivation (docs/storage.md, "Page cache"). A sample a node reads at a fraction u of its share of epoch e
// is read by the same node again j epochs later with probability (1/n)(1 - 1/n)^(j-1), at a fraction v of
// that epoch's share (u, v uniform). LRU still holds it when the node has read fewer than `cache` bytes of
// other samples in between. Another sample escapes the node's reads in that span with probability
// (1 - (1-u)/n) (1 - 1/n)^(j-1) (1 - v/n), so the span reads 1 - that share of the dataset (the sizes are
// large, the count close to its mean): a hit when (1 - (1-u)/n)(1 - v/n) > (1 - c) / (1 - 1/n)^(j-1), with
// 1 - (1-u)/n and 1 - v/n uniform on [1 - 1/n, 1]. Summed over j until the right side passes 1. A test
// checks it against a simulated LRU cache.
double page_cache_hit_ratio(double cache_bytes, double dataset_bytes, int nodes) {
  if (nodes < 1) throw std::invalid_argument("the page cache's hit ratio needs at least one node");
  if (cache_bytes < 0 || dataset_bytes < 0) throw std::invalid_argument("page cache and dataset sizes cannot be negative");
  if (cache_bytes >= dataset_bytes) return 1.0;
  if (cache_bytes <= 0) return 0.0;
  const double miss_room = 1.0 - cache_bytes / dataset_bytes;  // 1 - c
  const double stay = 1.0 - 1.0 / nodes;                        // a sample goes to another node this epoch
  double hit = 0;
  double left_alone = 1.0;              // (1 - 1/n)^(j-1)
  double p_return = 1.0 / nodes;        // (1/n)(1 - 1/n)^(j-1)
  if (nodes > 1) {
    // The first returns all hit (the right side is under (1 - 1/n)^2, the product's least value) and sum in
    // closed form, (1/n) sum of (1 - 1/n)^(j-1) = 1 - (1 - 1/n)^J; the loop then walks the few that remain.
    // Without it a cache near the dataset's size on many nodes would take n ln(1 / (1 - c)) steps.
    const double all_hit = std::floor(std::log(miss_room) / std::log(stay)) - 3;
    if (all_hit > 0) {
      left_alone = std::pow(stay, all_hit);
      hit = 1.0 - left_alone;
      p_return = left_alone / nodes;
    }
  }
  while (left_alone > miss_room && p_return > 1e-18) {
    hit += p_return * product_exceeds(miss_room / left_alone, stay);
    left_alone *= stay;
    p_return *= stay;
  }
  return std::clamp(hit, 0.0, 1.0);
}

}  // namespace hpcsim
