// Framework profiles: every shipped file parses, the modes say what the frameworks ship with, and bad
// files fail at file:line:column.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/training/framework_profile.h"

using namespace hpcsim;

namespace {

FrameworkProfile shipped(const std::string& name) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return load_framework_profile(catalog, ConfigNode::make_scalar(name, SourceLoc{}));
}

std::string error_of(const std::string& yaml) {
  try {
    parse_framework_profile(parse_config_text(yaml, "bad.yaml"), "bad");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kValid =
    "eager:\n"
    "  dispatch: 8 us\n"
    "  fusion: none\n"
    "  cuda_graphs: false\n"
    "compiled:\n"
    "  dispatch: 4 us\n"
    "  fusion: chains\n"
    "  cuda_graphs: false\n"
    "compiled_by_default: false\n"
    "loader_workers_per_gpu: 0\n"
    "optimizer: foreach\n"
    "memory_format: nchw\n"
    "overlaps_gradient_reduce: true\n"
    "attention: flash\n";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace

TEST_CASE("every configs/frameworks file parses", "[framework]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const std::vector<std::string> names = catalog.names("frameworks");
  CHECK(names == std::vector<std::string>{"jax", "megatron", "mxnet", "onnxruntime", "onnxruntime-tensorrt", "pytorch", "pytorch1", "tensorflow",
                                            "tensorflow1", "tensorrt"});
  for (const std::string& name : names) {
    const FrameworkProfile f = shipped(name);
    CHECK(f.name == name);
    CHECK(f.eager.dispatch_s > 0);
    CHECK(f.eager.dispatch_s < 100e-6);
    if (!f.has_compiled) continue;  // PyTorch 1.x: no compiler
    CHECK(f.compiled.dispatch_s > 0);
    // Compiling never dispatches more slowly nor fuses less than eager execution.
    CHECK(f.compiled.dispatch_s <= f.eager.dispatch_s);
    CHECK(static_cast<int>(f.compiled.fusion) >= static_cast<int>(f.eager.fusion));
  }
}

TEST_CASE("PyTorch 1.x: separate bias passes, per-tensor optimizers, no compiler, no fused attention",
          "[framework]") {
  const FrameworkProfile old = shipped("pytorch1"), now = shipped("pytorch");
  CHECK_FALSE(old.has_compiled);
  CHECK(now.has_compiled);
  CHECK_FALSE(old.linear_bias_epilogue);
  CHECK(now.linear_bias_epilogue);
  CHECK(old.optimizer == OptimizerImpl::unfused);
  CHECK(old.attention == AttentionKernel::unfused);
  CHECK(old.eager.dispatch_s == Approx(now.eager.dispatch_s));
  // compile: true has nothing to run on it: an error at the key.
  const std::string text =
      "cluster: {node: dgx-a100-80gb, nodes: 1, gpus_per_node: 1}\n"
      "workload: {model: bert-base, seq_len: 128, batch_per_gpu: 8, precision: bf16, optimizer: adamw,\n"
      "           framework: pytorch1, compile: true}\n";
  try {
    parse_training_scenario(parse_config_text(text, "old.yaml"), SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR), "old");
    FAIL("compile: true was accepted for PyTorch 1.x");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("old.yaml:3:") != std::string::npos);
    CHECK(std::string(e.what()).find("has no compiler") != std::string::npos);
  }
}

TEST_CASE("profiles keep the defaults the frameworks ship with", "[framework]") {
  const FrameworkProfile torch = shipped("pytorch");
  CHECK(torch.mode(false).fusion == FusionScope::none);
  CHECK_FALSE(torch.mode(false).cuda_graphs);
  CHECK(torch.mode(true).fusion == FusionScope::chains);
  CHECK(torch.eager.dispatch_s == Approx(8e-6));
  CHECK(torch.eager.forward_dispatch_s == Approx(13e-6));  // every op from Python, as inference runs
  CHECK(torch.compiled.forward_dispatch_s == Approx(torch.compiled.dispatch_s));  // not given: the same
  CHECK(torch.loader_workers_per_gpu == 0);
  CHECK(torch.optimizer == OptimizerImpl::foreach);

  const FrameworkProfile jax = shipped("jax");
  CHECK(jax.compiled_by_default);
  CHECK(&jax.mode(false) == &jax.compiled);  // jit is how a JAX step runs
  CHECK(jax.mode(false).cuda_graphs);
  CHECK(jax.mode(false).fusion == FusionScope::epilogue);
  const IssueMode issue = jax.mode(false).issue();
  CHECK(issue.cuda_graphs);
  CHECK(issue.dispatch_s == Approx(jax.compiled.dispatch_s));

  const FrameworkProfile megatron = shipped("megatron");
  CHECK(megatron.eager.fusion == FusionScope::chains);  // hand-fused kernels without compiling
  CHECK(megatron.optimizer == OptimizerImpl::fused);
  CHECK(megatron.loader_workers_per_gpu == 2);
}

TEST_CASE("ONNX Runtime's TensorRT provider: TensorRT's engine, tuned for the largest batch, no CUDA graphs",
          "[framework]") {
  const FrameworkProfile ort = shipped("onnxruntime-tensorrt"), trt = shipped("tensorrt");
  CHECK(ort.tunes_for_largest_batch);
  CHECK_FALSE(trt.tunes_for_largest_batch);
  CHECK_FALSE(ort.eager.cuda_graphs);
  CHECK(trt.eager.cuda_graphs);
  // Everything else is TensorRT's (the file extends tensorrt.yaml).
  CHECK(ort.freezes_weights == trt.freezes_weights);
  CHECK(ort.eager.fusion == trt.eager.fusion);
  CHECK(ort.eager.dispatch_s == Approx(trt.eager.dispatch_s));
  CHECK(ort.memory_format == trt.memory_format);
}

TEST_CASE("bad framework files fail at file:line:column", "[framework]") {
  CHECK(parse_framework_profile(parse_config_text(kValid, "ok.yaml"), "ok").compiled.dispatch_s == Approx(4e-6));
  CHECK_THAT(error_of(replaced(kValid, "fusion: chains", "fusion: fused")),
             Catch::Contains("bad.yaml:7:11") && Catch::Contains("chains"));
  CHECK_THAT(error_of(replaced(kValid, "dispatch: 8 us", "dispatch: -1 us")), Catch::Contains("bad.yaml:2:13"));
  CHECK_THAT(error_of(replaced(kValid, "dispatch: 8 us", "dispatch: 8 GB")), Catch::Contains("bad.yaml:2:13"));
  CHECK_THAT(error_of(replaced(kValid, "dispatch: 8 us", "dispatch: 8 us\n  forward_dispatch: -2 us")),
             Catch::Contains("bad.yaml:3:21"));
  CHECK_THAT(error_of(replaced(kValid, "loader_workers_per_gpu: 0", "loader_workers: 0")),
             Catch::Contains("bad.yaml:10:1") && Catch::Contains("loader_workers"));
  CHECK_THAT(error_of(replaced(kValid, "optimizer: foreach", "optimizer: adam")), Catch::Contains("bad.yaml:11:12"));
  CHECK_THAT(error_of(replaced(kValid, "  cuda_graphs: false\ncompiled_by", "  cuda_graphs: maybe\ncompiled_by")),
             Catch::Contains("bad.yaml:8:16"));
  // A framework that always compiles needs a compiled mode to run.
  const std::string no_compiler = replaced(kValid, "compiled:\n  dispatch: 4 us\n  fusion: chains\n  cuda_graphs: false\n", "");
  CHECK_THAT(error_of(replaced(no_compiler, "compiled_by_default: false", "compiled_by_default: true")),
             Catch::Contains("bad.yaml:5:22") && Catch::Contains("needs a compiled: mode"));
  CHECK_THAT(error_of(replaced(kValid, "attention: flash", "attention: flash\nlinear_bias: fused")),
             Catch::Contains("bad.yaml:15:14"));
  CHECK_THAT(error_of(replaced(kValid, "attention: flash", "attention: flash\ntunes_for_largest_batch: often")),
             Catch::Contains("bad.yaml:15:26"));
}

TEST_CASE("an unknown framework name is an error at the name", "[framework]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const ConfigNode name = parse_config_text("framework: pytorhc\n", "scenario.yaml").at("framework");
  CHECK_THAT([&] {
    try {
      load_framework_profile(catalog, name);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  }(), Catch::Contains("scenario.yaml:1:12") && Catch::Contains("pytorch"));
}
