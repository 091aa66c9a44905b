// GoogLeNet (Inception v1, Szegedy et al. 2015) as torchvision builds it: every convolution followed by
// batch norm, the "5x5" branch with a 3x3 kernel (torchvision's known deviation), no auxiliary heads.
#include <array>

#include "builders.h"
#include "workloads/layers/elementwise.h"
#include "workloads/layers/linear.h"
#include "workloads/layers/pooling.h"
#include "workloads/layers/reshape.h"
#include "workloads/layers/softmax.h"

namespace hpcsim::zoo {

namespace {

std::shared_ptr<Pool2d> max_pool(int k, int stride, int pad) {
  return std::make_shared<Pool2d>(PoolConfig{.kernel_h = k, .kernel_w = k, .stride_h = stride, .stride_w = stride,
                                             .pad_h = pad, .pad_w = pad, .ceil_mode = true});
}

// ch1x1, ch3x3red, ch3x3, ch5x5red, ch5x5, pool_proj
int inception(Network& net, const std::string& id, int x, const std::array<std::int64_t, 6>& c) {
  const int b1 = conv_bn(net, id + ".b1", x, c[0], 1, 1, 0);
  int b2 = conv_bn(net, id + ".b2a", x, c[1], 1, 1, 0);
  b2 = conv_bn(net, id + ".b2b", b2, c[2], 3, 1, 1);
  int b3 = conv_bn(net, id + ".b3a", x, c[3], 1, 1, 0);
  b3 = conv_bn(net, id + ".b3b", b3, c[4], 3, 1, 1);
  net.add(id + ".pool", max_pool(3, 1, 1), {x});
  const int b4 = conv_bn(net, id + ".b4", net.last(), c[5], 1, 1, 0);
  return net.add(id + ".concat", std::make_shared<Concat>(0), {b1, b2, b3, b4});
}

}  // namespace

Model googlenet(const ModelParams& p) {
  const std::int64_t res = p.resolution.value_or(224);
  Network net("googlenet");
  int x = net.add_input("image", {3, res, res});
  x = conv_bn(net, "conv1", x, 64, 7, 2, 3);
  net.add("pool1", max_pool(3, 2, 0));
  x = conv_bn(net, "conv2", net.last(), 64, 1, 1, 0);
  x = conv_bn(net, "conv3", x, 192, 3, 1, 1);
  x = net.add("pool2", max_pool(3, 2, 0));
  x = inception(net, "3a", x, {64, 96, 128, 16, 32, 32});
  x = inception(net, "3b", x, {128, 128, 192, 32, 96, 64});
  x = net.add("pool3", max_pool(3, 2, 0));
  x = inception(net, "4a", x, {192, 96, 208, 16, 48, 64});
  x = inception(net, "4b", x, {160, 112, 224, 24, 64, 64});
  x = inception(net, "4c", x, {128, 128, 256, 24, 64, 64});
  x = inception(net, "4d", x, {112, 144, 288, 32, 64, 64});
  x = inception(net, "4e", x, {256, 160, 320, 32, 128, 128});
  x = net.add("pool4", max_pool(2, 2, 0));
  x = inception(net, "5a", x, {256, 160, 320, 32, 128, 128});
  x = inception(net, "5b", x, {384, 192, 384, 48, 128, 128});
  net.add("avgpool", std::make_shared<Pool2d>(PoolConfig{.mode = PoolMode::avg, .global = true}));
  net.add("dropout", std::make_shared<Dropout>(0.2));
  net.add("fc", std::make_shared<Linear>(1000));
  net.add("loss", std::make_shared<CrossEntropyLoss>());
  return {"googlenet", {net}};
}

}  // namespace hpcsim::zoo
