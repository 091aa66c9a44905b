// The analytical model's teaching view (`hpcsim kernel ... --explain`): the binding occupancy limit named from
// the launch, the roofline side from the op's intensity, waves and sectors as the model counts them, and the
// WarpSim twin's warp-cycle breakdown where the op has one.
#include <catch2/catch.hpp>

#include <numeric>
#include <string>

#include "report/kernel_explain.h"
#include "configs/catalog.h"
#include "models/gpu/ops/attention.h"
#include "models/gpu/ops/elementwise.h"
#include "models/gpu/ops/gemm.h"

using namespace hpcsim;

namespace {

GpuSpec spec(const std::string& name) {
  static const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return parse_gpu_spec(catalog.load("gpus", ConfigNode::make_scalar(name, SourceLoc{"test", 0, 0}), "GPU"), name);
}

// A streaming kernel of the given launch resources (the work is one fp32 read and one write per thread).
Kernel launch_of(int threads, int registers, int smem) {
  Kernel k = copy_op(64.0 * 1024 * 1024).front();
  k.name = "probe";
  k.launch.threads_per_block = threads;
  k.launch.registers_per_thread = registers;
  k.launch.smem_per_block = smem;
  return k;
}

}  // namespace

TEST_CASE("kernel explain: the binding occupancy limit is the launch's scarce resource", "[explain]") {
  const GpuSpec gpu = spec("h100-sxm5-80gb");
  // 255 registers x 256 threads fill most of the 64 Ki-register file: one block; warps alone would allow 8.
  const Kernel registers = launch_of(256, 255, 0);
  // 100 KiB of shared memory per block: two blocks in the 228 KiB carveout; 32 registers allow 8.
  const Kernel shared = launch_of(256, 32, 100 * 1024);
  const auto e = explain_kernels(gpu, {registers, shared}, {}, "copy");
  REQUIRE(e.size() == 2);
  CHECK(e[0].occupancy.limiter == OccupancyLimiter::registers);
  CHECK(e[0].occupancy.blocks_by_registers < e[0].occupancy.blocks_by_smem);
  CHECK(e[1].occupancy.limiter == OccupancyLimiter::shared_memory);
  CHECK(e[1].occupancy.blocks_by_smem < e[1].occupancy.blocks_by_registers);
  const std::string text = render_kernel_explanations(gpu, e);
  const auto first = text.find("The limit that binds: registers");
  const auto second = text.find("The limit that binds: shared memory");
  CHECK(first != std::string::npos);
  CHECK(second != std::string::npos);
  CHECK(first < second);  // in kernel order
  // Neither has a twin here: the message says so and names the ops that have one.
  CHECK(text.find("the breakdown needs WarpSim") != std::string::npos);
  CHECK(text.find("(copy have one)") != std::string::npos);
}

TEST_CASE("kernel explain: waves and tail from the resident blocks", "[explain]") {
  const GpuSpec gpu = spec("v100-sxm2-16gb");
  Kernel k = launch_of(256, 32, 0);  // 8 blocks per SM x 80 SMs = 640 per wave
  k.launch.blocks = 2 * 640 + 160;
  const KernelExplanation e = explain_kernels(gpu, {k}, {}, "copy").front();
  const std::int64_t per_wave = static_cast<std::int64_t>(e.occupancy.active_blocks_per_sm) * gpu.sm_count;
  CHECK(e.waves.full_waves == k.launch.blocks / per_wave);
  CHECK(e.waves.tail_blocks == k.launch.blocks % per_wave);
  CHECK(e.waves.tail_fill == Approx(static_cast<double>(e.waves.tail_blocks) / per_wave));
  CHECK(e.waves.waves == Approx(static_cast<double>(k.launch.blocks) / per_wave));
}

TEST_CASE("kernel explain: a copy is memory-bound, a large GEMM compute-bound, by their intensities", "[explain]") {
  const GpuSpec gpu = spec("h100-sxm5-80gb");
  const auto copy = explain_kernels(gpu, copy_op(1 << 30), {}, "copy").front();
  CHECK(copy.roofline.memory_bound);
  CHECK(copy.roofline.intensity == 0);
  CHECK(render_kernel_explanations(gpu, {copy}).find("memory-bound") != std::string::npos);

  const Kernel big = gemm(gpu, GemmShape{8192, 8192, 8192, 1, Precision::bf16});
  const auto g = explain_kernels(gpu, {big}, {}, "gemm").front();
  CHECK_FALSE(g.roofline.memory_bound);
  CHECK(g.roofline.intensity == Approx(big.work.flops / g.time.hbm_bytes));
  CHECK(g.roofline.balance == Approx(gpu.peak(Precision::bf16, MathUnit::tensor) / gpu.memory.hbm_bandwidth));
  CHECK(g.roofline.factor == Approx(g.roofline.intensity / g.roofline.balance));
  CHECK(g.roofline.factor > 1);
  CHECK(render_kernel_explanations(gpu, {g}).find("compute-bound") != std::string::npos);

  // A small GEMM's operands are read once for little math: left of the ridge.
  const auto thin = explain_kernels(gpu, {gemm(gpu, GemmShape{8192, 8, 8192, 1, Precision::bf16})}, {}, "gemm").front();
  CHECK(thin.roofline.memory_bound);
}

TEST_CASE("kernel explain: sectors per request follow the lanes' stride", "[explain]") {
  const GpuSpec gpu = spec("v100-sxm2-16gb");
  Kernel k = launch_of(256, 32, 0);
  for (int i = 0; i < k.work.global_count; ++i) k.work.global[i].element_bytes = 4;
  const double coalesced = explain_kernels(gpu, {k}, {}, "copy").front().sectors;
  k.work.global[0].stride_elements = 32;  // the read: one lane per sector
  const KernelExplanation e = explain_kernels(gpu, {k}, {}, "copy").front();
  const double requests_read = k.work.global[0].bytes / (32 * 4);
  CHECK(e.sectors - coalesced == Approx(requests_read * (32 - 4)));
  CHECK(e.coalesced_sectors == Approx(coalesced));
}

TEST_CASE("kernel explain: a copy's WarpSim twin runs the same launch and accounts for every warp cycle", "[explain]") {
  const GpuSpec gpu = spec("v100-sxm2-16gb");
  const std::vector<Kernel> kernels = copy_op(256.0 * 1024 * 1024);
  const KernelTwin twin = streaming_twin(kernels.front());
  REQUIRE(twin.available);
  CHECK(twin.program.launch.blocks == kernels.front().launch.blocks);
  const KernelExplanation e = explain_kernels(gpu, kernels, {twin}, "copy").front();
  REQUIRE(e.twin);
  const WarpSimResult& r = e.twin->result;
  // The twin moves the copy's bytes: read once and written once (sectors at HBM, by symmetry over the SMs).
  CHECK(r.kernel_hbm_bytes() == Approx(e.time.hbm_bytes).epsilon(0.02));
  const std::int64_t total = std::accumulate(r.warp_cycles.begin(), r.warp_cycles.end(), std::int64_t{0});
  CHECK(total > 0);
  // A copy's warps mostly wait for memory.
  CHECK(r.warp_cycles[static_cast<int>(WarpState::memory_wait)] + r.warp_cycles[static_cast<int>(WarpState::throttled)] >
        total / 2);
  // Both models stream at about the achievable bandwidth (docs/validation.md: within 15 % on STREAM).
  CHECK(e.twin->time_s / e.time.time_s == Approx(1).epsilon(0.15));
  const std::string text = render_kernel_explanations(gpu, {e});
  CHECK(text.find("WarpSim twin") != std::string::npos);
  CHECK(text.find("Where the resident warps' cycles went") != std::string::npos);

  // No twin for a GPU without a warp_sim: section: said plainly.
  GpuSpec bare = gpu;
  bare.warp_sim.reset();
  const KernelExplanation none = explain_kernels(bare, kernels, {streaming_twin(kernels.front())}, "copy").front();
  CHECK_FALSE(none.twin);
  CHECK(none.no_twin.find("warp_sim") != std::string::npos);
}

TEST_CASE("kernel explain: GEMM twins only where the tile program fits", "[explain]") {
  const GpuSpec gpu = spec("h100-sxm5-80gb");
  CHECK(gemm_twin(gpu, GemmShape{4096, 4096, 4096, 1, Precision::bf16}).available);
  const KernelTwin scaled = gemm_twin(gpu, GemmShape{4096, 4096, 4096, 1, Precision::bf16});
  CHECK(scaled.time_scale == Approx(4096.0 / kGemmSimulatedK));
  CHECK(scaled.options.all_sms);
  CHECK_FALSE(gemm_twin(gpu, GemmShape{4000, 4096, 4096, 1, Precision::bf16}).available);
  CHECK_FALSE(gemm_twin(gpu, GemmShape{4096, 4096, 4096, 2, Precision::bf16}).available);
  CHECK_FALSE(gemm_twin(gpu, GemmShape{4096, 4096, 4096, 1, Precision::fp32}).available);
  CHECK(gemm_twin(gpu, GemmShape{4096, 4096, 4096, 1, Precision::fp32}).note.find("fp16 or bf16") != std::string::npos);
}

TEST_CASE("kernel explain: the JSON object carries every section", "[explain]") {
  const GpuSpec gpu = spec("v100-sxm2-16gb");
  const std::vector<Kernel> kernels = copy_op(16.0 * 1024 * 1024);
  const std::string json = kernel_explanations_json(explain_kernels(gpu, kernels, {streaming_twin(kernels.front())}, "copy"), 2);
  for (const char* key : {"\"kernels\"", "\"launch\"", "\"occupancy\"", "\"limiter\"", "\"waves\"", "\"tail_blocks\"",
                          "\"memory\"", "\"sectors_per_request\"", "\"l2_bytes\"", "\"hbm_bytes\"", "\"roofline\"",
                          "\"intensity\"", "\"machine_balance\"", "\"bound\"", "\"time\"", "\"warp_sim\"",
                          "\"warp_cycle_shares\"", "\"ratio_to_analytical\"", "\"memory_wait\""}) {
    INFO(key);
    CHECK(json.find(key) != std::string::npos);
  }
  CHECK(json == kernel_explanations_json(explain_kernels(gpu, kernels, {streaming_twin(kernels.front())}, "copy"), 2));
}

TEST_CASE("kernel explain: fused attention's math names its exponentials' share, and a copy has none", "[explain]") {
  const GpuSpec gpu = spec("h100-sxm5-80gb");
  const std::vector<Kernel> attn = attention(gpu, {4, 16, 4096, 128, false, Precision::fp16}, true);
  const std::vector<KernelExplanation> e = explain_kernels(gpu, attn, {}, "copy");
  REQUIRE(e.size() == 1);
  CHECK(e.front().time.special_s > 0);
  CHECK(e.front().time.special_s < e.front().time.compute_s);
  CHECK(render_kernel_explanations(gpu, e).find("special-function lanes") != std::string::npos);
  CHECK(kernel_explanations_json(e, 0).find("\"special_s\": 0,") == std::string::npos);
  const std::vector<Kernel> copy = copy_op(16.0 * 1024 * 1024);
  const std::vector<KernelExplanation> c = explain_kernels(gpu, copy, {}, "copy");
  CHECK(c.front().time.special_s == 0);
  CHECK(render_kernel_explanations(gpu, c).find("special-function lanes") == std::string::npos);
  CHECK(kernel_explanations_json(c, 0).find("\"special_s\": 0,") != std::string::npos);
}

TEST_CASE("kernel explain: a GEMM's math names its blocks' fixed waits, which grow with the output, not with K", "[explain]") {
  const GpuSpec gpu = spec("h200-sxm-141gb");
  auto block_s = [&](std::int64_t k) {
    const std::vector<KernelExplanation> e = explain_kernels(gpu, {gemm(gpu, GemmShape{16384, 4096, k, 1, Precision::bf16})}, {}, "gemm");
    REQUIRE(e.size() == 1);
    CHECK(e.front().time.block_s > 0);
    CHECK(e.front().time.block_s < e.front().time.compute_s);
    CHECK(render_kernel_explanations(gpu, e).find("fixed waits") != std::string::npos);
    CHECK(kernel_explanations_json(e, 0).find("\"block_s\": ") != std::string::npos);
    return e.front().time.block_s;
  };
  // The 134 MB output is stored at HBM's speed whatever K is: the waits stay near the output's HBM time (plus
  // each round's first-operand wait; the tile chosen, and so the rounds, differ with K).
  const double store_s = 16384.0 * 4096 * 2 / gpu.achievable_memory_bandwidth();
  for (const double waits : {block_s(256), block_s(4096)}) {
    CHECK(waits > 0.8 * store_s);
    CHECK(waits < 1.6 * store_s);
  }
  const std::vector<Kernel> copy = copy_op(16.0 * 1024 * 1024);
  CHECK(render_kernel_explanations(gpu, explain_kernels(gpu, copy, {}, "copy")).find("fixed waits") == std::string::npos);
}
