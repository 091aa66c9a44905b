// The shipped GPU specs: peaks derived from per-SM-per-clock rates must reproduce the vendors' published
// dense peaks, SM limits must match the CUDA tables, and malformed specs are ConfigErrors with locations.
// Published figures below are copied from the sources cited in each configs/gpus/*.yaml.
#include <catch2/catch.hpp>
#include <filesystem>
#include <stdexcept>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/occupancy_limits.h"

using namespace hpcsim;

namespace {

const std::filesystem::path kGpus = std::filesystem::path(HPCSIM_SOURCE_CONFIG_DIR) / "gpus";

GpuSpec load(const std::string& name) { return parse_gpu_spec(SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar(name, SourceLoc{}), "GPU"), name); }

// A shipped spec with `patch` (YAML text, located as patch.yaml) merged over it; the error text or "ok".
std::string patched(const std::string& name, const std::string& patch) {
  try {
    parse_gpu_spec(merge_configs(SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar(name, SourceLoc{}), "GPU"), parse_config_text(patch, "patch.yaml")),
                   name);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "ok";
}

constexpr double T = 1e12;

}  // namespace

TEST_CASE("Every shipped GPU spec parses and its NVIDIA SM limits are the CC table's") {
  for (const auto& entry : std::filesystem::directory_iterator(kGpus)) {
    const std::string name = entry.path().stem().string();
    INFO(name);
    const GpuSpec g = load(name);
    CHECK(g.sm_count > 0);
    CHECK(g.boost_clock_hz > 0);
    CHECK(g.tensor_clock_hz <= g.boost_clock_hz);
    CHECK(g.memory.hbm_bytes > 0);
    CHECK(g.matmul_fraction > 0);
    CHECK(g.memory_fraction > 0);
    if (g.vendor == "nvidia") {
      const SmLimits* table = sm_limits_for_cc(g.compute_capability);
      REQUIRE(table != nullptr);
      CHECK(g.sm.max_warps == table->max_warps);
      CHECK(g.sm.smem_carveouts == table->smem_carveouts);
      CHECK(g.sm.smem_reserved_per_block == table->smem_reserved_per_block);
    }
  }
}

TEST_CASE("Derived peaks reproduce the published dense peaks") {
  struct Peak {
    const char* gpu;
    Precision p;
    double published;  // FLOP/s
  };
  // A100: NVIDIA A100 datasheet r4. H100/H200: glennklockwood.com/garden/processors/h100 (dense).
  // V100: V100 whitepaper table. P100: Pascal announcement figures. L40S: L40S datasheet (dense).
  // MI300X: stas00/ml-engineering accelerator table.
  const Peak peaks[] = {
      {"a100-sxm4-80gb", Precision::bf16, 312 * T},   {"a100-sxm4-80gb", Precision::tf32, 156 * T},
      {"a100-sxm4-80gb", Precision::fp64, 19.5 * T},  {"a100-sxm4-80gb", Precision::fp32, 19.5 * T},
      {"a100-sxm4-40gb", Precision::int8, 624 * T},   {"h100-sxm5-80gb", Precision::bf16, 989.4 * T},
      {"h100-sxm5-80gb", Precision::tf32, 494.7 * T}, {"h100-sxm5-80gb", Precision::fp8, 1978.9 * T},
      {"h100-sxm5-80gb", Precision::fp64, 66.9 * T},  {"h100-sxm5-80gb", Precision::fp32, 66.9 * T},
      {"h200-sxm-141gb", Precision::bf16, 989.4 * T}, {"v100-sxm2-32gb", Precision::fp16, 125 * T},
      {"v100-sxm2-16gb", Precision::fp64, 7.8 * T},   {"v100-sxm2-32gb", Precision::fp32, 15.7 * T},
      {"p100-sxm2-16gb", Precision::fp16, 21.2 * T},  {"p100-sxm2-16gb", Precision::fp64, 5.3 * T},
      {"l40s", Precision::fp32, 91.6 * T},            {"l40s", Precision::fp8, 733 * T},
      {"l40s", Precision::tf32, 183 * T},             {"mi300x", Precision::bf16, 1307.4 * T},
      {"mi300x", Precision::fp8, 2614.9 * T},         {"mi300x", Precision::fp64, 163.4 * T},
  };
  for (const Peak& p : peaks) {
    INFO(p.gpu << " " << to_string(p.p));
    CHECK(load(p.gpu).peak(p.p) == Approx(p.published).epsilon(0.005));
  }
  // The L40S datasheet's FP16 tensor figure (362.05) is quoted at 2.49 GHz; one boost clock makes it 1.2 % high.
  CHECK(load("l40s").peak(Precision::fp16) == Approx(362.05 * T).epsilon(0.013));
  // The DGX-2H's 2.1 PFLOP/s over 16 GPUs.
  CHECK(load("v100-sxm3-32gb").peak(Precision::fp16) * 16 == Approx(2.1e15).epsilon(0.005));
}

TEST_CASE("Current accelerators: peaks by precision are units x clock x lanes and match their datasheets") {
  struct Peak {
    const char* gpu;
    Precision p;
    MathUnit unit;
    double published;  // FLOP/s, dense
    double tolerance;
  };
  // B200 (HGX, 1000 W) and GB200 (1200 W): NVIDIA DGX B200 / GB200 NVL72 datasheets as summarised on
  // glennklockwood.com/garden/processors/B200 (dense); B200 FP32 75 (verda.com). The B200's tensor clock is a
  // third party's (NVIDIA publishes none), so its 16-bit peak is 0.2 % and TF32 2.5 % above the datasheet.
  // MI325X: AMD's table (the MI300X's peaks). Gaudi 2: Intel Hot Chips 2024 (432 TFLOP/s bf16). H100 PCIe:
  // the datasheet's sparse figures halved (756.5 bf16, 1513 fp8; FP32 51.2).
  const MathUnit tc = MathUnit::tensor, vc = MathUnit::vector;
  const Peak peaks[] = {
      {"b200", Precision::bf16, tc, 2250 * T, 0.005},   {"b200", Precision::fp16, tc, 2250 * T, 0.005},
      {"b200", Precision::fp8, tc, 4500 * T, 0.005},    {"b200", Precision::mxfp8, tc, 4500 * T, 0.005},
      {"b200", Precision::nvfp4, tc, 9000 * T, 0.005},  {"b200", Precision::mxfp4, tc, 9000 * T, 0.005},
      {"b200", Precision::int8, tc, 4500 * T, 0.005},   {"b200", Precision::tf32, tc, 1100 * T, 0.026},
      {"b200", Precision::fp32, vc, 75 * T, 0.005},     {"gb200", Precision::bf16, tc, 2500 * T, 0.005},
      {"gb200", Precision::fp8, tc, 5000 * T, 0.005},   {"gb200", Precision::nvfp4, tc, 10000 * T, 0.005},
      {"mi325x", Precision::bf16, tc, 1307.4 * T, 0.005}, {"mi325x", Precision::fp8, tc, 2614.9 * T, 0.005},
      {"gaudi2", Precision::bf16, tc, 432 * T, 0.005},  {"h100-pcie-80gb", Precision::bf16, tc, 756.5 * T, 0.005},
      {"h100-pcie-80gb", Precision::fp8, tc, 1513 * T, 0.005}, {"h100-pcie-80gb", Precision::fp32, vc, 51.2 * T, 0.005},
      // B300 / GB300 (Blackwell Ultra): verda.com's per-GPU dense table (B300: FP4 14, INT8 0.15 POPS; GB300: BF16
      // 2.5, FP8 5, FP4 15, FP32 0.080 PFLOP/s) and the HGX B300 figures on glennklockwood.com (BF16 2250, FP8 4500,
      // TF32 1125, FP64 1.25). NVIDIA publishes no clock: the B300 keeps the B200's, so its FP4 is 3.4 % and its
      // FP64 / INT8 6 % off (whole rates per SM cannot hit NVIDIA's trickle figures at one clock); GB300's FP32 2.4 %.
      {"b300", Precision::bf16, tc, 2250 * T, 0.005},   {"b300", Precision::fp8, tc, 4500 * T, 0.005},
      {"b300", Precision::nvfp4, tc, 14000 * T, 0.035}, {"b300", Precision::mxfp4, tc, 14000 * T, 0.035},
      {"b300", Precision::tf32, tc, 1125 * T, 0.005},   {"b300", Precision::fp32, vc, 75 * T, 0.005},
      {"b300", Precision::int8, tc, 150 * T, 0.065},    {"b300", Precision::fp64, vc, 1.25 * T, 0.065},
      {"gb300", Precision::bf16, tc, 2500 * T, 0.005},  {"gb300", Precision::fp8, tc, 5000 * T, 0.005},
      {"gb300", Precision::nvfp4, tc, 15000 * T, 0.005}, {"gb300", Precision::fp32, vc, 80 * T, 0.025},
      // H200 NVL: NVIDIA's H200 product page, NVL column, sparse tensor figures halved; FP32 60, FP64 tensor 60.
      {"h200-nvl", Precision::bf16, tc, 835.5 * T, 0.005}, {"h200-nvl", Precision::fp8, tc, 1670.5 * T, 0.005},
      {"h200-nvl", Precision::tf32, tc, 417.5 * T, 0.005}, {"h200-nvl", Precision::fp32, vc, 60 * T, 0.005},
      {"h200-nvl", Precision::fp64, tc, 60 * T, 0.005},
      // MI355X / MI350X (CDNA 4): FP8 "5 PFLOP/s" (AMD at ISSCC 2026), FP4/FP6 20.1 and 18.45 PFLOP/s sparse
      // (tomshardware, ISC 2025) halved, FP64 78.6 (humeconsulting).
      {"mi355x", Precision::fp8, tc, 5000 * T, 0.01},   {"mi355x", Precision::mxfp4, tc, 10050 * T, 0.005},
      {"mi355x", Precision::fp64, vc, 78.6 * T, 0.005}, {"mi350x", Precision::mxfp4, tc, 9225 * T, 0.005},
      // Gaudi 3: Intel Hot Chips 2024 (1835 TFLOP/s BF16 and FP8 matrix, 28.7 BF16 vector).
      {"gaudi3", Precision::bf16, tc, 1835 * T, 0.005}, {"gaudi3", Precision::fp8, tc, 1835 * T, 0.005},
      {"gaudi3", Precision::bf16, vc, 28.7 * T, 0.005},
  };
  for (const Peak& p : peaks) {
    INFO(p.gpu << " " << to_string(p.p));
    const GpuSpec g = load(p.gpu);
    // Recompute from the spec's own units: SMs x per-SM-per-clock rate x the clock the unit runs at.
    const auto& rates = p.unit == MathUnit::tensor ? g.tensor_flops_per_clock_per_sm : g.vector_flops_per_clock_per_sm;
    REQUIRE(rates[static_cast<int>(p.p)].has_value());
    const double recomputed = g.sm_count * *rates[static_cast<int>(p.p)] * g.peak_clock_hz(p.p, p.unit);
    CHECK(g.peak(p.p, p.unit) == Approx(recomputed).epsilon(1e-12));
    CHECK(recomputed == Approx(p.published).epsilon(p.tolerance));
  }
  // Block-scaled formats exist only where the hardware has them.
  CHECK_FALSE(load("h100-sxm5-80gb").supports(Precision::nvfp4));
  CHECK_FALSE(load("mi325x").supports(Precision::mxfp8));
  CHECK(load("gb200").supports(Precision::mxfp4));
  // What each spec inherits and what it replaces.
  CHECK(load("gb200").sm_count == 148);
  CHECK(load("gb200").memory.hbm_bytes == 186e9);
  CHECK(load("mi325x").memory.hbm_bytes == 256e9);
  CHECK(load("mi325x").matmul_fraction == load("mi300x").matmul_fraction);
  CHECK(load("h100-pcie-80gb").sm_count == 114);
  CHECK(load("b200").compute_capability == "10.0");
  CHECK(load("gaudi2").vendor == "intel");
  // The issue 36 remainder: Blackwell Ultra, H200 NVL, CDNA 4, Gaudi 3.
  CHECK(load("b300").sm_count == 148);
  CHECK(load("b300").compute_capability == "10.3");
  CHECK(load("b300").memory.hbm_bytes == 288e9);
  CHECK(load("gb300").memory.hbm_bytes == 279e9);
  CHECK(load("b300").supports(Precision::nvfp4));
  CHECK(load("h200-nvl").memory.hbm_bytes == load("h200-sxm-141gb").memory.hbm_bytes);
  CHECK(load("h200-nvl").sm_count == 132);
  CHECK(load("mi355x").sm_count == 256);
  CHECK(load("mi355x").supports(Precision::mxfp4));
  CHECK(load("mi355x").supports(Precision::mxfp8));
  CHECK_FALSE(load("mi355x").supports(Precision::nvfp4));
  CHECK_FALSE(load("mi355x").supports(Precision::tf32));  // CDNA 4 has no TF32 matrix operations
  CHECK(load("mi350x").memory.hbm_bytes == load("mi355x").memory.hbm_bytes);
  CHECK(load("gaudi3").vendor == "intel");
  CHECK(load("gaudi3").sm_count == 64);
  CHECK_FALSE(load("gaudi3").supports(Precision::nvfp4));
  // Block-scaled storage counts the scales: OCP MX (32 elements per 8-bit scale), NVFP4 (16 per 8-bit scale).
  CHECK(bytes_per_element(Precision::mxfp8) == 1 + 1.0 / 32);
  CHECK(bytes_per_element(Precision::nvfp4) == 0.5 + 1.0 / 16);
  CHECK(bytes_per_element(Precision::mxfp4) == 0.5 + 1.0 / 32);
  CHECK(parse_precision("nvfp4") == Precision::nvfp4);
  CHECK(is_narrow_gemm_format(Precision::mxfp8));
  CHECK_FALSE(is_narrow_gemm_format(Precision::bf16));
}

TEST_CASE("H100 vector and tensor peaks use their own clocks") {
  const GpuSpec h = load("h100-sxm5-80gb");
  CHECK(h.peak_clock_hz(Precision::bf16, MathUnit::tensor) == 1.83e9);
  CHECK(h.peak_clock_hz(Precision::fp64, MathUnit::tensor) == 1.98e9);
  CHECK(h.peak_clock_hz(Precision::fp32, MathUnit::vector) == 1.98e9);
  CHECK(h.peak(Precision::fp64, MathUnit::vector) == Approx(33.5 * T).epsilon(0.005));
  CHECK(h.peak(Precision::bf16, MathUnit::vector) == Approx(133.8 * T).epsilon(0.005));
}

TEST_CASE("Derived specs inherit from their die") {
  const GpuSpec h200 = load("h200-sxm-141gb");
  CHECK(h200.memory.hbm_bytes == 141e9);
  CHECK(h200.memory.hbm_bandwidth == 4.8e12);
  CHECK(h200.sm_count == 132);
  CHECK(h200.memory_bytes() == h200.memory.hbm_bytes);
  CHECK(load("a100-sxm4-40gb").memory_bandwidth() == 1555e9);
  CHECK(load("v100-sxm3-32gb").tdp_w == 450);
  CHECK(load("v100-sxm2-16gb").memory.hbm_bytes == 16.0 * (1 << 30));
}

TEST_CASE("Missing math units are errors naming the GPU and precision") {
  const GpuSpec v100 = load("v100-sxm2-32gb");
  CHECK_FALSE(v100.supports(Precision::bf16));
  CHECK(v100.supports(Precision::fp16));
  CHECK_THROWS_WITH(v100.peak(Precision::bf16), "GPU 'v100-sxm2-32gb' has no bf16 math units");
  CHECK_THROWS_WITH(v100.peak(Precision::fp32, MathUnit::tensor),
                    "GPU 'v100-sxm2-32gb' has no tensor unit for fp32");
  CHECK(load("p100-sxm2-16gb").peak(Precision::fp16) == load("p100-sxm2-16gb").peak(Precision::fp16, MathUnit::vector));
}

TEST_CASE("GPU spec errors carry file:line:column") {
  CHECK(patched("h100-sxm5-80gb", "sm:\n  max_warps: 48\n") ==
        "patch.yaml:2:14: max_warps is 48 but compute capability 9.0 has 64");
  CHECK(patched("h100-sxm5-80gb", "sm:\n  max_smem_per_block: 228 KiB\n") ==
        "patch.yaml:2:23: max_smem_per_block is 233.472 KB but compute capability 9.0 has 232.448 KB");
  CHECK(patched("a100-sxm4-80gb", "sm:\n  smem_carveouts: [0 KiB, 100 KiB]\n").find(
            "patch.yaml:2:19: smem_carveouts differ from compute capability 8.0's") == 0);
  CHECK(patched("h100-sxm5-80gb", "clocks:\n  tensor: 2 GHz\n") ==
        "patch.yaml:2:11: the tensor clock cannot exceed the boost clock");
  CHECK(patched("h100-sxm5-80gb", "compute_capability: \"99.0\"\n").find("patch.yaml:1:21:") == 0);
  CHECK(patched("h100-sxm5-80gb", "flops_per_clock_per_sm:\n  tensor:\n    bf17: 4096\n").find(
            "patch.yaml:3:5: unknown key 'bf17'; did you mean 'bf16'?") == 0);
  CHECK(patched("mi300x", "sm:\n  max_warps: 40\n") == "ok");  // no CC: the spec's own numbers stand
  CHECK(patched("mi300x", "sm:\n  smem_carveouts: [.5 KiB]\n") ==
        "patch.yaml:2:19: the largest of smem_carveouts, 512 B, is less than max_smem_per_block, 65.536 KB");
  CHECK(patched("h100-sxm5-80gb", "warp_sim:\n  sfu_lanes_per_sm: 32\n") ==
        "patch.yaml:2:21: warp_sim.sfu_lanes_per_sm differs from the top-level sfu_lanes_per_sm");
  CHECK(patched("h100-sxm5-80gb", "warp_sim:\n  sfu_lanes_per_sm: 16\n") == "ok");
}

TEST_CASE("Every GPU spec gives its special-function lanes") {
  for (const auto& entry : std::filesystem::directory_iterator(kGpus)) {
    const GpuSpec g = load(entry.path().stem().string());
    INFO(g.name);
    // Every shipped part: 4 per sub-partition, or a CU's 64 lanes at quarter rate; Blackwell Ultra doubles its SFU
    // throughput for attention (NVIDIA's "Inside NVIDIA Blackwell Ultra"; 10.7 vs 5 TeraExp/s).
    const bool blackwell_ultra = g.name == "b300" || g.name == "gb300";
    CHECK(g.sfu_lanes_per_sm == (blackwell_ultra ? 32 : 16));
  }
  ConfigNode h100 = SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar("h100-sxm5-80gb", SourceLoc{}), "GPU");
  h100.erase("sfu_lanes_per_sm");
  CHECK_THROWS_WITH(parse_gpu_spec(h100, "x"), Catch::Contains("missing required key 'sfu_lanes_per_sm'"));
}

TEST_CASE("An NVIDIA spec needs a compute capability: a spec without one must state its SM limits") {
  const ConfigNode h100 = SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar("h100-sxm5-80gb", SourceLoc{}), "GPU");
  ConfigNode no_cc = h100;
  no_cc.erase("compute_capability");
  CHECK_THROWS_AS(parse_gpu_spec(no_cc, "x"), ConfigError);
  ConfigNode amd = no_cc;
  amd.set("vendor", ConfigNode::make_scalar("amd", {}));
  amd.erase("sm");
  CHECK_THROWS_WITH(parse_gpu_spec(amd, "x"), Catch::Contains("missing required key 'sm'"));
}
