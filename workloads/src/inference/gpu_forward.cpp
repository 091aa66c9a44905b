// GPU inference reuses the training step's per-layer forward kernels and their issue by one host thread,
// rather than a second GPU model: a forward pass is the first half of what layer_costs times.
#include "forward_pass.h"

#include "../training/layer_costs.h"

namespace hpcsim::inference_detail {

double gpu_forward_s(const InferenceSetup& setup, int batch) {
  const ExecutionMode& mode = setup.framework.mode(setup.compile);
  TrainingStepConfig run;
  run.micro_batch = batch;
  run.precision = setup.precision;
  run.layout.tp = setup.tp;
  run.issue = mode.forward_issue();  // every op of a forward pass is called from Python (eager)
  run.fusion = mode.fusion;
  run.channels_last = setup.framework.memory_format == MemoryFormat::nhwc;
  run.flash_attention = setup.framework.attention == AttentionKernel::flash;
  run.linear_bias_epilogue = setup.framework.linear_bias_epilogue;
  run.tuned_batch = setup.tuned_batch;
  double total = 0;
  for (const training_detail::LayerCost& c : training_detail::layer_costs(setup.model, setup.node.gpu, run)) {
    const LayerTraits traits = c.node->layer->traits();
    // Eval mode: no dropout kernels (the mask and scaling are training-only) and no loss (serving has no
    // labels).
    if (traits.loss || traits.eval_identity) continue;
    if (traits.batch_statistics && setup.frozen) continue;  // folded into its conv
    total += c.forward_s;
  }
  return total;
}

}  // namespace hpcsim::inference_detail
