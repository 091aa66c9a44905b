#pragma once
// The Pareto front of points that minimise several objectives at once (time to train, cost, energy).
#include <cstddef>
#include <vector>

namespace hpcsim {

// True when a is no worse than b in every objective and better in at least one.
bool dominates(const std::vector<double>& a, const std::vector<double>& b);

// Indices of the points no other point dominates, in input order. Equal points are all kept.
std::vector<std::size_t> pareto_front(const std::vector<std::vector<double>>& points);

}  // namespace hpcsim
