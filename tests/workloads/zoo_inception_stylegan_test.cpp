// Inception v3 and StyleGAN2 from the zoo: parameter counts against the published implementations,
// shapes, forward MACs, and the resolution error.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/ops/op_kernel.h"
#include "workloads/zoo/zoo.h"

using namespace hpcsim;

namespace {

Model zoo(const std::string& name, const ModelParams& p = {}) { return build_model(name, p, HPCSIM_SOURCE_CONFIG_DIR); }

}  // namespace

TEST_CASE("zoo: inception-v3 matches torchvision's Inception3 without the auxiliary classifier") {
  const Model m = zoo("inception-v3");
  const Network& net = m.network("inception-v3");
  // torchvision inception_v3: 27,161,264 parameters with AuxLogits, of which the aux head holds 3,326,696.
  CHECK(m.params() == 23834568);
  CHECK(net.nodes()[net.find("fc")].output == Shape{1000});
  CHECK(net.nodes()[net.find("Mixed_5d.concat")].output == Shape{288, 35, 35});
  CHECK(net.nodes()[net.find("Mixed_6e.concat")].output == Shape{768, 17, 17});
  CHECK(net.nodes()[net.find("Mixed_7c.concat")].output == Shape{2048, 8, 8});
  // torchvision model card: 5.71 GFLOPS (counted as multiply-adds) at 299x299; forward_flops adds about
  // 1 % of elementwise work (BN, ReLU, pooling).
  const double gmacs = net.forward_flops({1, Precision::fp32}) / 2 / 1e9;
  CHECK(gmacs == Approx(5.71).epsilon(0.03));
}

// StyleGAN2-ADA's network summary at 1024 px (github.com/NVlabs/stylegan2-ada-pytorch, printed by train.py;
// --cfg=auto at 1024 px has config-f's channels but a 2-layer mapping network): generator 28,794,124
// parameters, discriminator 29,012,513 (e.g. b1024.conv0 51,297; b4.conv 2,364,416; b4.fc 4,194,816).
// Config-f's 8-layer mapping adds 6 x (512 x 512 + 512) = 1,575,936: 30,370,060, the ~30.0M / ~29.0M
// quoted for config-f.
TEST_CASE("zoo: stylegan2 config-f parameter counts at 1024 px") {
  const Model f = zoo("stylegan2");
  CHECK(f.network("generator").params() == 30370060);
  CHECK(f.network("discriminator").params() == 29012513);
  const Model ada = zoo("stylegan2", {.layers = 2});
  CHECK(ada.network("generator").params() == 28794124);
  const Network& g = f.network("generator");
  CHECK(g.params() - ada.network("generator").params() == 6 * (512 * 512 + 512));
  // Per-layer figures of the same printout.
  CHECK(g.nodes()[g.find("synthesis.b4.conv1")].layer->params(g.nodes()[g.find("synthesis.b4.conv1")].input_shapes) ==
        2622465);
  const LayerNode& conv0 = g.nodes()[g.find("synthesis.b1024.conv0")];
  CHECK(conv0.layer->params(conv0.input_shapes) == 51297);
  const LayerNode& torgb = g.nodes()[g.find("synthesis.b1024.torgb")];
  CHECK(torgb.layer->params(torgb.input_shapes) == 16515);
}

TEST_CASE("zoo: stylegan2 shapes from 256 to 1024 px") {
  for (const std::int64_t res : {256, 512, 1024}) {
    const Model m = zoo("stylegan2", {.resolution = res});
    const Network& g = m.network("generator");
    CHECK(g.output_shape() == Shape{3, res, res});
    CHECK(g.nodes()[g.find("synthesis.b" + std::to_string(res) + ".conv1")].output == Shape{32768 / res, res, res});
    const Network& d = m.network("discriminator");
    CHECK(d.nodes()[d.find("image")].output == Shape{3, res, res});
    CHECK(d.nodes()[d.find("b4.mbstd")].output == Shape{513, 4, 4});
    CHECK(d.nodes()[d.find("b4.out")].output == Shape{1});
  }
  // Lower resolutions drop the high-resolution blocks only: 256 px keeps b4..b256.
  const std::int64_t g256 = zoo("stylegan2", {.resolution = 256}).network("generator").params();
  const std::int64_t g512 = zoo("stylegan2", {.resolution = 512}).network("generator").params();
  CHECK(g512 - g256 == 139457 + 69761 + 33027);  // b512.conv0, conv1, torgb in the printout
  // The synthesis network's forward work grows with the pixel count of its top blocks.
  const LayerRun run{1, Precision::fp32};
  CHECK(zoo("stylegan2").network("generator").forward_flops(run) >
        zoo("stylegan2", {.resolution = 512}).network("generator").forward_flops(run));
}

TEST_CASE("zoo: stylegan2 rejects unsupported resolutions, naming the parameter") {
  for (const std::int64_t res : {4, 300, 768, 2048}) {
    try {
      zoo("stylegan2", {.resolution = res});
      FAIL("resolution " << res << " accepted");
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      CHECK(msg.find("resolution") != std::string::npos);
      CHECK(msg.find(std::to_string(res)) != std::string::npos);
    }
  }
  CHECK_THROWS_AS(zoo("stylegan2", {.layers = 0}), std::invalid_argument);
}

TEST_CASE("zoo: every inception-v3 and stylegan2 layer issues kernels that the GPU model can time") {
  const GpuSpec gpu = parse_gpu_spec(
      SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar("a100-sxm4-80gb", SourceLoc{}), "GPU"), "a100-sxm4-80gb");
  const LayerRun run{4, Precision::fp16};
  for (const Model& m : {zoo("inception-v3"), zoo("stylegan2")}) {
    for (const Network& net : m.networks) {
      double forward_s = 0;
      for (const LayerNode& n : net.nodes()) {
        if (!n.layer) continue;
        const LayerKernels k = n.layer->kernels(gpu, n.input_shapes, run);
        if (!k.forward.empty()) forward_s += estimate_op(gpu, k.forward).time_s;
      }
      INFO(m.name << " " << net.name());
      CHECK(forward_s > 0);
      CHECK(net.activation_bytes(run) > 0);
    }
  }
}
