#include "workloads/layers/style_blocks.h"

#include "layer_support.h"

namespace hpcsim {

using namespace layer_support;

namespace {

constexpr double kFirFlops = 32;  // 4x4 filter: 16 multiply-adds per output value

}  // namespace

LearnedConstant::LearnedConstant(Shape shape) : shape_(std::move(shape)) {
  for (std::int64_t d : shape_) {
    if (d < 1) throw std::invalid_argument("learned_constant: shape " + to_string(shape_) + " has an empty dimension");
  }
}

Shape LearnedConstant::output_shape(const Shapes& in) const {
  single_input(in, 0, "");
  return shape_;
}

std::int64_t LearnedConstant::params(const Shapes& in) const {
  output_shape(in);
  return elements(shape_);
}

double LearnedConstant::forward_flops(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  (void)run;
  return 0;
}

double LearnedConstant::activation_bytes(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  (void)run;
  return 0;
}

LayerKernels LearnedConstant::kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const {
  (void)gpu;
  output_shape(in);
  LayerKernels k;
  // Forward: the copy to every sample; weight gradient: the sum over the batch.
  k.forward = {pointwise("repeat_constant", batch_elements(shape_, run), 0, 0, 1, run.precision)};
  k.backward_weight = row_reduction(elements(shape_), run.batch, run.precision);
  return k;
}

Shape Upsample2d::output_shape(const Shapes& in) const {
  const Shape& x = single_input(in, 3, "[channels, height, width]");
  return {x[0], 2 * x[1], 2 * x[2]};
}

double Upsample2d::forward_flops(const Shapes& in, const LayerRun& run) const {
  return kFirFlops * batch_elements(output_shape(in), run);
}

double Upsample2d::activation_bytes(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  (void)run;
  return 0;  // linear: the backward pass needs no saved values
}

LayerKernels Upsample2d::kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const {
  (void)gpu;
  const double outputs = batch_elements(output_shape(in), run);
  LayerKernels k;
  k.forward = {pointwise("upsample_fir", outputs, kFirFlops, 1, 1, run.precision)};
  k.backward_data = {pointwise("upsample_fir_grad", outputs, kFirFlops, 1, 1, run.precision)};
  return k;
}

Blur2d::Blur2d(int down) : down_(down) {
  if (down_ != 1 && down_ != 2) throw std::invalid_argument("blur2d: down must be 1 or 2");
}

Shape Blur2d::output_shape(const Shapes& in) const {
  const Shape& x = single_input(in, 3, "[channels, height, width]");
  if (x[1] % down_ != 0 || x[2] % down_ != 0) throw ShapeError("blur2d: height and width must divide by down");
  return {x[0], x[1] / down_, x[2] / down_};
}

double Blur2d::forward_flops(const Shapes& in, const LayerRun& run) const {
  return kFirFlops * batch_elements(output_shape(in), run);
}

double Blur2d::activation_bytes(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  (void)run;
  return 0;  // linear
}

LayerKernels Blur2d::kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const {
  (void)gpu;
  const double outputs = batch_elements(output_shape(in), run);
  const double inputs = batch_elements(in[0], run);
  LayerKernels k;
  k.forward = {pointwise(down_ == 1 ? "fir_blur" : "fir_downsample", outputs, kFirFlops, 1, 1, run.precision)};
  k.backward_data = {pointwise(down_ == 1 ? "fir_blur_grad" : "fir_downsample_grad", inputs, kFirFlops / (down_ * down_),
                               1, 1, run.precision)};
  return k;
}

Shape MinibatchStddev::output_shape(const Shapes& in) const {
  const Shape& x = single_input(in, 3, "[channels, height, width]");
  return {x[0] + 1, x[1], x[2]};
}

double MinibatchStddev::forward_flops(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  return 4 * batch_elements(in[0], run);  // mean, deviation, square, average
}

double MinibatchStddev::activation_bytes(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  return batch_bytes(in[0], run);
}

LayerKernels MinibatchStddev::kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const {
  (void)gpu;
  const double inputs = batch_elements(in[0], run);
  const double outputs = batch_elements(output_shape(in), run);
  LayerKernels k;
  k.forward = {pointwise("minibatch_stddev", inputs, 4, 1, 0, run.precision),
               pointwise("concat_stddev", outputs, 0, 1, 1, run.precision)};
  k.backward_data = {pointwise("minibatch_stddev_grad", inputs, 6, 2, 1, run.precision)};
  return k;
}

}  // namespace hpcsim
