// Recursive halving then doubling (Rabenseifner; Thakur, Rabenseifner, Gropp 2005): the reduce-scatter
// halves the data and the partner distance each step, the all-gather retraces it. A group that is not a
// power of two first folds its extra ranks into the first ones and hands them the result at the end.
#include "schedule_builders.h"

namespace hpcsim::schedules {

CollectiveSchedule halving_doubling(const CollectiveGroup& group, double bytes, HalvingDoubling what) {
  const int n = group.size();
  int pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  const int extra = n - pof2;
  int log2 = 0;
  while ((1 << log2) < pof2) ++log2;

  // A step is (distance, bytes per rank) among the first pof2 ranks; distance 0 is the fold of the
  // extra ranks (toward the first ranks when bytes > 0 is the first step, away from them when last).
  struct Step {
    int distance;
    double bytes;
    bool fold_in;
  };
  std::vector<Step> plan;
  const bool all_reduce = what == HalvingDoubling::all_reduce;
  if (all_reduce && extra > 0) plan.push_back(Step{0, bytes, true});
  if (what != HalvingDoubling::all_gather) {
    for (int k = 0; k < log2; ++k) plan.push_back(Step{pof2 >> (k + 1), bytes / (2 << k), false});
  }
  if (what != HalvingDoubling::reduce_scatter) {
    for (int k = log2 - 1; k >= 0; --k) plan.push_back(Step{pof2 >> (k + 1), bytes / (2 << k), false});
  }
  if (all_reduce && extra > 0) plan.push_back(Step{0, bytes, false});

  std::vector<int> steps;
  for (int i = 0; i < static_cast<int>(plan.size()); ++i) steps.push_back(i);
  auto generate = [plan, rails = own_rails(group), pof2, extra](int pattern, std::vector<Transfer>& out) {
    const Step& s = plan[pattern];
    if (s.distance == 0) {
      for (int i = 0; i < extra; ++i) {
        const int far = pof2 + i;
        out.push_back(s.fold_in ? Transfer{far, i, rails[far], s.bytes} : Transfer{i, far, rails[i], s.bytes});
      }
      return;
    }
    for (int r = 0; r < pof2; ++r) out.push_back(Transfer{r, r ^ s.distance, rails[r], s.bytes});
  };
  return CollectiveSchedule(static_cast<int>(plan.size()), std::move(steps), generate, n);
}

}  // namespace hpcsim::schedules
