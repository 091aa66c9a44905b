#pragma once
// How kernels run when one host thread issues them to one stream. Launches are asynchronous: the host
// runs ahead of the GPU, but the GPU cannot start a kernel before the host has dispatched it, so a run of
// kernels shorter than the dispatch cost leaves the stream idle (dispatch-bound), while a long kernel lets
// the host queue the next ones. With CUDA graphs the whole captured sequence is one launch.
#include <cstdint>
#include <vector>

#include "models/gpu/gpu_spec.h"
#include "models/gpu/ops/op_kernel.h"

namespace hpcsim {

struct IssueMode {
  double dispatch_s = 0;     // host time to dispatch one kernel (framework, driver and launch call)
  bool cuda_graphs = false;  // the sequence was captured once and is replayed as one graph launch
};

// Host and stream clocks of one host thread issuing to one stream, starting together at 0. Each kernel j
// is dispatched at host time h_j = h_{j-1} + dispatch and ends at max(end_{j-1}, h_j) + its GPU time
// (estimate_kernel); Kernel::count launches are count dispatches. Under CUDA graphs the first issue pays
// one dispatch (the graph launch) and every kernel then starts when the previous one ends.
class KernelIssue {
 public:
  KernelIssue(const GpuSpec& gpu, IssueMode mode) : gpu_(gpu), mode_(mode) {}

  // Issues `kernels` after everything issued before; returns how much later the stream now finishes.
  double issue(const std::vector<Kernel>& kernels);

  double host_s() const { return host_s_; }      // when the host has dispatched everything so far
  double stream_s() const { return stream_s_; }  // when the stream finishes everything so far
  std::int64_t dispatches() const { return dispatches_; }

 private:
  const GpuSpec& gpu_;
  IssueMode mode_;
  double host_s_ = 0, stream_s_ = 0;
  std::int64_t dispatches_ = 0;
};

// Stream time of `kernels` issued back to back from an idle host and stream: for equal kernels each takes
// max(GPU time, dispatch) in eager mode; with CUDA graphs one dispatch plus the GPU times.
double issue_time(const GpuSpec& gpu, const std::vector<Kernel>& kernels, const IssueMode& mode);

}  // namespace hpcsim
