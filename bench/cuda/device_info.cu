#include "check.h"
#include "device_info.h"

#include <cstdio>
#include <ctime>
#include <string>

namespace hcb {
namespace {

// cudaDriverGetVersion / cudaRuntimeGetVersion encode 13.0 as 13000.
std::string cuda_version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

int device_attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

}  // namespace

bool select_device(cudaDeviceProp* prop) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaSuccess && count == 0) err = cudaErrorNoDevice;  // not expected, but never index device 0 then
  if (err != cudaSuccess) {
    std::fprintf(stderr, "hpcsim-cuda-bench: no CUDA device: %s\n", cudaGetErrorString(err));
    return false;
  }
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaGetDeviceProperties(prop, 0));
  return true;
}

void write_header(Context& ctx) {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int driver = 0;
  int runtime = 0;
  int cublas = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  CUBLAS_CHECK(cublasGetVersion(ctx.cublas, &cublas));

  // Clocks come from attributes: CUDA 13 dropped the clock fields from cudaDeviceProp. Attributes are in kHz.
  CsvWriter& out = *ctx.out;
  out.magic();
  out.comment("date", utc_now_iso8601());
  out.comment("gpu", ctx.prop.name);
  out.comment("compute_capability", std::to_string(ctx.prop.major) + "." + std::to_string(ctx.prop.minor));
  out.comment("sm_count", std::to_string(ctx.prop.multiProcessorCount));
  out.comment("sm_clock_mhz", std::to_string(device_attribute(cudaDevAttrClockRate, device) / 1000));
  out.comment("memory_clock_mhz", std::to_string(device_attribute(cudaDevAttrMemoryClockRate, device) / 1000));
  out.comment("memory_bus_bits", std::to_string(device_attribute(cudaDevAttrGlobalMemoryBusWidth, device)));
  out.comment("driver_version", cuda_version_string(driver));
  out.comment("runtime_version", cuda_version_string(runtime));
  out.comment("cublas_version", std::to_string(cublas));
  for (const auto& [key, value] : ctx.extra_header) out.comment(key.c_str(), value);
  out.columns();
}

}  // namespace hcb
