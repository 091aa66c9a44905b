#include "models/gpu/ops/recurrent.h"

#include <stdexcept>
#include <string>

#include "models/gpu/ops/gemm.h"

namespace hpcsim {

namespace {

Kernel named(Kernel k, const std::string& what, std::int64_t count = 1) {
  k.name = what + "_" + k.name;
  k.count = count;
  return k;
}

// The GEMM of one time step. Each step's product must be complete before the gate kernel that consumes
// it, so cuDNN launches one GEMM kernel per step without splitting K (a split-K product needs a second,
// reduction pass in the serial chain). On the tensor cores the step GEMM runs the default 128x128 CTA
// tile rather than the tile that would fill the GPU best: with M = batch that leaves most SMs idle
// (4096 gate columns = 32 CTAs on 80 V100 SMs), which is why DeepBench's V100 LSTM forward reaches only
// 16 TFLOP/s at hidden 1024 and 65 at hidden 4096. UNSURE: the tile is inferred from those timings
// (forward and backward, hidden 1024 and 4096), not from a kernel trace. SIMT GEMMs take the fastest
// tile, as cuBLAS's SGEMM heuristics do.
// cuDNN's own gate kernels stream at the measured bandwidth (not a framework's pointwise kernels).
Kernel library_pointwise(Kernel k) {
  k.work.framework_pointwise = false;
  return k;
}

Kernel step_gemm(const GpuSpec& gpu, const GemmShape& shape) {
  if (gpu.tensor_flops_per_clock_per_sm[static_cast<int>(shape.precision)].has_value()) {
    // A batch of 64 rows or fewer takes cuBLAS's 64-row tile (Volta's volta_h884gemm_64x128 kernels)
    // rather than padding half of a 128-row one.
    return gemm_kernel(gpu, shape, {shape.m <= 64 ? 64 : 128, 128});
  }
  Kernel best;
  double best_time = 0;
  for (const CtaTile& tile : gemm_cta_tiles()) {
    Kernel k = gemm_kernel(gpu, shape, tile);
    const double t = estimate_kernel(gpu, k.launch, k.work).time_s;
    if (best_time == 0 || t < best_time) {
      best_time = t;
      best = std::move(k);
    }
  }
  return best;
}

}  // namespace

std::vector<Kernel> recurrent_layer(const GpuSpec& gpu, const RecurrentShape& r) {
  if (r.hidden < 1 || r.batch < 1 || r.steps < 1 || r.input < 0) {
    throw std::invalid_argument("recurrent sizes must be at least 1");
  }
  const std::int64_t gates = r.cell == RecurrentCell::lstm ? 4 : 3;
  const std::int64_t gh = gates * r.hidden, input = r.input > 0 ? r.input : r.hidden;
  const std::int64_t rows = r.steps * r.batch;
  const double e = bytes_per_element(r.precision);
  const double cells = static_cast<double>(r.batch * r.hidden);
  // Pointwise gates per hidden unit: sigmoids and tanhs (~8 FLOPs each with the exponential) and the
  // state update; read both pre-activations and the previous cell state, write h and c (and the gates).
  const double gate_flops = r.cell == RecurrentCell::lstm ? 40 : 34;
  const double state = r.cell == RecurrentCell::lstm ? 1 : 0;  // a GRU has no separate cell state

  std::vector<Kernel> out;
  if (r.input_projection) out.push_back(named(gemm(gpu, {rows, gh, input, 1, r.precision}), "input_projection"));
  out.push_back(named(step_gemm(gpu, {r.batch, gh, r.hidden, 1, r.precision}), "recurrent", r.steps));
  std::vector<ElementStream> fwd = {{2 * gates * e, false}, {e, false}, {(1 + state) * e, true}};
  if (r.train) fwd.push_back({gates * e, true});  // gate activations saved for backward
  out.push_back(named(library_pointwise(elementwise_kernel("gates", cells, gate_flops, fwd)), "pointwise", r.steps));
  if (!r.train) return out;

  // Backward through time: gate gradients, then dh_{t-1} = dgates W_hh^T, one step at a time.
  std::vector<ElementStream> bwd = {{gates * e, false}, {(2 + state) * e, false}, {gates * e, true}, {(1 + state) * e, true}};
  out.push_back(named(library_pointwise(elementwise_kernel("gates_backward", cells, gate_flops, bwd)), "pointwise", r.steps));
  out.push_back(named(step_gemm(gpu, {r.batch, r.hidden, gh, 1, r.precision}), "recurrent_backward_data", r.steps));
  // After the loop, over all steps at once: dW_hh, dW_ih and dx.
  if (r.weight_gradients) {
    out.push_back(named(gemm(gpu, {r.hidden, gh, rows, 1, r.precision}), "recurrent_backward_weight"));
    if (r.input_projection) out.push_back(named(gemm(gpu, {input, gh, rows, 1, r.precision}), "input_backward_weight"));
  }
  if (r.input_projection) out.push_back(named(gemm(gpu, {rows, input, gh, 1, r.precision}), "input_backward_data"));
  return out;
}

}  // namespace hpcsim
