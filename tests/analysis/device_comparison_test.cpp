// The GPU model beside a hpcsim-cuda-bench CSV (the reader itself: device_measurements_test.cpp): the
// predictions equal to the models' own, the MAPE over headline metrics only, occupancy checked exactly
// against the CUDA Best Practices Guide's example, and a spec that is not the measured GPU refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/device_comparison.h"
#include "driver/device_measurements.h"
#include "analysis/temp_path.h"
#include "device_csv.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "models/gpu/gpu_spec.h"
#include "models/network/network_spec.h"
#include "models/gpu/ops/elementwise.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/op_kernel.h"

using namespace hpcsim;
using hpcsim::test::kV100Header;
using hpcsim::test::read_text;
using hpcsim::test::TempPath;

namespace {

GpuSpec spec(const std::string& name) {
  static const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return parse_gpu_spec(catalog.load("gpus", ConfigNode::make_scalar(name, SourceLoc{"test", 0, 0}), "GPU"), name);
}

}  // namespace

TEST_CASE("device comparison: occupancy rows match the CUDA Best Practices Guide's example exactly", "[device]") {
  // CUDA C++ Best Practices Guide, "Calculating Occupancy": compute capability 7.0, 37 registers per
  // thread: 128-thread blocks -> 12 resident blocks (75 %), 320-thread blocks -> 4 blocks (63 %).
  const DeviceMeasurements m = read_text(kV100Header +
                                         "occupancy,kernel=k;threads=128;regs=37;smem=0,blocks_per_sm,12,blocks\n"
                                         "occupancy,kernel=k;threads=320;regs=37;smem=0,blocks_per_sm,4,blocks\n"
                                         "occupancy,kernel=k;threads=128;regs=37;smem=0,blocks_per_sm,13,blocks\n");
  const DeviceComparison c = compare_device_measurements(m, spec("v100-sxm2-16gb"));
  CHECK(c.occupancy_rows == 3);
  CHECK(c.occupancy_matches == 2);  // the third row is a deliberate mismatch
  CHECK(c.mape_rows == 0);
  CHECK(c.worst == -1);
  const std::string table = render_device_comparison(c, ValidationFormat::table);
  CHECK(table.find("MISMATCH") != std::string::npos);
  CHECK(table.find("occupancy 2 of 3 exact") != std::string::npos);
}

TEST_CASE("device comparison: predictions are the models' own and only headline metrics count", "[device]") {
  const GpuSpec v100 = spec("v100-sxm2-16gb");
  const DeviceMeasurements m = read_text(kV100Header +
                                         "copy,bytes=268435456,gbps,700,GB/s\n"
                                         "copy,bytes=268435456,time_us,1,us\n"
                                         "triad,n=16777216;dtype=fp32,gbps,780,GB/s\n"
                                         "gemm,m=4096;n=4096;k=4096;dtype=fp16,tflops,100,TFLOP/s\n"
                                         "launch,kind=empty,gpu_us,3,us\n"
                                         "launch,kind=empty,host_us,4,us\n"
                                         "pcie,direction=h2d;bytes=268435456,gbps,11,GB/s\n"
                                         "future,x=1,speed,1,fraction\n"
                                         "launch,graph=1,gpu_us,0.5,us\n");
  const DeviceComparison c = compare_device_measurements(m, v100);
  REQUIRE(c.rows.size() == 9);

  const double copy_s = estimate_op(v100, copy_op(268435456.0)).time_s;
  REQUIRE(c.rows[0].predicted);
  CHECK(*c.rows[0].predicted == Approx(268435456.0 / copy_s / 1e9));
  CHECK(c.rows[0].error == Approx(*c.rows[0].predicted / 700 - 1));
  CHECK(*c.rows[1].predicted == Approx(copy_s * 1e6));
  CHECK_FALSE(c.rows[1].in_mape);  // the time twin of a bandwidth row is shown, not counted twice

  ElementwiseChain triad;
  triad.elements = 16777216;
  triad.inputs = 2;
  triad.flops_per_op = 2;
  std::vector<Kernel> stream = elementwise_chain(triad);
  for (Kernel& k : stream) {
    CHECK(k.work.framework_pointwise);  // a framework's pointwise kernel runs at its share of the bandwidth...
    k.work.framework_pointwise = false;  // ... STREAM's hand-written triad at the measured bandwidth
  }
  CHECK(*c.rows[2].predicted == Approx(12.0 * 16777216 / estimate_op(v100, stream).time_s / 1e9));
  CHECK(*c.rows[2].predicted > 12.0 * 16777216 / estimate_op(v100, elementwise_chain(triad)).time_s / 1e9);

  const double gemm_s = estimate_op(v100, {gemm(v100, GemmShape{4096, 4096, 4096, 1, Precision::fp16})}).time_s;
  CHECK(*c.rows[3].predicted == Approx(2.0 * 4096 * 4096 * 4096 / gemm_s / 1e12));
  CHECK(*c.rows[4].predicted == Approx(v100.launch_overhead_s * 1e6));
  CHECK_FALSE(c.rows[5].predicted);  // host-side rows need more than a GPU spec
  CHECK_FALSE(c.rows[6].predicted);
  CHECK_FALSE(c.rows[7].predicted);  // a benchmark this version does not know is shown, not an error
  CHECK(c.rows[7].note == "not modelled");
  CHECK_FALSE(c.rows[8].predicted);  // a CUDA graph's launches are not the spec's one-by-one launch overhead
  CHECK_FALSE(c.rows[8].in_mape);
  CHECK(c.rows[8].note == "CUDA graph launches: not modelled");

  REQUIRE(c.mape_rows == 4);
  double sum = 0, worst = 0;
  int worst_row = -1;
  for (int i : {0, 2, 3, 4}) {
    sum += std::abs(c.rows[i].error);
    if (std::abs(c.rows[i].error) > worst) worst = std::abs(c.rows[i].error), worst_row = i;
  }
  CHECK(c.mape == Approx(sum / 4));
  CHECK(c.worst == worst_row);
  const std::string csv = render_device_comparison(c, ValidationFormat::csv);
  CHECK(csv.rfind("benchmark,params,metric,unit,measured,predicted,error,counted,exact\n", 0) == 0);
  CHECK(csv.find("# measured on Tesla V100-SXM2-16GB, predicted with v100-sxm2-16gb: MAPE") != std::string::npos);
}

TEST_CASE("device comparison: spinning kernels back to back against the launch overhead and the spin", "[device]") {
  const GpuSpec v100 = spec("v100-sxm2-16gb");
  const DeviceMeasurements m = read_text(kV100Header +
                                         "launch-work,spin_cycles=500,gpu_us,4.9,us\n"
                                         "launch-work,spin_cycles=16000,gpu_us,15.1,us\n");
  const DeviceComparison c = compare_device_measurements(m, v100);
  REQUIRE(c.rows.size() == 2);
  REQUIRE(c.rows[0].predicted);
  REQUIRE(c.rows[1].predicted);
  // The kernel model adds the launch to the work: each spin's cycles at the boost clock after the launch.
  CHECK(*c.rows[0].predicted == Approx((v100.launch_overhead_s + 500 / v100.boost_clock_hz) * 1e6).epsilon(0.001));
  CHECK(*c.rows[1].predicted == Approx((v100.launch_overhead_s + 16000 / v100.boost_clock_hz) * 1e6).epsilon(0.001));
  CHECK_FALSE(c.rows[0].in_mape);  // shown beside the headline rows, not counted
  CHECK(c.mape_rows == 0);
  CHECK(c.rows[1].note == "spin at the spec's boost clock");
  // A row without its spin is an error naming the row.
  CHECK_THROWS_AS(compare_device_measurements(read_text(kV100Header + "launch-work,n=1,gpu_us,5,us\n"), v100),
                  ConfigError);
}

TEST_CASE("device comparison: back-to-back ops run no faster than the run's own host enqueue", "[device]") {
  const GpuSpec v100 = spec("v100-sxm2-16gb");
  const std::string rows = "copy,bytes=1048576,gbps,300,GB/s\n"
                           "copy,bytes=1048576,time_us,3.5,us\n"
                           "copy,bytes=268435456,gbps,700,GB/s\n"
                           "launch-work,spin_cycles=500,gpu_us,4.9,us\n"
                           "launch,graph=1,host_us,0.01,us\n";
  const double small_s = estimate_op(v100, copy_op(1048576.0)).time_s;
  const double large_s = estimate_op(v100, copy_op(268435456.0)).time_s;
  const double host_s = 10e-6;  // longer than the small copy, far shorter than the large one
  REQUIRE(small_s < host_s);
  REQUIRE(large_s > host_s);
  const DeviceComparison with = compare_device_measurements(read_text(kV100Header + rows + "launch,graph=0,host_us,10,us\n"), v100);
  REQUIRE(with.rows[0].predicted);
  CHECK(*with.rows[0].predicted == Approx(1048576.0 / host_s / 1e9));
  CHECK(*with.rows[1].predicted == Approx(10.0));
  CHECK(with.rows[0].note.find("host-bound") != std::string::npos);
  CHECK(*with.rows[2].predicted == Approx(268435456.0 / large_s / 1e9));  // the GPU bounds a long copy
  CHECK(with.rows[2].note.empty());
  CHECK(*with.rows[3].predicted == Approx(10.0));
  // The same small copy and a small GEMM replayed from a CUDA graph: no host enqueue between calls, so the
  // model's GPU time stands even where the run's loop was host-bound.
  const std::string replayed = "copy,bytes=1048576;graph=1,gbps,500,GB/s\n"
                               "gemm,m=256;n=256;k=256;dtype=fp16;graph=1,time_us,4,us\n"
                               "gemm,m=256;n=256;k=256;dtype=fp16,time_us,12,us\n";
  const double gemm_s = estimate_op(v100, {gemm(v100, GemmShape{256, 256, 256, 1, Precision::fp16})}).time_s;
  REQUIRE(gemm_s < host_s);
  const DeviceComparison graphs =
      compare_device_measurements(read_text(kV100Header + replayed + "launch,graph=0,host_us,10,us\n"), v100);
  CHECK(*graphs.rows[0].predicted == Approx(1048576.0 / small_s / 1e9));
  CHECK(graphs.rows[0].note.empty());
  CHECK(*graphs.rows[1].predicted == Approx(gemm_s * 1e6));
  CHECK(*graphs.rows[2].predicted == Approx(10.0));  // the same GEMM in the loop reads the host's rate
  // With cuBLAS's own cost per call measured beside the loop, that is the loop's floor, not an empty launch's.
  const DeviceComparison own_host = compare_device_measurements(
      read_text(kV100Header + replayed + "gemm,m=256;n=256;k=256;dtype=fp16,host_us,7,us\n" +
                "launch,graph=0,host_us,10,us\n"),
      v100);
  CHECK(*own_host.rows[1].predicted == Approx(gemm_s * 1e6));  // the graph row: still no floor
  CHECK(*own_host.rows[2].predicted == Approx(std::max(7.0, gemm_s * 1e6)));
  CHECK_FALSE(own_host.rows[3].predicted);
  CHECK(own_host.rows[3].note.find("cuBLAS's cost per call") != std::string::npos);
  // Without the run's host time (a CUDA graph's does not count) the model's GPU time stands alone.
  const DeviceComparison without = compare_device_measurements(read_text(kV100Header + rows), v100);
  CHECK(*without.rows[0].predicted == Approx(1048576.0 / small_s / 1e9));
  CHECK(*without.rows[3].predicted < 10.0);
}

TEST_CASE("device comparison: sustained_load.py's steady state is the case, its first window and samples shown", "[device]") {
  const GpuSpec v100 = spec("v100-sxm2-16gb");
  const std::string product = "sustained,op=gemm;precision=fp16;m=4096;n=4096;k=4096;phase=";
  const std::string rows = product + "first,tflops,100,TFLOP/s\n" + product + "steady,tflops,90,TFLOP/s\n" + product +
                           "steady,sm_clock_mhz,1380,MHz\n" + product + "steady,power_w,300,W\n" + product +
                           "steady,temperature_c,70,degC\n" + product + "steady,reasons,4,bitmask\n" +
                           "sustained,op=copy;bytes=1073741824;phase=steady,gbps,800,GB/s\n";
  const DeviceComparison c = compare_device_measurements(read_text(kV100Header + rows), v100);
  REQUIRE(c.rows.size() == 7);
  const double gemm_s = estimate_op(v100, {gemm(v100, GemmShape{4096, 4096, 4096, 1, Precision::fp16})}).time_s;
  const double tflops = 2.0 * 4096.0 * 4096.0 * 4096.0 / gemm_s / 1e12;
  CHECK(*c.rows[0].predicted == Approx(tflops));  // one clock: the first window gets the same prediction
  CHECK_FALSE(c.rows[0].in_mape);
  CHECK(*c.rows[1].predicted == Approx(tflops));
  CHECK(c.rows[1].in_mape);
  for (int i = 2; i < 6; ++i) {
    CHECK_FALSE(c.rows[i].predicted);
    CHECK(c.rows[i].note.find("one clock") != std::string::npos);
  }
  const double copy_s = estimate_op(v100, copy_op(1073741824.0)).time_s;
  CHECK(*c.rows[6].predicted == Approx(1073741824.0 / copy_s / 1e9));
  CHECK(c.rows[6].in_mape);
  CHECK_THROWS_AS(compare_device_measurements(read_text(kV100Header + "sustained,op=fft;phase=steady,tflops,1,TFLOP/s\n"), v100),
                  ConfigError);
  CHECK_THROWS_AS(compare_device_measurements(read_text(kV100Header + "sustained,op=copy;bytes=8;phase=late,gbps,1,GB/s\n"), v100),
                  ConfigError);
}

TEST_CASE("device comparison: a spec that is not the measured GPU, or a bad row, is refused", "[device]") {
  const DeviceMeasurements v100_rows = read_text(kV100Header + "copy,bytes=1024,gbps,1,GB/s\n");
  try {
    compare_device_measurements(v100_rows, spec("a100-sxm4-80gb"));
    FAIL("an A100 spec accepted a V100's measurements");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).rfind("--gpu a100-sxm4-80gb: compute capability 8.0", 0) == 0);
  }
  const DeviceMeasurements other_sms = read_text(
      "# hpcsim-cuda-bench 1\n# gpu: some V100\n# compute_capability: 7.0\n# sm_count: 84\n"
      "benchmark,params,metric,value,unit\n");
  CHECK_THROWS_WITH(compare_device_measurements(other_sms, spec("v100-sxm2-16gb")),
                    Catch::Matchers::Contains("80 SMs, but") && Catch::Matchers::Contains("with 84"));

  const GpuSpec v100 = spec("v100-sxm2-16gb");
  auto row_error = [&](const std::string& row) {
    const TempPath file("device.csv");
    std::ofstream(file.str()) << kV100Header << row << "\n";
    try {
      compare_device_measurements(read_device_measurements(file.str()), v100);
    } catch (const ConfigError& e) {
      return "F" + std::string(e.what()).substr(file.str().size());
    }
    return std::string("no error");
  };
  CHECK(row_error("gemm,m=64;n=64;k=64;dtype=fp16,tflops,1,GFLOP/s") == "F:7:1: gemm: tflops is given in TFLOP/s, not GFLOP/s");
  CHECK(row_error("gemm,m=64;n=64;dtype=fp16,tflops,1,TFLOP/s") == "F:7:1: gemm: needs the param k");
  CHECK(row_error("gemm,m=64;n=64;k=0;dtype=fp16,tflops,1,TFLOP/s") == "F:7:1: gemm: k=0 is not an integer >= 1");
  CHECK(row_error("gemm,m=64;n=64;k=64;dtype=fp99,tflops,1,TFLOP/s") == "F:7:1: gemm: unknown dtype fp99");
  CHECK(row_error("gemm,m=64;n=64;k=64;dtype=fp8,tflops,1,TFLOP/s") ==
        "F:7:1: gemm: the v100-sxm2-16gb spec has no fp8 math units");
  CHECK(row_error("copy,bytes=lots,gbps,1,GB/s") == "F:7:1: copy: bytes=lots is not an integer >= 1");
  CHECK(row_error("occupancy,threads=2048;regs=32;smem=0,blocks_per_sm,0,blocks") == "no error");  // 0 blocks, as the driver says
}

TEST_CASE("device comparison: pointer-chase latencies against the spec's load-to-use latency of their level",
          "[device]") {
  const GpuSpec v100 = spec("v100-sxm2-16gb");
  const auto l1 = static_cast<long long>(v100.sm.l1_smem_bytes);
  const auto l2 = static_cast<long long>(v100.memory.l2_bytes);
  const DeviceComparison c = compare_device_measurements(
      read_text(kV100Header +
                "pointer-chase,footprint_bytes=4096,latency,28,cycles\n" +
                "pointer-chase,footprint_bytes=" + std::to_string(4 * l1) + ",latency,212,cycles\n" +
                "pointer-chase,footprint_bytes=" + std::to_string(l2) + ",latency,300,cycles\n" +
                "pointer-chase,footprint_bytes=" + std::to_string(8 * l2) + ",latency,425,cycles\n" +
                "pointer-chase,level=l2;source=x,latency,212,cycles\n"),
      v100);
  REQUIRE(c.rows.size() == 5);
  CHECK(c.rows[0].predicted == std::optional<double>(v100.memory.l1_latency_cycles));
  CHECK(c.rows[1].predicted == std::optional<double>(v100.memory.l2_latency_cycles));
  CHECK_FALSE(c.rows[2].predicted);  // at the L2's capacity: part hits, part misses
  CHECK(c.rows[2].note == "footprint between two cache levels");
  CHECK(c.rows[3].predicted == std::optional<double>(v100.memory.hbm_latency_cycles));
  CHECK(c.rows[3].error == Approx((v100.memory.hbm_latency_cycles - 425) / 425));
  CHECK(c.rows[4].predicted == std::optional<double>(v100.memory.l2_latency_cycles));
  CHECK(c.mape_rows == 0);  // latencies are shown beside the spec, not counted with the timed cases

  CHECK_THROWS_WITH(compare_device_measurements(read_text(kV100Header + "pointer-chase,level=l3,latency,1,cycles\n"), v100),
                    Catch::Matchers::EndsWith(":7:1: pointer-chase: level=l3 is not l1, l2 or hbm"));
  CHECK_THROWS_WITH(compare_device_measurements(read_text(kV100Header + "pointer-chase,footprint_bytes=1,latency,1,ns\n"), v100),
                    Catch::Matchers::EndsWith(":7:1: pointer-chase: latency is given in cycles, not ns"));
}

TEST_CASE("device comparison: bank-conflict cycles per access against the kernel model's shared-memory rate",
          "[device]") {
  const GpuSpec v100 = spec("v100-sxm2-16gb");
  const DeviceComparison c = compare_device_measurements(
      read_text(kV100Header +
                "bank-conflicts,stride=1,cycles_per_access,1.1,cycles\n"
                "bank-conflicts,stride=2,cycles_per_access,2.1,cycles\n"
                "bank-conflicts,stride=32,cycles_per_access,33,cycles\n"
                "bank-conflicts,stride=2;dtype=fp64,cycles_per_access,4.2,cycles\n"
                "bank-conflicts,stride=2,wavefronts_per_request,2,wavefronts\n"),
      v100);
  REQUIRE(c.rows.size() == 5);
  REQUIRE(c.rows[0].predicted);
  // The serialization the hardware rules imply: gcd(stride, 32) passes; 8-byte lanes need two at best.
  CHECK(*c.rows[1].predicted == Approx(2 * *c.rows[0].predicted));
  CHECK(*c.rows[2].predicted == Approx(32 * *c.rows[0].predicted));
  CHECK(*c.rows[3].predicted == Approx(2 * *c.rows[1].predicted));
  CHECK(c.rows[1].error == Approx((*c.rows[1].predicted - 2.1) / 2.1));
  CHECK_FALSE(c.rows[4].predicted);  // the twin's mechanism row: shown, not predicted
  CHECK(c.mape_rows == 0);
  CHECK_THROWS_WITH(
      compare_device_measurements(read_text(kV100Header + "bank-conflicts,stride=2;dtype=fp16,cycles_per_access,1,cycles\n"), v100),
      Catch::Matchers::EndsWith(":7:1: bank-conflicts: dtype=fp16 is not fp32 or fp64"));
  CHECK_THROWS_WITH(compare_device_measurements(read_text(kV100Header + "bank-conflicts,dtype=fp32,cycles_per_access,1,cycles\n"), v100),
                    Catch::Matchers::Contains("stride"));
}

TEST_CASE("device comparison: special-function rates, PyTorch's products by precision and its fused attention",
          "[device]") {
  const GpuSpec v100 = spec("v100-sxm2-16gb");
  const DeviceComparison c = compare_device_measurements(
      read_text(kV100Header +
                "special-functions,op=ex2,results_per_sm_per_clock,15.9,1/cycle\n"
                "special-functions,op=fmul,results_per_sm_per_clock,63,1/cycle\n"
                "special-functions,op=f32-to-s8,results_per_sm_per_clock,16,1/cycle\n"
                "special-functions,op=ex2,gresults_per_s,2000,G/s\n"
                "gemm-precisions,precision=fp16;m=4096;n=4096;k=4096,tflops,90,TFLOP/s\n"
                "gemm-precisions,precision=fp8;m=4096;n=4096;k=4096,tflops,90,TFLOP/s\n"
                "attention-sdpa,backend=cudnn;dtype=fp16;head_dim=64;seq=1024;batch=16;heads=32;causal=0;pass=fwd,tflops,60,TFLOP/s\n"
                "attention-sdpa,backend=flash;dtype=fp16;head_dim=64;seq=1024;batch=16;heads=32;causal=0;pass=fwd,tflops,50,TFLOP/s\n"
                "attention-sdpa,backend=cudnn;dtype=fp16;head_dim=64;seq=1024;batch=16;heads=32;causal=0;pass=fwd_bwd,tflops,50,TFLOP/s\n"),
      v100);
  REQUIRE(c.rows.size() == 9);
  REQUIRE(c.rows[0].predicted);
  CHECK(*c.rows[0].predicted == v100.sfu_lanes_per_sm);
  REQUIRE(c.rows[1].predicted);
  CHECK(*c.rows[1].predicted == Approx(64));  // 64 FP32 lanes per Volta SM
  CHECK_FALSE(c.rows[2].predicted);           // conversions: no rate in the spec
  CHECK_FALSE(c.rows[3].predicted);
  REQUIRE(c.rows[4].predicted);
  CHECK(*c.rows[4].predicted == Approx(estimate_op(v100, {gemm(v100, {4096, 4096, 4096, 1, Precision::fp16})}).flops_per_s / 1e12));
  CHECK(c.rows[4].in_mape);
  CHECK_FALSE(c.rows[5].predicted);  // the V100 has no fp8
  REQUIRE(c.rows[6].predicted);
  REQUIRE(c.rows[7].predicted);
  CHECK(*c.rows[6].predicted == *c.rows[7].predicted);  // one kernel model, whichever backend ran
  CHECK(c.rows[6].in_mape);
  CHECK_FALSE(c.rows[7].in_mape);  // FlashAttention-2 is shown, not counted
  CHECK_FALSE(c.rows[8].predicted);
  CHECK(c.mape_rows == 2);
  // A row without the params its prediction needs is refused at its line.
  for (const char* row : {"special-functions,,results_per_sm_per_clock,16,1/cycle\n",
                          "gemm-precisions,m=1;n=1;k=1,tflops,1,TFLOP/s\n",
                          "attention-sdpa,backend=cudnn;dtype=fp16;head_dim=64;seq=1;batch=1;heads=1,tflops,1,TFLOP/s\n",
                          "attention-sdpa,backend=cudnn;pass=fwd;head_dim=64;seq=1;batch=1;heads=1,tflops,1,TFLOP/s\n"}) {
    INFO(row);
    CHECK_THROWS_WITH(compare_device_measurements(read_text(kV100Header + row), v100), Catch::Matchers::Contains(":7:1: ") &&
                                                                                        Catch::Matchers::Contains("needs"));
  }
}

TEST_CASE("device comparison: host copies over the PCIe link and the overlap case's two streams", "[device]") {
  static const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const NetworkSpec pcie3 =
      parse_network_spec(catalog.load("networks", ConfigNode::make_scalar("pcie3", SourceLoc{"test", 0, 0}), "link"), "pcie3");
  const GpuSpec v100 = spec("v100-sxm2-16gb");
  REQUIRE(v100.pcie_lanes == 16);
  const DeviceMeasurements m = read_text(kV100Header +
                                         "pcie,direction=h2d;bytes=268435456,gbps,11,GB/s\n"
                                         "overlap,memory=pinned,copy_us,25000,us\n"
                                         "overlap,memory=pinned,compute_us,20000,us\n"
                                         "overlap,memory=pinned,both_us,26000,us\n"
                                         "overlap,memory=pinned,overlap_fraction,0.95,fraction\n"
                                         "overlap,memory=pageable;bytes=1048576,copy_us,90000,us\n"
                                         "overlap,memory=pageable;bytes=1048576,compute_us,20000,us\n"
                                         "overlap,memory=pageable;bytes=1048576,both_us,108000,us\n");
  const DeviceComparison c = compare_device_measurements(m, v100, &pcie3);
  REQUIRE(c.rows.size() == 8);
  // PCIe 3.0 x16: 16 GB/s after 128b/130b, times 256 payload bytes per 280 on the wire, plus the 2 us per copy.
  const double payload = 16e9 * 128 / 130 * 256 / 280;
  const double copy_s = 2e-6 + 268435456.0 / payload;
  REQUIRE(c.rows[0].predicted);
  CHECK(*c.rows[0].predicted == Approx(268435456.0 / copy_s / 1e9));
  CHECK(c.rows[0].in_mape);
  CHECK(*c.rows[1].predicted == Approx(copy_s * 1e6));  // an overlap row without bytes: the full run's 256 MiB
  CHECK_FALSE(c.rows[1].in_mape);
  CHECK_FALSE(c.rows[2].predicted);  // the bench sizes its kernel to the pinned copy
  // Pinned: the copy engine and the SMs at once, so both take the longer; pageable: one after the other.
  CHECK(*c.rows[3].predicted == Approx(25000));
  CHECK(c.rows[3].in_mape);
  CHECK(*c.rows[4].predicted == Approx(1.0));
  CHECK_FALSE(c.rows[5].predicted);  // a pageable copy runs at the host's staging rate
  CHECK(*c.rows[7].predicted == Approx(110000));
  CHECK(c.mape_rows == 3);
  CHECK(c.mape == Approx((std::abs(*c.rows[0].predicted / 11 - 1) + 1000.0 / 26000 + 2000.0 / 108000) / 3));
  // Without the link spec the copies are shown, not predicted; the stream model still composes the case.
  const DeviceComparison without = compare_device_measurements(m, v100);
  CHECK_FALSE(without.rows[0].predicted);
  CHECK(without.rows[3].predicted);
  CHECK_THROWS_AS(compare_device_measurements(read_text(kV100Header + "overlap,memory=managed,both_us,1,us\n"), v100), ConfigError);

  // With the run's own memcpy of the bytes into pinned memory, the pageable copy is predicted: the host's
  // staging when it is the slower, the pinned DMA under it otherwise.
  const std::string pageable = "overlap,memory=pageable;bytes=268435456,";
  const DeviceComparison staged = compare_device_measurements(
      read_text(kV100Header + pageable + "copy_us,40000,us\n" + pageable + "staging_memcpy_us,38000,us\n"), v100, &pcie3);
  REQUIRE(staged.rows[0].predicted);
  CHECK(*staged.rows[0].predicted == Approx(38000));
  CHECK(staged.rows[0].note.find("staged by the host") != std::string::npos);
  CHECK_FALSE(staged.rows[1].predicted);  // the staging row itself is the run's host rate, an input
  const DeviceComparison fast_host = compare_device_measurements(
      read_text(kV100Header + pageable + "copy_us,20000,us\n" + pageable + "staging_memcpy_us,5000,us\n"), v100, &pcie3);
  CHECK(*fast_host.rows[0].predicted == Approx(copy_s * 1e6));
}

TEST_CASE("device comparison: fma-ilp rows from the kernel model's latency hiding, the rate counted", "[device]") {
  // A V100 sub-partition has 16 FP32 lanes: a warp's FFMA issues over 2 cycles, so one warp per scheduler
  // with 1 chain waits out the 4-cycle latency (4 cycles a FMA) and 2 chains fill the pipe (2 cycles).
  const GpuSpec v100 = spec("v100-sxm2-16gb");
  const DeviceComparison c = compare_device_measurements(read_text(kV100Header +
                                                                   "fma-ilp,chains=1,cycles_per_fma,4.2,cycles\n"
                                                                   "fma-ilp,chains=2,cycles_per_fma,2.1,cycles\n"
                                                                   "fma-ilp,chains=8,cycles_per_fma,2.1,cycles\n"
                                                                   "fma-ilp,chains=1,tflops,3.5,TFLOP/s\n"
                                                                   "fma-ilp,chains=8,tflops,14,TFLOP/s\n"),
                                                         v100);
  REQUIRE(c.rows.size() == 5);
  CHECK(*c.rows[0].predicted == Approx(4).epsilon(1e-9));
  CHECK(*c.rows[1].predicted == Approx(2).epsilon(1e-9));
  CHECK(*c.rows[2].predicted == Approx(2).epsilon(1e-9));
  CHECK_FALSE(c.rows[0].in_mape);
  const double peak = v100.peak(Precision::fp32, MathUnit::vector) / 1e12;
  CHECK(*c.rows[4].predicted == Approx(peak).epsilon(0.01));  // the launch is a fraction of a percent
  CHECK(*c.rows[3].predicted == Approx(*c.rows[4].predicted / 2).epsilon(0.01));
  CHECK(c.mape_rows == 2);
  REQUIRE(c.by_benchmark.size() == 1);
  CHECK(c.by_benchmark[0].benchmark == "fma-ilp");
  CHECK(c.by_benchmark[0].rows == 2);
  CHECK(c.by_benchmark[0].mape == Approx(c.mape).epsilon(1e-12));
  CHECK(render_device_comparison(c, ValidationFormat::table).find("by benchmark: fma-ilp ") != std::string::npos);
}

TEST_CASE("device comparison: streaming reads from the kernel model's sectors and requests in flight", "[device]") {
  const GpuSpec v100 = spec("v100-sxm2-16gb");
  const DeviceComparison c = compare_device_measurements(
      read_text(kV100Header +
                "coalescing,stride=1,gbps,600,GB/s\n"
                "coalescing,stride=4,gbps,200,GB/s\n"
                "coalescing,stride=8,gbps,100,GB/s\n"
                "coalescing,stride=8,time_us,1340,us\n"
                "occupancy-sweep,block=256;regs=16,blocks_per_sm,8,blocks\n"
                "occupancy-sweep,block=256;regs=16,gbps,700,GB/s\n"
                "occupancy-sweep,block=256;regs=128,blocks_per_sm,2,blocks\n"
                "occupancy-sweep,block=256;regs=128,gbps,200,GB/s\n"
                "occupancy-sweep,block=256;regs=255,blocks_per_sm,1,blocks\n"),
      v100);
  REQUIRE(c.rows.size() == 9);
  // The same kernel by hand: 2^25 floats 8 apart, one full wave of 256-thread blocks, one load in flight a warp.
  KernelLaunch launch;
  launch.threads_per_block = 256;
  launch.blocks = 8 * v100.sm_count;
  KernelWork work;
  work.flops = 33554432.0;
  work.add({4 * 33554432.0, -1, 4, 8, false});
  const double seconds = estimate_kernel(v100, launch, work).time_s;
  CHECK(*c.rows[2].predicted == Approx(4 * 33554432.0 / seconds / 1e9).epsilon(1e-12));
  CHECK(*c.rows[3].predicted == Approx(seconds * 1e6).epsilon(1e-12));
  CHECK(*c.rows[1].predicted < *c.rows[0].predicted);  // more sectors a request, fewer useful bytes a second
  CHECK(*c.rows[2].predicted < *c.rows[1].predicted);
  // Occupancy: 8, 2 and 1 blocks of 256 threads (65,536 registers a SM, allocated 256 a warp).
  CHECK(c.rows[4].exact);
  CHECK(*c.rows[4].predicted == 8);
  CHECK(*c.rows[6].predicted == 2);
  CHECK(*c.rows[8].predicted == 1);
  CHECK(c.occupancy_rows == 3);
  CHECK(c.occupancy_matches == 3);
  // A quarter of the warps keeps a quarter of the requests in flight: Little's law binds below the bandwidth
  // that 64 warps a SM reach.
  CHECK(*c.rows[7].predicted < 0.8 * *c.rows[5].predicted);
  CHECK(c.mape_rows == 5);  // the three coalescing and two sweep bandwidths
}

TEST_CASE("device comparison: a sweep launch the GPU cannot run is refused at its row", "[device]") {
  const GpuSpec v100 = spec("v100-sxm2-16gb");
  for (const std::string params : {"block=4096;regs=16", "block=64;regs=100000"}) {
    CHECK_THROWS_WITH(
        compare_device_measurements(read_text(kV100Header + "occupancy-sweep," + params + ",gbps,600,GB/s\n"), v100),
        Catch::Matchers::Contains(":7:1: ") && Catch::Matchers::Contains("cannot run"));
  }
  // A param past an int is refused at its row, not wrapped (stride 4,294,967,297 read as stride 1).
  for (const std::string row : {"coalescing,stride=4294967297,gbps,600,GB/s\n", "bank-conflicts,stride=2147483648,cycles_per_access,1,cycles\n",
                                "occupancy,kernel=k;threads=4294967424;regs=16;smem=0,blocks_per_sm,1,blocks\n"}) {
    CHECK_THROWS_WITH(compare_device_measurements(read_text(kV100Header + row), v100),
                      Catch::Matchers::Contains(":7:1: ") && Catch::Matchers::Contains("more than 2,147,483,647"));
  }
  // Its occupancy row reads 0 blocks, as the driver answers for a launch that cannot run.
  const DeviceComparison c =
      compare_device_measurements(read_text(kV100Header + "occupancy-sweep,block=4096;regs=16,blocks_per_sm,0,blocks\n"), v100);
  CHECK(c.occupancy_matches == 1);
}

TEST_CASE("device comparison: the rows' own sizes (a --quick run's) set the predicted times", "[device]") {
  const GpuSpec v100 = spec("v100-sxm2-16gb");
  const DeviceComparison c = compare_device_measurements(read_text(kV100Header +
                                                                   "coalescing,stride=8,time_us,1000,us\n"
                                                                   "coalescing,stride=8;n=8388608,time_us,250,us\n"
                                                                   "fma-ilp,chains=4,tflops,14,TFLOP/s\n"
                                                                   "fma-ilp,chains=4;iters=4096,tflops,14,TFLOP/s\n"),
                                                         v100);
  REQUIRE(c.rows.size() == 4);
  // A quarter of the floats: a quarter of the streaming time, the launch apart.
  CHECK(*c.rows[1].predicted == Approx((*c.rows[0].predicted - 1e6 * v100.launch_overhead_s) / 4 +
                                       1e6 * v100.launch_overhead_s).epsilon(0.02));
  // A quarter of the trips: the launch a larger share of the rate.
  CHECK(*c.rows[3].predicted < *c.rows[2].predicted);
  CHECK(*c.rows[3].predicted > 0.9 * *c.rows[2].predicted);
  CHECK_THROWS_WITH(compare_device_measurements(read_text(kV100Header + "coalescing,stride=8;n=0,gbps,1,GB/s\n"), v100),
                    Catch::Matchers::Contains(":7:1: ") && Catch::Matchers::Contains("n=0"));
}
