#pragma once
// The GPU model beside measurements from our CUDA suite (`hpcsim validate --measured FILE --gpu NAME`):
// each row the model can predict from the GPU spec (and its PCIe link) gets its prediction and relative
// error; the MAPE and worst case are over the timed rows (one per case: GEMM and fma-ilp TFLOP/s, copy,
// triad, PCIe, coalescing and occupancy-sweep GB/s, launch time, an overlap case's both_us), also per
// benchmark; occupancy rows are the driver's exact answers and must match the occupancy rules exactly. The suite
// times ops back to back, so a copy, triad, GEMM or spinning kernel is predicted at no less than the run's
// own host enqueue time per launch (its `launch` host_us row, when present).

#include "driver/device_measurements.h"
#include "report/device_comparison_report.h"
#include "models/gpu/gpu_spec.h"
#include "models/network/network_spec.h"

namespace hpcsim {

// std::invalid_argument naming --gpu when the spec cannot be the measured GPU (another compute capability
// or SM count than the CSV's header says); ConfigError at the row's line for a row of a modelled benchmark
// that lacks a param, has one out of range, or gives a metric in another unit. `host_link` is the PCIe
// generation the GPU spec names (configs/networks/pcie<N>.yaml): host copies are predicted over it; without
// it they are shown unmodelled.
DeviceComparison compare_device_measurements(const DeviceMeasurements& measured, const GpuSpec& gpu,
                                             const NetworkSpec* host_link = nullptr);

}  // namespace hpcsim
