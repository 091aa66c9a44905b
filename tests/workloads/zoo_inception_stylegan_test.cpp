// Inception v3 and StyleGAN2 from the zoo: parameter counts against the published implementations,
// shapes, forward MACs, and the resolution error.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

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
