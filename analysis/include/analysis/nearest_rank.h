#pragma once
// The nearest-rank percentile: the ceil(q n)-th smallest of n values (q in (0, 1]); what the schedule's
// p95 wait and the serving latencies report.
#include <vector>

namespace hpcsim {

// `sorted` ascending and not empty.
double nearest_rank(const std::vector<double>& sorted, double q);

}  // namespace hpcsim
