// An inference engine whose kernels were chosen once, for one batch (framework tunes_for_largest_batch: ONNX
// Runtime's TensorRT provider), serving every batch (docs/inference.md, "Accuracy pass 6").
#include <catch2/catch.hpp>

#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "workloads/inference/batch_latency.h"
#include "workloads/serving/serve_scenario.h"

using namespace hpcsim;

namespace {

ServeScenario serve_of(const std::string& framework, const std::string& node, const std::string& serving,
                       const std::string& precision = "fp16") {
  return parse_serve_scenario(
      parse_config_text("kind: serve\ncluster: {node: " + node + "}\nworkload: {model: resnet50, precision: " + precision +
                        ", framework: " + framework + "}\nserving: {" + serving + "}\n",
                        "serve.yaml"),
      SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR), "serve");
}

}  // namespace

TEST_CASE("engine tuning: ONNX Runtime's TensorRT engine runs every batch on the kernels of its max_batch",
          "[inference][serving]") {
  const ServeScenario ort = serve_of("onnxruntime-tensorrt", "dgx-a100-80gb", "max_batch: 128");
  const ServeScenario trt = serve_of("tensorrt", "dgx-a100-80gb", "max_batch: 128");
  CHECK(ort.setup.tuned_batch == 128);
  CHECK(trt.setup.tuned_batch == 0);
  // At the batch it was tuned for the engine is TensorRT's own; far below it, large tiles idle most SMs.
  CHECK(batch_latency_s(ort.setup, 128) == Approx(batch_latency_s(trt.setup, 128)).epsilon(0.02));
  CHECK(batch_latency_s(ort.setup, 1) > 3 * batch_latency_s(trt.setup, 1));
  for (int b : {1, 4, 16, 64}) CHECK(batch_latency_s(ort.setup, b) >= batch_latency_s(trt.setup, b));
  // Its batch-1 latency still grows with the batch (a smaller batch never costs more).
  CHECK(batch_latency_s(ort.setup, 1) < batch_latency_s(ort.setup, 128));
  // An endpoint that never batches tunes for batch 1: the per-batch choice.
  const ServeScenario single = serve_of("onnxruntime-tensorrt", "dgx-a100-80gb", "max_batch: 1");
  CHECK(single.setup.tuned_batch == 1);
  CHECK(batch_latency_s(single.setup, 1) == Approx(batch_latency_s(trt.setup, 1)).epsilon(0.02));
}

TEST_CASE("engine tuning: CPU replicas and per-batch frameworks choose kernels for each batch", "[inference][serving]") {
  CHECK(serve_of("onnxruntime-tensorrt", "c7g-4xlarge", "max_batch: 8", "bf16").setup.tuned_batch == 0);
  CHECK(serve_of("pytorch", "dgx-a100-80gb", "max_batch: 64").setup.tuned_batch == 0);
}
