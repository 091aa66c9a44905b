// IO500 on a file system described as hardware (issue 39): a 10-client run (the IO500 10-node list's
// shape, 16 processes a node) and a 1,000-client run (16,000 processes), every phase, on the flash Lustre
// of configs/filesystems/lustre-nvme-opa.yaml. Prints wall time, events and the ior-easy rates; the issue's
// bound is under 1 s each. Then a training job's loader workers reading ImageNet-sized files
// (simulate_file_reads, the input pipeline's storage stage) at 16 and 4,096 nodes of 128 readers.
//
// Usage (from the source root): io500_bench [configs dir=configs]
#include <chrono>
#include <cstdio>

#include "configs/catalog.h"
#include "models/storage/io500.h"

using namespace hpcsim;

namespace {

void run(const FileSystemSpec& fs, int clients, int procs) {
  const auto t0 = std::chrono::steady_clock::now();
  const Io500Result r = simulate_io500(fs, {clients, procs});
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%5d clients, %6d processes: ior-easy write %.1f GiB/s (%s), mdtest-easy %.1f kIOPS  %llu events  "
              "wall %.4f s%s\n",
              clients, procs, r.at(Io500Phase::ior_easy_write).rate / 1073741824.0,
              r.at(Io500Phase::ior_easy_write).bottleneck.c_str(), r.at(Io500Phase::mdtest_easy_create).rate / 1e3,
              static_cast<unsigned long long>(r.events), wall, wall < 1.0 ? "" : "  (over the 1 s bound)");
}

void run_file_reads(const FileSystemSpec& fs, int nodes, int readers) {
  const auto t0 = std::chrono::steady_clock::now();
  const FileReadsResult r = simulate_file_reads(fs, {nodes, readers}, 109e3);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%5d nodes, %7d readers of 109 KB files: %.0f files/s (%s)  wall %.4f s\n", nodes, readers,
              r.bytes_per_s / 109e3, r.bottleneck.c_str(), wall);
}

}  // namespace

int main(int argc, char** argv) {
  const SpecCatalog catalog(argc > 1 ? argv[1] : HPCSIM_SOURCE_CONFIG_DIR);
  const ConfigNode name = ConfigNode::make_scalar("lustre-nvme-opa", SourceLoc{"io500_bench", 0, 0});
  const FileSystemSpec fs =
      parse_filesystem_spec(catalog.load("filesystems", name, "file system"), "lustre-nvme-opa", catalog);
  run(fs, 10, 160);
  run(fs, 1000, 16000);
  run_file_reads(fs, 16, 16 * 128);
  run_file_reads(fs, 4096, 4096 * 128);
}
