#include "workloads/training/training_memory.h"

namespace hpcsim {

bool keeps_master_weights(Precision p) { return p == Precision::fp16 || p == Precision::bf16 || p == Precision::fp8; }

// fp8 training (Transformer Engine) casts to fp8 per GEMM; the stored weights stay 2-byte.
double weight_bytes_per_param(Precision p) { return keeps_master_weights(p) ? 2 : bytes_per_element(p); }
double gradient_bytes_per_param(Precision p) { return weight_bytes_per_param(p); }

namespace {

// fp32 state per parameter: Adam's two moments, SGD momentum's one buffer, plain SGD none.
double state_bytes_per_param(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::adam:
    case OptimizerKind::adamw:
    case OptimizerKind::lamb: return 8;
    case OptimizerKind::momentum: return 4;
    case OptimizerKind::sgd: return 0;
  }
  return 0;
}

}  // namespace

TrainingMemory training_memory(const Model& model, std::int64_t batch_per_gpu, Precision precision,
                               OptimizerKind optimizer) {
  const double params = static_cast<double>(model.params());
  const LayerRun run{batch_per_gpu, precision};
  TrainingMemory m;
  m.weights = params * weight_bytes_per_param(precision);
  m.gradients = params * gradient_bytes_per_param(precision);
  m.optimizer_state = params * (state_bytes_per_param(optimizer) + (keeps_master_weights(precision) ? 4 : 0));
  for (const Network& net : model.networks) m.activations += net.activation_bytes(run);
  return m;
}

}  // namespace hpcsim
