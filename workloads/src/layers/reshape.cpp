#include "workloads/layers/reshape.h"

#include <stdexcept>

#include "layer_support.h"

namespace hpcsim {

using namespace layer_support;

Shape Concat::output_shape(const Shapes& in) const {
  if (in.size() < 2) throw ShapeError("concatenates two or more inputs, got " + std::to_string(in.size()));
  const std::size_t rank = in[0].size();
  if (rank == 0) throw ShapeError("cannot concatenate scalars");
  const std::size_t axis = axis_ < 0 ? rank - 1 : static_cast<std::size_t>(axis_);
  if (axis >= rank) throw ShapeError("axis " + std::to_string(axis_) + " is outside " + to_string(in[0]));
  Shape out = in[0];
  out[axis] = 0;
  for (const Shape& s : in) {
    Shape a = s, b = in[0];
    if (a.size() != rank) throw ShapeError("inputs differ in rank: " + to_string(in[0]) + " and " + to_string(s));
    a[axis] = b[axis] = 0;
    if (a != b) {
      throw ShapeError("inputs differ outside axis " + std::to_string(axis) + ": " + to_string(in[0]) + " and " + to_string(s));
    }
    out[axis] += s[axis];
  }
  return out;
}

double Concat::forward_flops(const Shapes& in, const LayerRun&) const {
  output_shape(in);
  return 0;
}

double Concat::activation_bytes(const Shapes& in, const LayerRun&) const {
  output_shape(in);
  return 0;
}

LayerKernels Concat::kernels(const GpuSpec&, const Shapes& in, const LayerRun& run) const {
  const double bytes = batch_bytes(output_shape(in), run);
  LayerKernels k;
  k.forward = copy_op(bytes);        // each input copied into its slice
  k.backward_data = copy_op(bytes);  // and each gradient slice out again
  return k;
}

Shape Flatten::output_shape(const Shapes& in) const { return {elements(single_input(in, 0, ""))}; }

double Flatten::forward_flops(const Shapes& in, const LayerRun&) const {
  output_shape(in);
  return 0;
}

double Flatten::activation_bytes(const Shapes& in, const LayerRun&) const {
  output_shape(in);
  return 0;
}

LayerKernels Flatten::kernels(const GpuSpec&, const Shapes& in, const LayerRun&) const {
  output_shape(in);
  return {};
}

Shape FirstToken::output_shape(const Shapes& in) const { return {single_input(in, 2, "[steps, dim]")[1]}; }

double FirstToken::forward_flops(const Shapes& in, const LayerRun&) const {
  output_shape(in);
  return 0;
}

double FirstToken::activation_bytes(const Shapes& in, const LayerRun&) const {
  output_shape(in);
  return 0;
}

LayerKernels FirstToken::kernels(const GpuSpec&, const Shapes& in, const LayerRun& run) const {
  const double bytes = batch_bytes(output_shape(in), run);
  LayerKernels k;
  k.forward = copy_op(bytes);
  k.backward_data = copy_op(bytes);
  return k;
}

GatherPositions::GatherPositions(std::int64_t count) : count_(count) {
  if (count < 1) throw std::invalid_argument("gather_positions: count must be >= 1");
}

Shape GatherPositions::output_shape(const Shapes& in) const {
  const Shape& x = single_input(in, 2, "[steps, dim]");
  if (count_ > x[0]) {
    throw ShapeError("gathers " + std::to_string(count_) + " positions of a " + std::to_string(x[0]) + "-step input");
  }
  return {count_, x[1]};
}

double GatherPositions::forward_flops(const Shapes& in, const LayerRun&) const {
  output_shape(in);
  return 0;
}

double GatherPositions::activation_bytes(const Shapes& in, const LayerRun&) const {
  output_shape(in);
  return 0;  // only the positions (integers, negligible)
}

LayerKernels GatherPositions::kernels(const GpuSpec&, const Shapes& in, const LayerRun& run) const {
  const double picked = batch_elements(output_shape(in), run), all = batch_elements(in[0], run);
  const double e = value_bytes(run.precision);
  LayerKernels k;
  k.forward = {elementwise_kernel("gather_positions", picked, 0, {{e, false}, {e, true}})};
  k.backward_data = {elementwise_kernel("gather_backward_zeros", all, 0, {{e, true}}),
                     elementwise_kernel("gather_backward_scatter", picked, 0, {{e, false}, {e, true}})};
  return k;
}

}  // namespace hpcsim
