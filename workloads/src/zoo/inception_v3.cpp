// Inception v3 (Szegedy et al. 2016) as torchvision's Inception3 builds it at 299x299: every convolution is
// BasicConv2d (conv without bias, batch norm, ReLU), average-pool branches pad with zeros, and the
// auxiliary classifier is left out (aux_logits=False; it only runs in training and adds 3,326,696
// parameters: torchvision's 27,161,264 with it, 23,834,568 without).
#include "builders.h"
#include "workloads/layers/elementwise.h"
#include "workloads/layers/linear.h"
#include "workloads/layers/pooling.h"
#include "workloads/layers/reshape.h"
#include "workloads/layers/softmax.h"

namespace hpcsim::zoo {

namespace {

int pool(Network& net, const std::string& name, int x, PoolMode mode, int stride, int pad) {
  return net.add(name, std::make_shared<Pool2d>(PoolConfig{.mode = mode, .kernel_h = 3, .kernel_w = 3, .stride_h = stride,
                                                           .stride_w = stride, .pad_h = pad, .pad_w = pad}),
                 {x});
}

// A 1x7 then 7x1 pair (or 7x1 then 1x7): the factorized 7x7 of the 17x17 blocks.
int conv_1x7(Network& net, const std::string& name, int x, std::int64_t filters) {
  return conv_bn(net, name, x, filters, 1, 7, 1, 0, 3);
}
int conv_7x1(Network& net, const std::string& name, int x, std::int64_t filters) {
  return conv_bn(net, name, x, filters, 7, 1, 1, 3, 0);
}

int concat(Network& net, const std::string& name, std::vector<int> parts) {
  return net.add(name, std::make_shared<Concat>(0), std::move(parts));
}

// 35x35 block (InceptionA).
int block_a(Network& net, const std::string& id, int x, std::int64_t pool_features) {
  const int b1 = conv_bn(net, id + ".branch1x1", x, 64, 1, 1, 0);
  int b5 = conv_bn(net, id + ".branch5x5_1", x, 48, 1, 1, 0);
  b5 = conv_bn(net, id + ".branch5x5_2", b5, 64, 5, 1, 2);
  int b3 = conv_bn(net, id + ".branch3x3dbl_1", x, 64, 1, 1, 0);
  b3 = conv_bn(net, id + ".branch3x3dbl_2", b3, 96, 3, 1, 1);
  b3 = conv_bn(net, id + ".branch3x3dbl_3", b3, 96, 3, 1, 1);
  const int p = conv_bn(net, id + ".branch_pool", pool(net, id + ".avgpool", x, PoolMode::avg, 1, 1), pool_features, 1, 1, 0);
  return concat(net, id + ".concat", {b1, b5, b3, p});
}

// 35x35 -> 17x17 reduction (InceptionB).
int block_b(Network& net, const std::string& id, int x) {
  const int b3 = conv_bn(net, id + ".branch3x3", x, 384, 3, 2, 0);
  int d = conv_bn(net, id + ".branch3x3dbl_1", x, 64, 1, 1, 0);
  d = conv_bn(net, id + ".branch3x3dbl_2", d, 96, 3, 1, 1);
  d = conv_bn(net, id + ".branch3x3dbl_3", d, 96, 3, 2, 0);
  return concat(net, id + ".concat", {b3, d, pool(net, id + ".maxpool", x, PoolMode::max, 2, 0)});
}

// 17x17 block with factorized 7x7 convolutions of c7 channels (InceptionC).
int block_c(Network& net, const std::string& id, int x, std::int64_t c7) {
  const int b1 = conv_bn(net, id + ".branch1x1", x, 192, 1, 1, 0);
  int b7 = conv_bn(net, id + ".branch7x7_1", x, c7, 1, 1, 0);
  b7 = conv_1x7(net, id + ".branch7x7_2", b7, c7);
  b7 = conv_7x1(net, id + ".branch7x7_3", b7, 192);
  int d = conv_bn(net, id + ".branch7x7dbl_1", x, c7, 1, 1, 0);
  d = conv_7x1(net, id + ".branch7x7dbl_2", d, c7);
  d = conv_1x7(net, id + ".branch7x7dbl_3", d, c7);
  d = conv_7x1(net, id + ".branch7x7dbl_4", d, c7);
  d = conv_1x7(net, id + ".branch7x7dbl_5", d, 192);
  const int p = conv_bn(net, id + ".branch_pool", pool(net, id + ".avgpool", x, PoolMode::avg, 1, 1), 192, 1, 1, 0);
  return concat(net, id + ".concat", {b1, b7, d, p});
}

// 17x17 -> 8x8 reduction (InceptionD).
int block_d(Network& net, const std::string& id, int x) {
  int b3 = conv_bn(net, id + ".branch3x3_1", x, 192, 1, 1, 0);
  b3 = conv_bn(net, id + ".branch3x3_2", b3, 320, 3, 2, 0);
  int b7 = conv_bn(net, id + ".branch7x7x3_1", x, 192, 1, 1, 0);
  b7 = conv_1x7(net, id + ".branch7x7x3_2", b7, 192);
  b7 = conv_7x1(net, id + ".branch7x7x3_3", b7, 192);
  b7 = conv_bn(net, id + ".branch7x7x3_4", b7, 192, 3, 2, 0);
  return concat(net, id + ".concat", {b3, b7, pool(net, id + ".maxpool", x, PoolMode::max, 2, 0)});
}

// 1x3 and 3x1 convolutions side by side on one input, concatenated (the widened 8x8 branches).
int split_1x3_3x1(Network& net, const std::string& name, int x) {
  const int a = conv_bn(net, name + "a", x, 384, 1, 3, 1, 0, 1);
  const int b = conv_bn(net, name + "b", x, 384, 3, 1, 1, 1, 0);
  return concat(net, name + ".concat", {a, b});
}

// 8x8 block (InceptionE).
int block_e(Network& net, const std::string& id, int x) {
  const int b1 = conv_bn(net, id + ".branch1x1", x, 320, 1, 1, 0);
  const int b3 = split_1x3_3x1(net, id + ".branch3x3_2", conv_bn(net, id + ".branch3x3_1", x, 384, 1, 1, 0));
  int d = conv_bn(net, id + ".branch3x3dbl_1", x, 448, 1, 1, 0);
  d = split_1x3_3x1(net, id + ".branch3x3dbl_3", conv_bn(net, id + ".branch3x3dbl_2", d, 384, 3, 1, 1));
  const int p = conv_bn(net, id + ".branch_pool", pool(net, id + ".avgpool", x, PoolMode::avg, 1, 1), 192, 1, 1, 0);
  return concat(net, id + ".concat", {b1, b3, d, p});
}

}  // namespace

Model inception_v3(const ModelParams& p) {
  const std::int64_t res = p.resolution.value_or(299);
  Network net("inception-v3");
  int x = net.add_input("image", {3, res, res});
  x = conv_bn(net, "Conv2d_1a_3x3", x, 32, 3, 2, 0);
  x = conv_bn(net, "Conv2d_2a_3x3", x, 32, 3, 1, 0);
  x = conv_bn(net, "Conv2d_2b_3x3", x, 64, 3, 1, 1);
  x = pool(net, "maxpool1", x, PoolMode::max, 2, 0);
  x = conv_bn(net, "Conv2d_3b_1x1", x, 80, 1, 1, 0);
  x = conv_bn(net, "Conv2d_4a_3x3", x, 192, 3, 1, 0);
  x = pool(net, "maxpool2", x, PoolMode::max, 2, 0);
  x = block_a(net, "Mixed_5b", x, 32);
  x = block_a(net, "Mixed_5c", x, 64);
  x = block_a(net, "Mixed_5d", x, 64);
  x = block_b(net, "Mixed_6a", x);
  x = block_c(net, "Mixed_6b", x, 128);
  x = block_c(net, "Mixed_6c", x, 160);
  x = block_c(net, "Mixed_6d", x, 160);
  x = block_c(net, "Mixed_6e", x, 192);
  x = block_d(net, "Mixed_7a", x);
  x = block_e(net, "Mixed_7b", x);
  x = block_e(net, "Mixed_7c", x);
  net.add("avgpool", std::make_shared<Pool2d>(PoolConfig{.mode = PoolMode::avg, .global = true}), {x});
  net.add("dropout", std::make_shared<Dropout>(0.5));
  net.add("fc", std::make_shared<Linear>(1000));
  net.add("loss", std::make_shared<CrossEntropyLoss>());
  return {"inception-v3", {net}};
}

}  // namespace hpcsim::zoo
