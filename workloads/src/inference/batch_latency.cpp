#include "workloads/inference/batch_latency.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "forward_pass.h"

namespace hpcsim {

namespace {

// Bytes one forward pass holds at its peak per sample: the largest layer's inputs and output together
// (eval mode frees each activation once its consumers ran).
double live_bytes_per_sample(const InferenceSetup& setup, double value_bytes) {
  double peak = 0;
  for (const Network& net : setup.model.networks) {
    for (const LayerNode& n : net.nodes()) {
      if (!n.layer) continue;
      double b = static_cast<double>(elements(n.output));
      for (const Shape& s : n.input_shapes) b += static_cast<double>(elements(s));
      peak = std::max(peak, b * value_bytes);
    }
  }
  return peak;
}

double weight_bytes(const InferenceSetup& setup) {
  double params = 0;
  for (const Network& net : setup.model.networks) {
    for (const LayerNode& n : net.nodes()) {
      if (n.layer) params += static_cast<double>(n.layer->params(n.input_shapes));
    }
  }
  // CPUs keep fp32 weights except under int8; GPUs store them in the run's precision.
  if (!setup.on_gpu()) return params * (setup.precision == Precision::int8 ? 1.0 : 4.0);
  return params * bytes_per_element(setup.precision);
}

}  // namespace

int max_batch_in_memory(const InferenceSetup& setup) {
  const double value_bytes = setup.on_gpu() ? bytes_per_element(between_gemms(setup.precision))
                                            : (setup.precision == Precision::int8 ? 1.0 : 4.0);
  const double capacity = setup.on_gpu() ? setup.node.gpu.memory_bytes() * setup.tp
                                         : setup.node.host_memory_bytes * setup.nodes / setup.workers;
  const double free = capacity - weight_bytes(setup);
  if (free <= 0) return 0;
  const double per_sample = live_bytes_per_sample(setup, value_bytes) / (setup.on_gpu() ? setup.tp : 1);
  return static_cast<int>(std::min(free / per_sample, 1e9));
}

double batch_latency_s(const InferenceSetup& setup, int batch) {
  if (batch < 1) throw std::invalid_argument("a batch holds at least one request, not " + std::to_string(batch));
  const int most = max_batch_in_memory(setup);
  if (batch > most) {
    throw std::invalid_argument("batch " + std::to_string(batch) + " of " + setup.model_name + " does not fit in " +
                                setup.node_name + "'s memory (at most " + std::to_string(most) + ")");
  }
  const double forward = setup.on_gpu()
                             ? inference_detail::gpu_forward_s(setup, batch) + inference_detail::input_copy_s(setup, batch)
                             : inference_detail::cpu_forward_s(setup, batch);
  // After the batch its worker gives each request its response (a front end's compute output).
  return forward + setup.host_output_s_per_request * batch;
}

std::optional<double> replica_price_per_hour(const InferenceSetup& setup) {
  if (!setup.price_per_hour) return std::nullopt;
  return *setup.price_per_hour * setup.nodes;
}

}  // namespace hpcsim
