// The LSTM layer kernel model: cuDNN's launch structure, DeepBench's form of the layer (no input GEMM,
// backward through time only) and DeepBench's V100 timings.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/gpu/ops/recurrent.h"

using namespace hpcsim;

namespace {

GpuSpec shipped(const std::string& name) {
  return parse_gpu_spec(SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar(name, SourceLoc{}), "GPU"), name);
}

bool any_named(const std::vector<Kernel>& ks, const std::string& part) {
  for (const Kernel& k : ks) {
    if (k.name.find(part) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("recurrent: per-step GEMMs are single kernels (no split-K): DeepBench's form drops the input GEMMs and dW") {
  const GpuSpec g = shipped("v100-sxm2-16gb");
  RecurrentShape s{RecurrentCell::lstm, 1024, 128, 25, 0, Precision::fp16, true};
  const std::vector<Kernel> full = recurrent_layer(g, s);
  for (const Kernel& k : full) {
    if (k.count == 25) CHECK(k.name.find("splitk") == std::string::npos);
  }
  CHECK(any_named(full, "input_projection"));
  CHECK(any_named(full, "backward_weight"));
  s.input_projection = false;
  s.weight_gradients = false;
  const std::vector<Kernel> bench = recurrent_layer(g, s);
  CHECK_FALSE(any_named(bench, "input"));
  CHECK_FALSE(any_named(bench, "backward_weight"));
  const OpTime t = estimate_op(g, bench);
  CHECK(t.launches == 4 * 25);  // forward GEMM + gates, gate gradients + data-gradient GEMM, per step
  // Recurrent GEMMs only: forward and backward 2 * batch * 4h * h per step.
  CHECK(t.flops == Approx(2 * 25 * 2.0 * 128 * 4096 * 1024).epsilon(0.01));
}

// [DB] github.com/baidu-research/DeepBench @da81ba782073, results/train/DeepBench_NV_V100.xlsx (cuDNN 7.6.2),
// Recurrent Layers - LSTM, N=128, T=25, Total Time: h1024 FP16-ip/mixed 3.843 ms, h1024 FP32 8.373 ms,
// h4096 FP16-ip/mixed 17.163 ms. code/nvidia/rnn_bench.cu times cudnnRNNForwardTraining plus
// cudnnRNNBackwardData with CUDNN_SKIP_INPUT.
TEST_CASE("reference: DeepBench V100 LSTM layer times within 25 % [acceptance]") {
  const GpuSpec g = shipped("v100-sxm2-16gb");
  struct Case {
    std::int64_t hidden;
    Precision p;
    double ms;
  };
  for (const Case& c : {Case{1024, Precision::fp16, 3.843}, Case{1024, Precision::fp32, 8.373}, Case{4096, Precision::fp16, 17.163}}) {
    RecurrentShape s{RecurrentCell::lstm, c.hidden, 128, 25, 0, c.p, true};
    s.input_projection = false;
    s.weight_gradients = false;
    const double ms = estimate_op(g, recurrent_layer(g, s)).time_s * 1e3;
    std::printf("DeepBench V100 LSTM h%lld %s: predicted %.2f ms, measured %.2f ms\n", static_cast<long long>(c.hidden),
                std::string(to_string(c.p)).c_str(), ms, c.ms);
    CHECK(ms > 0.75 * c.ms);
    CHECK(ms < 1.25 * c.ms);
  }
}
