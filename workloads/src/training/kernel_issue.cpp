#include "workloads/training/kernel_issue.h"

#include <algorithm>
#include <stdexcept>

namespace hpcsim {

double KernelIssue::issue(const std::vector<Kernel>& kernels) {
  if (!(mode_.dispatch_s >= 0)) throw std::invalid_argument("kernel issue: dispatch time must be >= 0");
  const double before = stream_s_;
  for (const Kernel& k : kernels) {
    if (k.count < 1) continue;
    const double g = estimate_kernel(gpu_, k.launch, k.work).time_s;
    const double n = static_cast<double>(k.count);
    if (mode_.cuda_graphs) {
      if (dispatches_ == 0) host_s_ += mode_.dispatch_s, dispatches_ = 1;  // the one graph launch
      stream_s_ = std::max(stream_s_, host_s_) + n * g;
      continue;
    }
    // n equal kernels dispatched d apart from host time h: the last ends at the latest of the stream
    // backlog plus n g, the first dispatch plus n g, and the last dispatch plus g (the recurrence
    // end_j = max(end_{j-1}, h + (j+1) d) + g solved in closed form).
    const double d = mode_.dispatch_s, h = host_s_;
    stream_s_ = std::max({stream_s_ + n * g, h + d + n * g, h + n * d + g});
    host_s_ = h + n * d;
    dispatches_ += k.count;
  }
  return stream_s_ - before;
}

double issue_time(const GpuSpec& gpu, const std::vector<Kernel>& kernels, const IssueMode& mode) {
  KernelIssue issue(gpu, mode);
  return issue.issue(kernels);
}

}  // namespace hpcsim
