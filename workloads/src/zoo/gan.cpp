// DCGAN (Radford et al. 2016, with the PyTorch example's sizes: z 100, 64 base filters, 4x4 kernels,
// no biases, batch norm except at the generator output and the discriminator input).
#include <stdexcept>

#include "builders.h"
#include "workloads/layers/conv2d.h"
#include "workloads/layers/elementwise.h"
#include "workloads/layers/normalization.h"
#include "workloads/layers/reshape.h"
#include "workloads/layers/softmax.h"

namespace hpcsim::zoo {

namespace {

Conv2dConfig k4(std::int64_t filters, int stride, int pad) {
  return {.filters = filters, .kernel_h = 4, .kernel_w = 4, .stride_h = stride, .stride_w = stride, .pad_h = pad,
          .pad_w = pad, .bias = false};
}

int doublings(std::int64_t resolution) {
  int n = 0;
  for (std::int64_t r = resolution; r > 4; r /= 2) {
    if (r % 2 != 0) break;
    ++n;
  }
  if (resolution < 8 || (std::int64_t{4} << n) != resolution) {
    throw std::invalid_argument("dcgan: resolution must be a power of two >= 8, got " + std::to_string(resolution));
  }
  return n;
}

}  // namespace

Model dcgan(const ModelParams& p) {
  const std::int64_t res = p.resolution.value_or(64);
  const int ups = doublings(res);  // 64 px: 4 -> 8 -> 16 -> 32 -> 64
  const std::int64_t top = 64LL << (ups - 1);  // 512 filters at 4x4 for 64 px

  Network g("generator");
  g.add_input("z", {100, 1, 1});
  std::int64_t f = top;
  g.add("convT0", std::make_shared<Conv2dTranspose>(k4(f, 1, 0)));
  for (int i = 1; i <= ups; ++i) {
    g.add("bn" + std::to_string(i - 1), std::make_shared<BatchNorm>());
    g.add("relu" + std::to_string(i - 1), std::make_shared<Activation>(ActivationKind::relu));
    f = i == ups ? 3 : f / 2;
    g.add("convT" + std::to_string(i), std::make_shared<Conv2dTranspose>(k4(f, 2, 1)));
  }
  g.add("tanh", std::make_shared<Activation>(ActivationKind::tanh));

  Network d("discriminator");
  d.add_input("image", {3, res, res});
  f = 64;
  for (int i = 0; i < ups; ++i, f *= 2) {
    d.add("conv" + std::to_string(i), std::make_shared<Conv2d>(k4(f, 2, 1)));
    if (i > 0) d.add("bn" + std::to_string(i), std::make_shared<BatchNorm>());
    d.add("lrelu" + std::to_string(i), std::make_shared<Activation>(ActivationKind::leaky_relu));
  }
  d.add("conv_out", std::make_shared<Conv2d>(k4(1, 1, 0)));
  d.add("flatten", std::make_shared<Flatten>());
  d.add("loss", std::make_shared<CrossEntropyLoss>());  // sigmoid + binary cross-entropy
  Model m{"dcgan", {g, d}};
  m.adversarial = true;
  return m;
}

}  // namespace hpcsim::zoo
