// Event timing: warm up, pick a repetition count, then time R back-to-back repetitions per trial and keep the
// median trial, which shrugs off the odd trial disturbed by clock changes or another process.
#pragma once

#include "check.h"
#include "context.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hcb {

double median(std::vector<double> values);

// A pair of events owned for one measurement; destroyed on scope exit so repeated measurements do not leak.
class EventPair {
 public:
  EventPair() {
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  void start(cudaStream_t s) { CUDA_CHECK(cudaEventRecord(start_, s)); }
  void stop(cudaStream_t s) { CUDA_CHECK(cudaEventRecord(stop_, s)); }
  // Waits for the stop event, then returns start->stop in milliseconds.
  double elapsed_ms() {
    CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// Median time in microseconds of one call of `op`, which enqueues its work on ctx.stream.
template <class Op>
double time_op_us(const Context& ctx, Op&& op) {
  EventPair ev;
  auto batch_ms = [&](int reps) {
    ev.start(ctx.stream);
    for (int r = 0; r < reps; ++r) op();
    ev.stop(ctx.stream);
    return ev.elapsed_ms();
  };

  // Warm-up doubles the batch until enough time was spent; the last batch also calibrates the rep count.
  double spent_ms = 0.0;
  double per_op_ms = 0.0;
  for (int reps = 1;; reps = std::min(reps * 2, 1 << 16)) {
    const double ms = batch_ms(reps);
    spent_ms += ms;
    per_op_ms = ms / reps;
    if (spent_ms >= ctx.warmup_ms) break;
  }
  const double wanted = per_op_ms > 0.0 ? std::ceil(ctx.target_ms / per_op_ms) : 10000.0;
  const int reps = static_cast<int>(std::clamp(wanted, 3.0, 10000.0));

  std::vector<double> per_op_us;
  for (int t = 0; t < ctx.trials; ++t) per_op_us.push_back(batch_ms(reps) * 1000.0 / reps);
  return median(per_op_us);
}

// Median time in microseconds of one call of `op` from a CUDA graph holding `calls` calls of it, captured on
// ctx.stream and replayed back to back: the GPU's time per call with no host enqueue between calls (an op the
// host enqueues more slowly than the GPU runs it reads the host's rate in time_op_us). Run `op` once outside
// capture first, so that libraries (cuBLAS's heuristics) set up before the capture starts.
template <class Op>
double time_graph_us(const Context& ctx, int calls, Op&& op) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(ctx.stream, cudaStreamCaptureModeThreadLocal));
  for (int c = 0; c < calls; ++c) op();
  CUDA_CHECK(cudaStreamEndCapture(ctx.stream, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  const double us = time_op_us(ctx, [&] { CUDA_CHECK(cudaGraphLaunch(exec, ctx.stream)); });
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  return us / calls;
}

// Calls per graph for time_graph_us: enough that one replay takes about 200 us given a loop's time per call.
inline int graph_calls(double loop_us) { return static_cast<int>(std::clamp(std::ceil(200.0 / loop_us), 1.0, 256.0)); }

inline double gb_per_s(double bytes, double time_us) { return bytes / (time_us * 1e-6) / 1e9; }

}  // namespace hcb
