#include "workloads/layers/linear.h"

#include "layer_support.h"
#include "models/gpu/ops/embedding.h"
#include "models/gpu/ops/gemm.h"

namespace hpcsim {

using namespace layer_support;

Linear::Linear(std::int64_t units, bool bias, bool tied) : units_(units), bias_(bias), tied_(tied) {
  if (units < 1) throw std::invalid_argument("dense: units must be >= 1");
}

Shape Linear::output_shape(const Shapes& in) const {
  Shape out = single_input(in, 0, "");
  if (out.empty()) throw ShapeError("expects at least one dimension");
  out.back() = units_;
  return out;
}

std::int64_t Linear::params(const Shapes& in) const {
  output_shape(in);
  return (tied_ ? 0 : in[0].back() * units_) + (bias_ ? units_ : 0);
}

double Linear::forward_flops(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  const double rows = static_cast<double>(leading_elements(in[0]) * run.batch);
  return rows * static_cast<double>(units_) * (2.0 * static_cast<double>(in[0].back()) + (bias_ ? 1 : 0));
}

double Linear::activation_bytes(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  return batch_bytes(in[0], run);
}

LayerKernels Linear::kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  const std::int64_t rows = leading_elements(in[0]) * run.batch, features = in[0].back();
  LayerKernels k;
  k.forward = {gemm(gpu, {rows, units_, features, 1, run.precision})};           // y = x W (+ b in the epilogue)
  k.backward_data = {gemm(gpu, {rows, features, units_, 1, run.precision})};     // dx = dy W^T
  k.backward_weight = {gemm(gpu, {features, units_, rows, 1, run.precision})};   // dW = x^T dy
  if (bias_) k.backward_weight.push_back(row_reduction(units_, rows, run.precision)[0]);
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
  return tied_ ? 0 : vocab_ * dim_;
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
  return max_positions_ * in[0][1];
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
