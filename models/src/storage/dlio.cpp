#include "models/storage/dlio.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace hpcsim {

namespace {

// Sources: [MS] MLPerf Storage v1.0 DLIO workload configurations, as shipped with the v1.0 submissions
// (mlcommons/storage_results_v1.0 @64c2ce48 Closed/DDN/code/dlio_benchmark/dlio_benchmark/configs/workload/
// cosmoflow_a100.yaml, cosmoflow_h100.yaml, unet3d_h100.yaml, resnet50_a100.yaml; collected in
// ../shared/reference/storage/mlperf-storage-public.yaml); [U3] mlcommons/storage @be18c3e5
// configs/dlio/workload/unet3d_a100.yaml; [R5] mlcommons/storage @ac0424fa configs/dlio/workload/
// resnet50_h100.yaml. record_length_bytes is the mean (unet3d's samples vary, stdev 68 MB).
const std::array<DlioWorkload, 6> kWorkloads{{
    {"unet3d", "h100", 146600628, 7, 4, 0.323, 0.9},     // [MS]
    {"unet3d", "a100", 146600628, 7, 4, 0.636, 0.9},     // [U3]
    {"resnet50", "h100", 114660.07, 400, 8, 0.224, 0.9}, // [R5]
    {"resnet50", "a100", 114660.07, 400, 8, 0.435, 0.9}, // [MS]
    {"cosmoflow", "h100", 2828486, 1, 4, 0.0035, 0.7},   // [MS]
    {"cosmoflow", "a100", 2828486, 1, 4, 0.00551, 0.7},  // [MS]
}};

// Readers stream whole sample files; the steady rate does not depend on the amount read.
constexpr double kBytesPerReader = 1073741824.0;

}  // namespace

std::span<const DlioWorkload> dlio_workloads() { return kWorkloads; }

std::optional<DlioWorkload> find_dlio_workload(const std::string& model, const std::string& accelerator) {
  for (const DlioWorkload& w : kWorkloads)
    if (w.model == model && w.accelerator == accelerator) return w;
  return std::nullopt;
}

DlioResult simulate_dlio(const FileSystemSpec& fs, const DlioWorkload& w, int accelerators, int hosts) {
  if (hosts < 1) throw std::invalid_argument("MLPerf Storage needs at least one host");
  if (accelerators < hosts)
    throw std::invalid_argument("MLPerf Storage needs at least one accelerator per host (" +
                                std::to_string(accelerators) + " accelerators on " + std::to_string(hosts) + " hosts)");
  DlioResult r;
  r.accelerators = accelerators;
  r.hosts = hosts;
  // The readers prefetch while the accelerators compute, so a step takes max(compute, read): AU is the
  // delivered bandwidth over the asked one, at most 1.
  const CheckpointResult read =
      simulate_checkpoint(fs, {hosts, accelerators * w.read_threads}, kBytesPerReader, IoOp::read);
  r.read = read.rate;
  r.delivered_bytes_per_s = read.rate.rate;
  const double asked = accelerators * w.asked_bytes_per_s();
  r.au = std::min(1.0, r.delivered_bytes_per_s / asked);
  r.bytes_per_s = r.au * asked;
  r.samples_per_s = r.bytes_per_s / w.record_bytes;
  return r;
}

int max_dlio_accelerators(const FileSystemSpec& fs, const DlioWorkload& w, int hosts, int limit) {
  const auto passes = [&](int n) { return simulate_dlio(fs, w, n, hosts).au >= w.au_min; };
  if (limit < hosts || !passes(hosts)) return 0;
  // AU does not rise with more accelerators (the asked bandwidth grows linearly, the delivered one at
  // most so), so the passing counts are hosts..n*: double, then bisect.
  int good = hosts;
  int bad = hosts;
  while (bad <= limit && passes(bad)) {
    good = bad;
    if (bad > limit / 2) {
      bad = limit + 1;
      break;
    }
    bad *= 2;
  }
  if (bad > limit) {
    if (passes(limit)) return limit;
    bad = limit;
  }
  while (bad - good > 1) {
    const int mid = good + (bad - good) / 2;
    (passes(mid) ? good : bad) = mid;
  }
  return good;
}

}  // namespace hpcsim
