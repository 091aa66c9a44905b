#pragma once
// Softmax over the last dimension, and the cross-entropy loss (softmax + negative log-likelihood fused,
// as frameworks do; one class means a sigmoid with binary cross-entropy).
#include "workloads/layers/layer.h"

namespace hpcsim {

class Softmax : public Layer {
 public:
  std::string type() const override { return "softmax"; }
  LayerTraits traits() const override { return {.normalization = true, .saves = LayerTraits::Saves::output}; }
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;
};

// [..., classes] logits -> [1] loss per sample. With 16-bit logits the log-softmax runs in fp32, as
// PyTorch autocast's fp32 op list (log_softmax, cross_entropy, nll_loss), Apex O1 and Megatron's
// `output.float()` loss do: the logits are cast up, the fp32 probabilities kept, the gradient cast back.
// label_smoothing > 0 (Szegedy et al. 2016; DLE GNMT's LabelSmoothing, torch's label_smoothing) adds the
// mean log-probability over the classes, and its backward assembles a dense gradient (zeros, scatter of
// the picked class, plus the uniform term) before the log-softmax backward.
class CrossEntropyLoss : public Layer {
 public:
  explicit CrossEntropyLoss(double label_smoothing = 0);  // 0 <= label_smoothing < 1
  std::string type() const override { return "cross_entropy"; }
  LayerTraits traits() const override { return {.loss = true}; }
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  double smoothing_;
};

}  // namespace hpcsim
