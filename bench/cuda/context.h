// What every benchmark gets: the output, the device it runs on and how thorough to be.
#pragma once

#include "csv_writer.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>
#include <utility>
#include <vector>

namespace hcb {

struct Context {
  CsvWriter* out = nullptr;
  bool quick = false;
  int trials = 7;               // the median is over this many timed trials (always >= 5)
  double target_ms = 25.0;      // reps are chosen so one timed trial takes about this long
  double warmup_ms = 50.0;      // run before timing, so clocks and caches settle
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cudaDeviceProp prop{};
  // --header KEY=VALUE lines, written after the suite's own header lines (run_on_device.sh adds the driver).
  std::vector<std::pair<std::string, std::string>> extra_header;
};

// One function per benchmark; main.cu holds the table that names them.
void run_launch(Context& ctx);
void run_copy(Context& ctx);
void run_triad(Context& ctx);
void run_pcie(Context& ctx);
void run_gemm(Context& ctx);
void run_occupancy(Context& ctx);
void run_pointer_chase(Context& ctx);
void run_coalescing(Context& ctx);
void run_bank_conflicts(Context& ctx);
void run_divergence(Context& ctx);
void run_fma_ilp(Context& ctx);
void run_occupancy_sweep(Context& ctx);
void run_overlap(Context& ctx);
void run_special_functions(Context& ctx);

}  // namespace hcb
