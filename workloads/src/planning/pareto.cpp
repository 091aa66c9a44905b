#include "workloads/planning/pareto.h"

namespace hpcsim {

bool dominates(const std::vector<double>& a, const std::vector<double>& b) {
  bool better = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] > b[i]) return false;
    better = better || a[i] < b[i];
  }
  return better;
}

// Quadratic, which is fine for the few thousand points a plan screens: sorting by the first objective would
// only prune the 2-objective case.
std::vector<std::size_t> pareto_front(const std::vector<std::vector<double>>& points) {
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < points.size(); ++i) {
    bool dominated = false;
    for (std::size_t j = 0; j < points.size() && !dominated; ++j) dominated = j != i && dominates(points[j], points[i]);
    if (!dominated) front.push_back(i);
  }
  return front;
}

}  // namespace hpcsim
