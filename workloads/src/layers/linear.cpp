#include "workloads/layers/linear.h"

#include "layer_support.h"
#include "models/gpu/ops/embedding.h"
#include "models/gpu/ops/gemm.h"

namespace hpcsim {

using namespace layer_support;

Linear::Linear(std::int64_t units, bool bias, bool tied, TensorSplit split)
    : units_(units), bias_(bias), tied_(tied), split_(split) {
  if (units < 1) throw std::invalid_argument("dense: units must be >= 1");
}

std::int64_t Linear::local_units(int tp) const {
  return split_ == TensorSplit::column ? (units_ + tp - 1) / tp : units_;
}

// A row-parallel layer sees its sharded input, so params(in) is already its share of the weight; its bias
// is added once after the all-reduce and kept whole.
std::int64_t Linear::params_per_rank(const Shapes& in, int tp) const {
  if (split_ != TensorSplit::column) return params(in);
  return (tied_ ? 0 : in[0].back() * local_units(tp)) + (bias_ ? local_units(tp) : 0);
}

TensorParallelTraffic Linear::tp_traffic(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  if (run.tp <= 1) return {};
  const double rows = static_cast<double>(leading_elements(in[0]) * run.batch);
  const double e = value_bytes(between_gemms(run.precision));  // outputs and input gradients (bf16 under fp8)
  if (split_ == TensorSplit::column) return {0, rows * static_cast<double>(in[0].back()) * e};
  if (split_ == TensorSplit::row) return {rows * static_cast<double>(units_) * e, 0};
  return {};
}

Shape Linear::output_shape(const Shapes& in) const {
  Shape out = single_input(in, 0, "");
  if (out.empty()) throw ShapeError("expects at least one dimension");
  out.back() = units_;
  return out;
}

std::int64_t Linear::params(const Shapes& in) const {
  output_shape(in);
  return (tied_ ? 0 : capped_product({in[0].back(), units_})) + (bias_ ? units_ : 0);
}

// A tied layer still reads its whole weight matrix, which params() counts once, at the embedding.
std::int64_t Linear::weights_read(const Shapes& in) const {
  return params(in) + (tied_ ? in[0].back() * units_ : 0);
}

double Linear::forward_flops(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  const double rows = static_cast<double>(leading_elements(in[0]) * run.batch);
  return rows * static_cast<double>(units_) * (2.0 * static_cast<double>(in[0].back()) + (bias_ ? 1 : 0));
}

double Linear::activation_bytes(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  // Under sequence parallelism a column-parallel layer keeps its rank's share of the gathered input.
  const double kept = split_ == TensorSplit::column ? 1.0 / run.sequence_shards : 1.0;
  return batch_bytes(in[0], run) * kept;
}

LayerKernels Linear::kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  const std::int64_t rows = leading_elements(in[0]) * run.batch, features = in[0].back();
  const std::int64_t units = local_units(run.tp);
  LayerKernels k;
  const GemmShape forward{rows, units, features, 1, run.precision};  // y = x W (+ b in the epilogue)
  if (run.tuned_batch > 0) {
    GemmShape tuned = forward;
    tuned.m = leading_elements(in[0]) * run.tuned_batch;
    k.forward = {gemm_choice_kernel(gpu, forward, gemm_choice(gpu, tuned))};
  } else {
    k.forward = {gemm(gpu, forward)};
  }
  // Without a bias epilogue the bias costs a pass over the output of its own (PyTorch 1.x copies it into the
  // output before a beta = 1 GEMM, or runs matmul then add_ on 3-D inputs: the same traffic either way).
  if (bias_ && !run.bias_epilogue) {
    k.forward.push_back(pointwise("bias_add", static_cast<double>(rows * units), 1, 1, 1, between_gemms(run.precision)));
  }
  k.backward_data = {gemm(gpu, {rows, features, units, 1, run.precision})};     // dx = dy W^T
  k.backward_weight = {gemm(gpu, {features, units, rows, 1, run.precision})};   // dW = x^T dy
  // Under Transformer Engine's fp8 the bias gradient is reduced inside the output gradient's cast.
  if (costs_gemm_casts(run)) {
    add_gemm_casts(k, 0, static_cast<double>(rows), static_cast<double>(features), static_cast<double>(units),
                   split_ == TensorSplit::column, run);
  } else if (bias_) {
    k.backward_weight.push_back(row_reduction(units, rows, between_gemms(run.precision))[0]);
  }
  return k;
}

Embedding::Embedding(std::int64_t vocab, std::int64_t dim, bool tied) : vocab_(vocab), dim_(dim), tied_(tied) {
  if (vocab < 1 || dim < 1) throw std::invalid_argument("embedding: vocab and dim must be >= 1");
}

Shape Embedding::output_shape(const Shapes& in) const {
  const Shape& x = single_input(in, 1, "token ids [steps]");
  return {x[0], dim_};
}

std::int64_t Embedding::params(const Shapes& in) const {
  output_shape(in);
  return tied_ ? 0 : capped_product({vocab_, dim_});
}

std::int64_t Embedding::params_per_rank(const Shapes& in, int tp) const {
  output_shape(in);
  return tied_ ? 0 : (vocab_ + tp - 1) / tp * dim_;
}

TensorParallelTraffic Embedding::tp_traffic(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  if (run.tp <= 1) return {};
  return {static_cast<double>(in[0][0] * run.batch * dim_) * value_bytes(run.precision), 0};
}

double Embedding::forward_flops(const Shapes& in, const LayerRun&) const {
  output_shape(in);
  return 0;
}

double Embedding::activation_bytes(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  return batch_elements(in[0], run) * 8;  // int64 token ids, for the scatter-add
}

LayerKernels Embedding::kernels(const GpuSpec&, const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  const EmbeddingShape s{in[0][0] * run.batch, dim_, vocab_, run.precision};
  LayerKernels k;
  k.forward = embedding_gather(s);
  k.backward_weight = embedding_scatter_add(s);
  return k;
}

PositionEmbedding::PositionEmbedding(std::int64_t max_positions) : max_positions_(max_positions) {
  if (max_positions < 1) throw std::invalid_argument("position_embedding: max_positions must be >= 1");
}

Shape PositionEmbedding::output_shape(const Shapes& in) const {
  const Shape& x = single_input(in, 2, "[steps, dim]");
  if (x[0] > max_positions_) {
    throw ShapeError(std::to_string(x[0]) + " steps exceed the " + std::to_string(max_positions_) + " learned positions");
  }
  return x;
}

std::int64_t PositionEmbedding::params(const Shapes& in) const {
  output_shape(in);
  return capped_product({max_positions_, in[0][1]});
}

double PositionEmbedding::forward_flops(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  return batch_elements(in[0], run);
}

double PositionEmbedding::activation_bytes(const Shapes& in, const LayerRun&) const {
  output_shape(in);
  return 0;
}

LayerKernels PositionEmbedding::kernels(const GpuSpec&, const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  const double n = batch_elements(in[0], run);
  LayerKernels k;
  k.forward = {pointwise("add_positions", n, 1, 2, 1, run.precision)};
  // The table's gradient: the output gradient summed over the batch.
  k.backward_weight = row_reduction(elements(in[0]), run.batch, run.precision);
  return k;
}

}  // namespace hpcsim
