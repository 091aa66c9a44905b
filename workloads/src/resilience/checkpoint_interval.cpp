#include "workloads/resilience/checkpoint_interval.h"

#include <cmath>

namespace hpcsim {

double young_interval(double checkpoint_s, double mtti_s) { return std::sqrt(2.0 * checkpoint_s * mtti_s); }

double daly_interval(double checkpoint_s, double mtti_s) {
  if (checkpoint_s >= 2.0 * mtti_s) return mtti_s;
  const double x = checkpoint_s / (2.0 * mtti_s);
  return std::sqrt(2.0 * checkpoint_s * mtti_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - checkpoint_s;
}

double availability_optimal_interval(double checkpoint_s, double mtti_s, double recovery_s) {
  return checkpoint_s + std::sqrt(2.0 * (mtti_s + recovery_s) * checkpoint_s + checkpoint_s * checkpoint_s);
}

}  // namespace hpcsim
