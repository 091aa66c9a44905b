// StyleGAN2 (Karras et al. 2020) as StyleGAN2-ADA's PyTorch code builds it (training/networks.py):
// mapping network of `layers` (default 8, config-f; train.py --cfg=auto uses 2) fully connected 512 -> 512
// layers, skip-connection synthesis from a learned 4x4 constant with two modulated 3x3 convolutions per
// resolution and a toRGB at each, residual discriminator (FIR blur before each downsampling convolution)
// with minibatch standard deviation.
// Channels per resolution r: min(channel_base / r, 512), channel_base = `hidden` (default 32768, config-f
// and --cfg=auto from 512 px; auto halves it to 16384 below 512 px): with 32768, 512 up to 64 px, 256 at
// 128, 128 at 256, 64 at 512, 32 at 1024.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "builders.h"
#include "workloads/layers/conv2d.h"
#include "workloads/layers/elementwise.h"
#include "workloads/layers/linear.h"
#include "workloads/layers/modulated_conv2d.h"
#include "workloads/layers/reshape.h"
#include "workloads/layers/softmax.h"
#include "workloads/layers/style_blocks.h"

namespace hpcsim::zoo {

namespace {

constexpr std::int64_t kLatent = 512;  // z and w

// "b" + std::to_string(r) trips GCC 12's false -Wrestrict warning; appending does not.
std::string tag(const char* prefix, std::int64_t n) {
  std::string s(prefix);
  s += std::to_string(n);
  return s;
}

struct Channels {
  std::int64_t base = 32768;
  std::int64_t operator()(std::int64_t res) const { return std::max<std::int64_t>(1, std::min<std::int64_t>(base / res, 512)); }
};

std::int64_t checked_resolution(const ModelParams& p) {
  const std::int64_t r = p.resolution.value_or(1024);
  if (r < 8 || r > 1024 || (r & (r - 1)) != 0) {
    throw std::invalid_argument("stylegan2: resolution must be a power of two from 8 to 1024, got " +
                                std::to_string(r));
  }
  return r;
}

int lrelu(Network& net, const std::string& name, int x) {
  return net.add(name + "_lrelu", std::make_shared<Activation>(ActivationKind::leaky_relu), {x});
}

int modconv(Network& net, const std::string& name, int x, int w, ModulatedConvConfig c) {
  const int y = net.add(name, std::make_shared<ModulatedConv2d>(c), {x, w});
  return c.noise ? lrelu(net, name, y) : y;
}

int conv(Network& net, const std::string& name, int x, std::int64_t filters, int k, int stride, bool bias = true) {
  return net.add(name, std::make_shared<Conv2d>(Conv2dConfig{.filters = filters, .kernel_h = k, .kernel_w = k,
                                                             .stride_h = stride, .stride_w = stride, .pad_h = k / 2,
                                                             .pad_w = k / 2, .bias = bias}),
                 {x});
}

Network generator(std::int64_t res, std::int64_t mapping_layers, Channels channels) {
  Network g("generator");
  int w = g.add_input("z", {kLatent});
  for (std::int64_t i = 0; i < mapping_layers; ++i) {
    const std::string id = tag("mapping.fc", i);
    w = lrelu(g, id, g.add(id, std::make_shared<Linear>(kLatent), {w}));
  }
  int x = g.add("synthesis.b4.const", std::make_shared<LearnedConstant>(Shape{channels(4), 4, 4}), {w});
  x = modconv(g, "synthesis.b4.conv1", x, w, {.filters = channels(4)});
  int img = modconv(g, "synthesis.b4.torgb", x, w, {.filters = 3, .kernel = 1, .demodulate = false, .noise = false});
  for (std::int64_t r = 8; r <= res; r *= 2) {
    const std::string id = tag("synthesis.b", r);
    x = modconv(g, id + ".conv0", x, w, {.filters = channels(r), .up = true});
    x = modconv(g, id + ".conv1", x, w, {.filters = channels(r)});
    const int rgb = modconv(g, id + ".torgb", x, w, {.filters = 3, .kernel = 1, .demodulate = false, .noise = false});
    const int up = g.add(id + ".img_up", std::make_shared<Upsample2d>(), {img});
    img = g.add(id + ".img", std::make_shared<Add>(), {up, rgb});
  }
  return g;
}

Network discriminator(std::int64_t res, Channels channels) {
  Network d("discriminator");
  int x = d.add_input("image", {3, res, res});
  const std::string fromrgb = tag("b", res) + ".fromrgb";
  x = lrelu(d, fromrgb, conv(d, fromrgb, x, channels(res), 1, 1));
  for (std::int64_t r = res; r >= 8; r /= 2) {
    const std::string id = tag("b", r);
    // conv2d_resample: a 1x1 downsampling convolution filters and decimates first, a 3x3 one blurs at
    // full resolution and then strides.
    const int skip_in = d.add(id + ".skip_down", std::make_shared<Blur2d>(2), {x});
    const int skip = conv(d, id + ".skip", skip_in, channels(r / 2), 1, 1, false);
    int y = lrelu(d, id + ".conv0", conv(d, id + ".conv0", x, channels(r), 3, 1));
    y = d.add(id + ".conv1_blur", std::make_shared<Blur2d>(1), {y});
    y = lrelu(d, id + ".conv1", conv(d, id + ".conv1", y, channels(r / 2), 3, 2));
    x = d.add(id + ".add", std::make_shared<Add>(), {skip, y});
  }
  d.add("b4.mbstd", std::make_shared<MinibatchStddev>(), {x});
  x = lrelu(d, "b4.conv", conv(d, "b4.conv", d.last(), channels(4), 3, 1));
  d.add("b4.flatten", std::make_shared<Flatten>(), {x});
  x = lrelu(d, "b4.fc", d.add("b4.fc", std::make_shared<Linear>(channels(4))));
  d.add("b4.out", std::make_shared<Linear>(1), {x});
  d.add("loss", std::make_shared<CrossEntropyLoss>());  // softplus (logistic) loss
  return d;
}

}  // namespace

Model stylegan2(const ModelParams& p) {
  const std::int64_t res = checked_resolution(p);
  const std::int64_t mapping_layers = p.layers.value_or(8);
  if (mapping_layers < 1) {
    throw std::invalid_argument("stylegan2: layers (mapping network depth) must be >= 1, got " +
                                std::to_string(mapping_layers));
  }
  const Channels channels{p.hidden.value_or(32768)};
  if (channels.base < 4) {
    throw std::invalid_argument("stylegan2: hidden (channel_base) must be >= 4, got " + std::to_string(channels.base));
  }
  Model m{"stylegan2", {generator(res, mapping_layers, channels), discriminator(res, channels)}};
  m.adversarial = true;
  return m;
}

}  // namespace hpcsim::zoo
