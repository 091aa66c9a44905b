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
// the running time is nearest k/parts of the total, each run keeping at least one layer. A loss stays on
// the stage of the layer it reads: frameworks compute it in the last stage's forward from the output
// layer's logits (Megatron-LM megatron/core/models/gpt/gpt_model.py GPTModel.forward, under post_process:
// output_layer then compute_language_model_loss(labels, logits); DeepSpeed deepspeed/runtime/pipe/engine.py
// _exec_forward_pass: `if self.is_last_stage(): self.loss = self.module.loss_fn(outputs, labels)`), so no
// cut falls in front of one: the logits (batch x sequence x vocabulary) are never sent between stages.
std::vector<std::size_t> partition_by_time(const std::vector<LayerCost>& costs, int parts) {
  const std::size_t n = costs.size();
  std::vector<std::size_t> open;  // where a cut may go: in front of layer i, 0 < i < n
  for (std::size_t i = 1; i < n; ++i) {
    if (!costs[i].node->layer->traits().loss) open.push_back(i);
  }
  if (parts < 1 || static_cast<std::size_t>(parts - 1) > open.size()) {
    throw std::invalid_argument(std::to_string(parts) + " pipeline stages but the model has " +
                                std::to_string(open.size() + 1) +
                                " layers to cut into stages (a loss stays with the layer it reads)");
  }
  std::vector<double> prefix(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + costs[i].forward_s + costs[i].backward_s;
  std::vector<std::size_t> cuts{0};
  std::size_t first = 0;  // the first open position the next cut may take
  for (int k = 1; k < parts; ++k) {
    const double target = prefix[n] * k / parts;
    std::size_t j = static_cast<std::size_t>(
        std::lower_bound(open.begin(), open.end(), target, [&](std::size_t i, double t) { return prefix[i] < t; }) -
        open.begin());
    if (j > 0 && (j == open.size() || target - prefix[open[j - 1]] < prefix[open[j]] - target)) --j;
    j = std::clamp(j, first, open.size() - static_cast<std::size_t>(parts - k));
    cuts.push_back(open[j]);
    first = j + 1;
  }
  cuts.push_back(n);
  return cuts;
}

}  // namespace hpcsim::training_detail
