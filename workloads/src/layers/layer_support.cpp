#include "layer_support.h"

namespace hpcsim::layer_support {

const Shape& single_input(const Shapes& in, std::size_t rank, const char* what) {
  if (in.size() != 1) throw ShapeError("takes one input, got " + std::to_string(in.size()));
  if (rank != 0 && in[0].size() != rank) {
    throw ShapeError(std::string("expects ") + what + ", got " + to_string(in[0]));
  }
  for (std::int64_t d : in[0]) {
    if (d < 1) throw ShapeError("input shape " + to_string(in[0]) + " has an empty dimension");
  }
  return in[0];
}

double batch_elements(const Shape& shape, const LayerRun& run) {
  return static_cast<double>(elements(shape)) * static_cast<double>(run.batch);
}

double batch_bytes(const Shape& shape, const LayerRun& run) {
  return batch_elements(shape, run) * value_bytes(run.precision);
}

Kernel pointwise(const std::string& name, double elements, double flops_per_element, int reads, int writes,
                 Precision p) {
  const double e = value_bytes(p);
  std::vector<ElementStream> streams;
  for (int i = 0; i < reads; ++i) streams.push_back({e, false});
  for (int i = 0; i < writes; ++i) streams.push_back({e, true});
  return elementwise_kernel(name, elements, flops_per_element, streams);
}

bool costs_gemm_casts(const LayerRun& run) { return run.gemm_casts && is_narrow_gemm_format(run.precision); }

void add_gemm_casts(LayerKernels& k, std::size_t forward_at, double rows, double in, double out, bool column,
                    const LayerRun& run) {
  if (!costs_gemm_casts(run)) return;
  const Precision to = run.precision;
  std::vector<Kernel> input;
  if (column && run.input_from_norm) {
    k.backward_weight.push_back(fp8_transpose(rows * in, to));
  } else if (column && run.sequence_shards > 1) {
    input = fp8_cast({rows * in / run.sequence_shards, to, false, run.fp8_scaling});
    k.backward_weight.push_back(fp8_transpose(rows * in, to));
  } else {
    input = fp8_cast({rows * in, to, true, run.fp8_scaling});
  }
  k.forward.insert(k.forward.begin() + static_cast<std::ptrdiff_t>(forward_at), input.begin(), input.end());
  for (Kernel& g : fp8_cast({rows * out, to, true, run.fp8_scaling})) k.backward_weight.push_back(std::move(g));
}

}  // namespace hpcsim::layer_support
