// ResNet-50/101/152 as torchvision builds them (v1.5: the stride sits on the 3x3 convolution of a
// bottleneck); batch-norm gamma/beta are parameters, running statistics are not.
#include "builders.h"

#include <array>
#include <stdexcept>

#include "workloads/layers/conv2d.h"
#include "workloads/layers/elementwise.h"
#include "workloads/layers/linear.h"
#include "workloads/layers/normalization.h"
#include "workloads/layers/pooling.h"
#include "workloads/layers/softmax.h"

namespace hpcsim::zoo {

int conv_bn(Network& net, const std::string& name, int input, std::int64_t filters, int kh, int kw, int stride,
            int pad_h, int pad_w, bool relu) {
  net.add(name, std::make_shared<Conv2d>(Conv2dConfig{.filters = filters, .kernel_h = kh, .kernel_w = kw,
                                                      .stride_h = stride, .stride_w = stride, .pad_h = pad_h,
                                                      .pad_w = pad_w, .bias = false}),
          {input});
  int out = net.add(name + "_bn", std::make_shared<BatchNorm>());
  if (relu) out = net.add(name + "_relu", std::make_shared<Activation>(ActivationKind::relu));
  return out;
}

Model resnet(const std::string& name, int depth, const ModelParams& p) {
  std::array<int, 4> blocks{};
  switch (depth) {
    case 50: blocks = {3, 4, 6, 3}; break;
    case 101: blocks = {3, 4, 23, 3}; break;
    case 152: blocks = {3, 8, 36, 3}; break;
    default: throw std::invalid_argument("resnet depth must be 50, 101 or 152");
  }
  const std::int64_t res = p.resolution.value_or(224);
  Network net(name);
  int x = net.add_input("image", {3, res, res});
  x = conv_bn(net, "conv1", x, 64, 7, 2, 3);
  x = net.add("maxpool", std::make_shared<Pool2d>(PoolConfig{.kernel_h = 3, .kernel_w = 3, .stride_h = 2,
                                                             .stride_w = 2, .pad_h = 1, .pad_w = 1}));
  std::int64_t planes = 64;
  for (int stage = 0; stage < 4; ++stage, planes *= 2) {
    for (int b = 0; b < blocks[static_cast<std::size_t>(stage)]; ++b) {
      const std::string id = "layer" + std::to_string(stage + 1) + "." + std::to_string(b);
      const int stride = (b == 0 && stage > 0) ? 2 : 1;
      int shortcut = x;
      int y = conv_bn(net, id + ".conv1", x, planes, 1, 1, 0);
      y = conv_bn(net, id + ".conv2", y, planes, 3, stride, 1);
      y = conv_bn(net, id + ".conv3", y, planes * 4, 1, 1, 0, false);
      if (b == 0) shortcut = conv_bn(net, id + ".downsample", x, planes * 4, 1, stride, 0, false);
      net.add(id + ".add", std::make_shared<Add>(), {y, shortcut});
      x = net.add(id + ".relu", std::make_shared<Activation>(ActivationKind::relu));
    }
  }
  net.add("avgpool", std::make_shared<Pool2d>(PoolConfig{.mode = PoolMode::avg, .global = true}));
  net.add("fc", std::make_shared<Linear>(1000));
  net.add("loss", std::make_shared<CrossEntropyLoss>());
  return {name, {net}};
}

}  // namespace hpcsim::zoo
