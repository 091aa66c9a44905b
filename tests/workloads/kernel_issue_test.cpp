// Kernels issued by a host thread: tiny kernels are dispatch-bound in eager mode and run at GPU speed
// under CUDA graphs; long kernels hide the dispatch of the ones queued behind them.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/ops/elementwise.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/op_kernel.h"
#include "workloads/training/kernel_issue.h"

using namespace hpcsim;

namespace {

const GpuSpec& a100() {
  static const GpuSpec gpu = parse_gpu_spec(
      SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar("a100-sxm4-80gb", SourceLoc{}), "GPU"), "a100-sxm4-80gb");
  return gpu;
}

Kernel tiny() { return elementwise_kernel("scale", 4096, 1, {{2, false}, {2, true}}); }

Kernel big() { return gemm(a100(), {8192, 8192, 8192, 1, Precision::bf16}); }

constexpr double kDispatch = 8e-6;

}  // namespace

TEST_CASE("tiny kernels are dispatch-bound in eager mode and faster under CUDA graphs", "[issue]") {
  const std::vector<Kernel> ks(100, tiny());
  const double gpu = estimate_op(a100(), ks).time_s;
  REQUIRE(gpu / 100 < kDispatch);  // each kernel is shorter than its dispatch
  const double eager = issue_time(a100(), ks, {kDispatch, false});
  const double graphs = issue_time(a100(), ks, {kDispatch, true});
  CHECK(eager == Approx(100 * kDispatch + gpu / 100));  // the host sets the pace; the last kernel runs after it
  CHECK(graphs == Approx(kDispatch + gpu));               // one graph launch, then back to back
  CHECK(graphs < eager / 2);
}

TEST_CASE("a long kernel pays one dispatch and hides the next ones", "[issue]") {
  const double g = estimate_op(a100(), {big()}).time_s;
  REQUIRE(g > 1e-3);
  CHECK(issue_time(a100(), {big()}, {kDispatch, false}) == Approx(kDispatch + g));
  // Ten tiny kernels queued while the GEMM runs start as soon as it ends.
  std::vector<Kernel> ks{big()};
  for (int i = 0; i < 10; ++i) ks.push_back(tiny());
  const double gpu = estimate_op(a100(), ks).time_s;
  CHECK(issue_time(a100(), ks, {kDispatch, false}) == Approx(kDispatch + gpu));
}

TEST_CASE("launch counts are dispatches, and zero dispatch is the GPU time", "[issue]") {
  Kernel repeated = tiny();
  repeated.count = 50;
  const std::vector<Kernel> separate(50, tiny());
  CHECK(issue_time(a100(), {repeated}, {kDispatch, false}) == Approx(issue_time(a100(), separate, {kDispatch, false})));
  CHECK(issue_time(a100(), {repeated}, {kDispatch, true}) == Approx(issue_time(a100(), separate, {kDispatch, true})));
  // With kernels longer than the dispatch the closed form matches the kernel-by-kernel recurrence too.
  Kernel gemms = big();
  gemms.count = 3;
  CHECK(issue_time(a100(), {gemms}, {kDispatch, false}) ==
        Approx(issue_time(a100(), {big(), big(), big()}, {kDispatch, false})));
  const std::vector<Kernel> mix{big(), tiny(), repeated};
  CHECK(issue_time(a100(), mix, {0, false}) == Approx(estimate_op(a100(), mix).time_s));
  CHECK_THROWS_AS(issue_time(a100(), mix, {-1, false}), std::invalid_argument);
}

TEST_CASE("the host runs ahead across phases issued on one stream", "[issue]") {
  KernelIssue stream(a100(), {kDispatch, false});
  const double g = estimate_op(a100(), {big()}).time_s;
  const double first = stream.issue({big()});
  CHECK(first == Approx(kDispatch + g));
  // Issued later, the tiny kernels were dispatched during the GEMM: they add only their GPU time.
  const std::vector<Kernel> small(20, tiny());
  CHECK(stream.issue(small) == Approx(estimate_op(a100(), small).time_s));
  CHECK(stream.host_s() == Approx(21 * kDispatch));
  CHECK(stream.dispatches() == 21);
  // Under CUDA graphs only the first issue pays the graph launch.
  KernelIssue graph(a100(), {kDispatch, true});
  graph.issue(small);
  CHECK(graph.issue(small) == Approx(estimate_op(a100(), small).time_s));
  CHECK(graph.dispatches() == 1);
}
