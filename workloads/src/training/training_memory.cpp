#include "workloads/training/training_memory.h"

namespace hpcsim {

bool keeps_master_weights(Precision p) { return p == Precision::fp16 || p == Precision::bf16 || is_narrow_gemm_format(p); }

// fp8 training (Transformer Engine) casts to fp8 per GEMM; the stored weights stay 2-byte.
double weight_bytes_per_param(Precision p) { return keeps_master_weights(p) ? 2 : bytes_per_element(p); }
double gradient_bytes_per_param(Precision p) { return weight_bytes_per_param(p); }

double optimizer_state_bytes_per_param(OptimizerKind optimizer, Precision p) {
  const double master = keeps_master_weights(p) ? 4 : 0;
  switch (optimizer) {
    case OptimizerKind::adam:
    case OptimizerKind::adamw:
    case OptimizerKind::lamb: return 8 + master;
    case OptimizerKind::momentum: return 4 + master;
    case OptimizerKind::sgd: return master;
  }
  return master;
}

TrainingMemory training_memory(const Model& model, std::int64_t batch_per_gpu, Precision precision,
                               OptimizerKind optimizer) {
  const double params = static_cast<double>(model.params());
  TrainingMemory m;
  m.weights = params * weight_bytes_per_param(precision);
  m.gradients = params * gradient_bytes_per_param(precision);
  m.optimizer_state = params * optimizer_state_bytes_per_param(optimizer, precision);
  for (const Network& net : model.networks) {
    for (const LayerNode& n : net.nodes()) {
      if (!n.layer) continue;
      const LayerRun run{batch_per_gpu, layer_precision(n.layer->traits(), precision)};
      m.activations += n.layer->activation_bytes(n.input_shapes, run);
    }
  }
  return m;
}

}  // namespace hpcsim
