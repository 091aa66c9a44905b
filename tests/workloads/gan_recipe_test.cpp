// StyleGAN2-ADA's training recipe in the GAN step: lazy R1 and path-length regularization as extra
// phases of a lazy-regularization cycle, fp16 only in the highest-resolution blocks, ADA augmentation and
// G_ema; the workload.gan scenario keys; the zoo's auto-config channels and 128 px.
#include <catch2/catch.hpp>

#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/layers/style_blocks.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/training/model_training_step.h"
#include "workloads/scenario/simulate_scenario.h"
#include "workloads/zoo/zoo.h"

using namespace hpcsim;

namespace {

TrainingScenario gan_scenario(const std::string& workload_extra, int resolution = 256, int gpus = 1) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const std::string yaml = "cluster: {node: dgx-1v-16gb, nodes: 1, gpus_per_node: " + std::to_string(gpus) +
                           "}\n"
                           "workload: {model: stylegan2, resolution: " +
                           std::to_string(resolution) +
                           ", layers: 2, hidden: 16384, batch_per_gpu: 8, precision: fp16, optimizer: adam,"
                           " framework: pytorch" +
                           workload_extra + "}\n";
  return parse_training_scenario(parse_config_text(yaml, "gan-test.yaml"), catalog, "gan-test");
}

const std::string kPlain = ", gan: {r1_interval: 0, pl_interval: 0, fp16_resolutions: -1, augment: false, ema: false}";

}  // namespace

TEST_CASE("stylegan2 scenarios default to StyleGAN2-ADA's recipe: workload.gan overrides it", "[gan]") {
  const TrainingScenario s = gan_scenario("");
  CHECK(s.workload.gan.r1_interval == 16);
  CHECK(s.workload.gan.pl_interval == 4);
  CHECK(s.workload.gan.pl_batch_shrink == 2);
  CHECK(s.workload.gan.fp16_resolutions == 4);
  CHECK(s.workload.gan.augment);
  CHECK(s.workload.gan.weight_average);
  CHECK(training_step_config(s).gan.r1_interval == 16);
  const TrainingScenario plain = gan_scenario(kPlain);
  CHECK_FALSE(plain.workload.gan.regularized());
  CHECK(plain.workload.gan.fp16_resolutions == -1);

  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const std::string one_net =
      "cluster: {node: dgx-a100-80gb, nodes: 1}\n"
      "workload: {model: resnet50, batch_per_gpu: 8, precision: fp16, optimizer: sgd, gan: {r1_interval: 16}}\n";
  CHECK_THROWS_AS(parse_training_scenario(parse_config_text(one_net, "x.yaml"), catalog, "x"), ConfigError);
  CHECK_THROWS_AS(gan_scenario(", gan: {r1_interval: -1}"), ConfigError);
  CHECK_THROWS_AS(gan_scenario(", gan: {r1_intervall: 16}"), ConfigError);
}

TEST_CASE("A regularized GAN step is one lazy-regularization cycle with extra double-backward phases", "[gan]") {
  const TrainingScenario base = gan_scenario(kPlain);
  const TrainingStepReport plain = simulate_scenario(base);
  // Only the regularization: the step becomes 16 iterations (lcm of 16 and 4).
  const TrainingScenario reg = gan_scenario(", gan: {fp16_resolutions: -1, augment: false, ema: false}");
  const TrainingStepReport r = simulate_scenario(reg);
  CHECK(r.result.samples_per_s * r.result.step_time_s == Approx(16 * 8));
  CHECK(plain.result.samples_per_s * plain.result.step_time_s == Approx(8));
  // 16 iterations take more than 16 plain ones: 4 path-length and 1 R1 phase on top.
  CHECK(r.result.step_time_s > 16 * plain.result.step_time_s * 1.05);
  CHECK(r.model_flops > 16 * plain.model_flops);
  CHECK(r.result.samples_per_s < plain.result.samples_per_s);

  // Path length every iteration costs more than every 4th; R1 every iteration more than every 16th.
  const TrainingStepReport pl1 = simulate_scenario(gan_scenario(", gan: {r1_interval: 0, pl_interval: 1, fp16_resolutions: -1, augment: false, ema: false}"));
  const TrainingStepReport pl4 = simulate_scenario(gan_scenario(", gan: {r1_interval: 0, pl_interval: 4, fp16_resolutions: -1, augment: false, ema: false}"));
  CHECK(pl1.result.samples_per_s < pl4.result.samples_per_s);
  CHECK(pl4.result.samples_per_s < plain.result.samples_per_s);
  // Timeline: the phases appear by name.
  const TrainingStepReport traced = simulate_scenario(reg, true);
  int pl = 0, r1 = 0, main = 0;
  for (const auto& op : traced.timeline) {
    pl += op.name.rfind("g_reg.double_backward", 0) == 0;
    r1 += op.name.rfind("d_reg.double_backward", 0) == 0;
    main += op.name.rfind("d_main.d_backward_real", 0) == 0;
  }
  CHECK(pl == 4);
  CHECK(r1 == 1);
  CHECK(main == 16);
}

TEST_CASE("fp16 only in the highest-resolution blocks: between all-fp16 and all-fp32", "[gan]") {
  const std::string rest = ", r1_interval: 0, pl_interval: 0, augment: false, ema: false}";
  const double all16 = simulate_scenario(gan_scenario(", gan: {fp16_resolutions: -1" + rest, 512)).result.step_time_s;
  const double four = simulate_scenario(gan_scenario(", gan: {fp16_resolutions: 4" + rest, 512)).result.step_time_s;
  const double none = simulate_scenario(gan_scenario(", gan: {fp16_resolutions: 0" + rest, 512)).result.step_time_s;
  CHECK(four > all16);
  CHECK(none > four);
  // fp32 parameters: the 8-GPU all-reduce carries 4 bytes per parameter whatever the block precision.
}

TEST_CASE("ADA augmentation and G_ema add their kernels to the step", "[gan]") {
  const std::string rest = ", r1_interval: 0, pl_interval: 0, fp16_resolutions: -1";
  const double plain = simulate_scenario(gan_scenario(kPlain)).result.step_time_s;
  const double aug = simulate_scenario(gan_scenario(", gan: {augment: true, ema: false" + rest + "}")).result.step_time_s;
  const double ema = simulate_scenario(gan_scenario(", gan: {augment: false, ema: true" + rest + "}")).result.step_time_s;
  CHECK(aug > plain);
  CHECK(ema > plain);
  const TrainingStepReport traced = simulate_scenario(gan_scenario(", gan: {augment: true, ema: true" + rest + "}"), true);
  int augments = 0, emas = 0;
  for (const auto& op : traced.timeline) {
    augments += op.name.find("augment") != std::string::npos;
    emas += op.name.rfind("g_ema", 0) == 0;
  }
  CHECK(augments == 3);  // the fakes of the G update, fakes and reals of the D update
  CHECK(emas == 1);
}

TEST_CASE("zoo stylegan2: 128 px and the auto config's channel_base", "[gan]") {
  const Model m = build_model("stylegan2", {.resolution = 128, .layers = 2, .hidden = 16384}, HPCSIM_SOURCE_CONFIG_DIR);
  const Network& g = m.network("generator");
  CHECK(g.output_shape() == Shape{3, 128, 128});
  // channels_dict = {res: min(16384 // res, 512)}: 512 up to 32 px, 256 at 64, 128 at 128.
  CHECK(g.nodes()[g.find("synthesis.b128.conv1")].output == Shape{128, 128, 128});
  CHECK(g.nodes()[g.find("synthesis.b64.conv1")].output == Shape{256, 64, 64});
  CHECK(g.nodes()[g.find("synthesis.b32.conv1")].output == Shape{512, 32, 32});
  const Network& d = m.network("discriminator");
  CHECK(d.nodes()[d.find("b128.skip")].output == Shape{256, 64, 64});
  CHECK(d.nodes()[d.find("b128.conv1_blur")].output == Shape{128, 128, 128});
  // Half the channels in the top blocks: fewer parameters than config-f at the same resolution.
  const Model f = build_model("stylegan2", {.resolution = 128, .layers = 2}, HPCSIM_SOURCE_CONFIG_DIR);
  CHECK(m.network("generator").params() < f.network("generator").params());
  CHECK_THROWS_AS(build_model("stylegan2", {.resolution = 4}, HPCSIM_SOURCE_CONFIG_DIR), std::invalid_argument);
}

TEST_CASE("blur2d: the FIR before a downsampling convolution", "[gan]") {
  CHECK(Blur2d(1).output_shape({{64, 32, 32}}) == Shape{64, 32, 32});
  CHECK(Blur2d(2).output_shape({{64, 32, 32}}) == Shape{64, 16, 16});
  CHECK(Blur2d(2).params({{64, 32, 32}}) == 0);
  CHECK(Blur2d(1).forward_flops({{1, 4, 4}}, {2, Precision::fp16}) == Approx(32 * 16 * 2));
  CHECK_THROWS_AS(Blur2d(3), std::invalid_argument);
  CHECK_THROWS_AS(Blur2d(2).output_shape({{64, 7, 7}}), ShapeError);
}
