#include "analysis/nearest_rank.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hpcsim {

double nearest_rank(const std::vector<double>& sorted, double q) {
  if (sorted.empty() || !(q > 0 && q <= 1)) throw std::invalid_argument("nearest_rank needs values and q in (0, 1]");
  const double n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(q * n)));
  return sorted[std::min(rank, sorted.size()) - 1];
}

}  // namespace hpcsim
