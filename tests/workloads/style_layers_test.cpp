// The StyleGAN2 layers: modulated convolution (shapes, parameters, FLOPs and their kernels), the learned
// constant, FIR upsampling and minibatch standard deviation.
#include <catch2/catch.hpp>

#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/ops/op_kernel.h"
#include "workloads/layers/modulated_conv2d.h"
#include "workloads/layers/style_blocks.h"

using namespace hpcsim;

namespace {

GpuSpec a100() {
  return parse_gpu_spec(SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar("a100-sxm4-80gb", SourceLoc{}), "GPU"),
                        "a100-sxm4-80gb");
}

}  // namespace

TEST_CASE("modulated_conv2d: shapes, parameters and a convolution's multiply-adds") {
  const ModulatedConv2d conv({.filters = 512});
  const Shapes in = {{512, 64, 64}, {512}};
  CHECK(conv.output_shape(in) == Shape{512, 64, 64});
  CHECK(conv.params(in) == 512 * 512 + 512 + 512 * 512 * 9 + 512 + 1);  // affine, weight, bias, noise strength
  const LayerRun run{4, Precision::fp16};
  const double macs = 4.0 * 512 * 512 * 9 * 64 * 64;
  CHECK(conv.forward_flops(in, run) / (2 * macs) == Approx(1).epsilon(0.01));  // modulation is ~0.1 %
  const GpuSpec gpu = a100();
  const LayerKernels k = conv.kernels(gpu, in, run);
  CHECK(estimate_op(gpu, k.forward).flops == Approx(conv.forward_flops(in, run)).epsilon(0.01));
  CHECK(estimate_op(gpu, k.backward_data).flops >= 2 * macs);
  CHECK(estimate_op(gpu, k.backward_weight).flops >= 2 * macs);

  // Upsampling: a stride-2 transposed convolution, so the multiply-adds are counted at the input size.
  const ModulatedConv2d up({.filters = 256, .up = true});
  CHECK(up.output_shape({{512, 64, 64}, {512}}) == Shape{256, 128, 128});
  CHECK(up.forward_flops({{512, 64, 64}, {512}}, {1, Precision::fp32}) > 2.0 * 512 * 256 * 9 * 64 * 64);

  const ModulatedConv2d torgb({.filters = 3, .kernel = 1, .demodulate = false, .noise = false});
  CHECK(torgb.params({{32, 1024, 1024}, {512}}) == 16515);  // StyleGAN2-ADA's b1024.torgb

  CHECK_THROWS_AS(conv.output_shape({{512, 64, 64}}), ShapeError);  // no latent
  CHECK_THROWS_AS(ModulatedConv2d({.filters = 8, .kernel = 2}), std::invalid_argument);
}

TEST_CASE("style blocks: constant, upsampling and minibatch stddev") {
  const LearnedConstant c({512, 4, 4});
  CHECK(c.output_shape({{512}}) == Shape{512, 4, 4});
  CHECK(c.params({{512}}) == 8192);
  CHECK(Upsample2d().output_shape({{3, 8, 8}}) == Shape{3, 16, 16});
  CHECK(Upsample2d().params({{3, 8, 8}}) == 0);
  CHECK(MinibatchStddev().output_shape({{512, 4, 4}}) == Shape{513, 4, 4});
  CHECK_THROWS_AS(Upsample2d().output_shape({{3, 8}}), ShapeError);
  const GpuSpec gpu = a100();
  CHECK(estimate_op(gpu, Upsample2d().kernels(gpu, {{3, 512, 512}}, {8, Precision::fp16}).forward).time_s > 0);
}
