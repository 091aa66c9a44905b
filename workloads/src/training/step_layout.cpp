// How the job maps onto GPUs and how its layers are cut into pipeline stages.
#include "step_planner.h"

#include <algorithm>
#include <stdexcept>

namespace hpcsim::training_detail {

ParallelLayout make_layout(const ClusterConfig& cluster, const TrainingStepConfig& run) {
  ParallelLayout l = run.layout;
  if (run.micro_batch < 1 || run.microbatches < 1) throw std::invalid_argument("micro batch and microbatches must be >= 1");
  if (l.tp < 1 || l.pp < 1 || l.vp < 1 || l.cp < 1 || l.dp < 0) throw std::invalid_argument("parallel degrees must be >= 1");
  if (run.zero < 0 || run.zero > 3) throw std::invalid_argument("ZeRO stage must be 0..3");
  if (l.dp == 0) l.dp = std::max(1, cluster.gpus() / l.model_parallel());
  if (l.gpus() > cluster.gpus()) {
    throw std::invalid_argument("dp x tp x pp x cp = " + std::to_string(l.gpus()) + " outside 1.." +
                                std::to_string(cluster.gpus()) + " (the cluster's GPUs)");
  }
  return l;
}

// Contiguous cut of the layers into `parts` runs of about equal forward + backward time: cut k goes where
// the running time is nearest k/parts of the total, each run keeping at least one layer.
std::vector<std::size_t> partition_by_time(const std::vector<LayerCost>& costs, int parts) {
  const std::size_t n = costs.size();
  if (static_cast<std::size_t>(parts) > n) {
    throw std::invalid_argument(std::to_string(parts) + " pipeline stages but the model has " + std::to_string(n) + " layers");
  }
  std::vector<double> prefix(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + costs[i].forward_s + costs[i].backward_s;
  std::vector<std::size_t> cuts{0};
  for (int k = 1; k < parts; ++k) {
    const double target = prefix[n] * k / parts;
    std::size_t i = static_cast<std::size_t>(std::lower_bound(prefix.begin(), prefix.end(), target) - prefix.begin());
    if (i > 0 && target - prefix[i - 1] < prefix[std::min(i, n)] - target) --i;
    i = std::clamp(i, cuts.back() + 1, n - static_cast<std::size_t>(parts - k));
    cuts.push_back(i);
  }
  cuts.push_back(n);
  return cuts;
}

}  // namespace hpcsim::training_detail
