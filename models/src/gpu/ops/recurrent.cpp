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
  out.push_back(named(gemm(gpu, {rows, gh, input, 1, r.precision}), "input_projection"));
  out.push_back(named(gemm(gpu, {r.batch, gh, r.hidden, 1, r.precision}), "recurrent", r.steps));
  std::vector<ElementStream> fwd = {{2 * gates * e, false}, {e, false}, {(1 + state) * e, true}};
  if (r.train) fwd.push_back({gates * e, true});  // gate activations saved for backward
  out.push_back(named(elementwise_kernel("gates", cells, gate_flops, fwd), "pointwise", r.steps));
  if (!r.train) return out;

  // Backward through time: gate gradients, then dh_{t-1} = dgates W_hh^T, one step at a time.
  std::vector<ElementStream> bwd = {{gates * e, false}, {(2 + state) * e, false}, {gates * e, true}, {(1 + state) * e, true}};
  out.push_back(named(elementwise_kernel("gates_backward", cells, gate_flops, bwd), "pointwise", r.steps));
  out.push_back(named(gemm(gpu, {r.batch, r.hidden, gh, 1, r.precision}), "recurrent_backward_data", r.steps));
  // After the loop, over all steps at once: dW_hh, dW_ih and dx.
  out.push_back(named(gemm(gpu, {r.hidden, gh, rows, 1, r.precision}), "recurrent_backward_weight"));
  out.push_back(named(gemm(gpu, {input, gh, rows, 1, r.precision}), "input_backward_weight"));
  out.push_back(named(gemm(gpu, {rows, input, gh, 1, r.precision}), "input_backward_data"));
  return out;
}

}  // namespace hpcsim
