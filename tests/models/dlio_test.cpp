// MLPerf Storage's DLIO emulation on a file system described as hardware: AU is the delivered bandwidth
// over the asked one, and the largest passing accelerator count is the binding stage over the threshold.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "configs/loader.h"
#include "models/storage/dlio.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

// 4 data servers on EDR with 24 SATA SSDs each (12.5 GB/s of reads per server, above the port); clients
// with `client_ports` EDR ports each.
FileSystemSpec filesystem(int client_ports) {
  const std::string text =
      "type: lustre\nnetwork: ib-edr\ndata_servers:\n  count: 4\n  ports: 1\n  devices: 24\n"
      "  device: ssd-sata-pm883\n  targets: 24\nmetadata_servers:\n  count: 1\n  ops: 20000\n  latency: 100 us\n"
      "client:\n  rpc_size: 1 MiB\n  rpcs_in_flight: 8\n  ports: " +
      std::to_string(client_ports) + "\nstriping:\n  count: 1\n  size: 1 MiB\n";
  return parse_filesystem_spec(parse_config_text(text, "fs.yaml"), "test", catalog());
}

}  // namespace

TEST_CASE("DLIO workloads: the MLPerf Storage v1.0 definitions") {
  const auto unet = find_dlio_workload("unet3d", "h100");
  REQUIRE(unet);
  // 7 samples of 146,600,628 B every 0.323 s: 3,030 MiB/s per accelerator.
  CHECK(unet->asked_bytes_per_s() / 1048576 == Approx(3030.0).epsilon(1e-3));
  const auto resnet = find_dlio_workload("resnet50", "h100");
  REQUIRE(resnet);
  CHECK(resnet->asked_bytes_per_s() / 1048576 == Approx(195.2).epsilon(1e-3));
  CHECK(find_dlio_workload("cosmoflow", "a100")->au_min == 0.7);
  CHECK_FALSE(find_dlio_workload("bert", "h100"));
  CHECK(dlio_workloads().size() == 6);
}

TEST_CASE("DLIO: AU is delivered over asked, the largest passing count the binding stage over the threshold") {
  const DlioWorkload w = *find_dlio_workload("unet3d", "h100");
  const FileSystemSpec one = filesystem(1);
  // One host: its one EDR port is the narrowest stage.
  const double port = one.network.payload_bandwidth();
  const DlioResult few = simulate_dlio(one, w, 1, 1);
  CHECK(few.au == 1.0);
  CHECK(few.bytes_per_s == Approx(w.asked_bytes_per_s()));
  CHECK(few.samples_per_s == Approx(w.batch / w.compute_s));
  const int largest = max_dlio_accelerators(one, w, 1, 1000);
  CHECK(largest == static_cast<int>(std::floor(port / (w.au_min * w.asked_bytes_per_s()))));
  const DlioResult at = simulate_dlio(one, w, largest, 1);
  const DlioResult over = simulate_dlio(one, w, largest + 1, 1);
  CHECK(at.au >= w.au_min);
  CHECK(over.au < w.au_min);
  CHECK(over.read.bottleneck == "client ports");
  CHECK(over.bytes_per_s == Approx(port).epsilon(1e-3));
  // Two ports per host double what one host can feed.
  const int two = max_dlio_accelerators(filesystem(2), w, 1, 1000);
  CHECK(two == static_cast<int>(std::floor(2 * port / (w.au_min * w.asked_bytes_per_s()))));
  // Many hosts: the 4 servers' ports bind.
  const int many = max_dlio_accelerators(one, w, 16, 10000);
  CHECK(many == static_cast<int>(std::floor(4 * one.server_port_bandwidth() / (w.au_min * w.asked_bytes_per_s()))));
  CHECK(simulate_dlio(one, w, many + 1, 16).read.bottleneck == "server ports");
  // The limit caps the search; fewer accelerators than hosts is an error.
  CHECK(max_dlio_accelerators(one, *find_dlio_workload("resnet50", "a100"), 1, 50) == 50);
  CHECK_THROWS_AS(simulate_dlio(one, w, 1, 2), std::invalid_argument);
}

TEST_CASE("DLIO hosts: reader threads and cores bound the count until the storage binds") {
  DlioWorkload w = *find_dlio_workload("unet3d", "h100");
  const FileSystemSpec one = filesystem(1);
  const int storage = max_dlio_accelerators(one, w, 1, 1000);  // the host's port binds
  REQUIRE(storage >= 3);
  const DlioReader npz = *find_dlio_reader("npz");
  CHECK(npz.workers_per_thread);
  // The host-bound count: the largest n with min(n x threads, cores) x rate >= threshold x n x asked.
  const auto host_bound = [&](int threads, int cores) {
    int n = 0;
    while (std::min(double((n + 1) * threads), double(cores)) * npz.bytes_per_core_s >=
           w.au_min * (n + 1) * w.asked_bytes_per_s())
      ++n;
    return n;
  };
  // The workload's 4 threads: 4 cores of npz decode per accelerator fall short of one H100's ask at 90 %.
  REQUIRE(4 * npz.bytes_per_core_s < w.au_min * w.asked_bytes_per_s());
  CHECK(max_dlio_accelerators(one, w, 1, 1000, DlioHost{64}) == 0);
  CHECK(simulate_dlio(one, w, 1, 1, DlioHost{64}).bottleneck == "host readers");
  // More reader threads raise the host-bound count until the storage binds.
  int last = 0;
  for (int threads : {4, 6, 8, 16}) {
    w.read_threads = threads;
    const int n = max_dlio_accelerators(one, w, 1, 1000, DlioHost{16});
    CHECK(n == std::min(storage, host_bound(threads, 16)));
    CHECK(n >= last);
    last = n;
  }
  CHECK(last > 0);
  // A host with fewer cores passes fewer accelerators; with many cores the storage binds again.
  w.read_threads = 16;
  const int few = max_dlio_accelerators(one, w, 1, 1000, DlioHost{8});
  const int some = max_dlio_accelerators(one, w, 1, 1000, DlioHost{16});
  const int many = max_dlio_accelerators(one, w, 1, 1000, DlioHost{256});
  CHECK(few < some);
  CHECK(few == host_bound(16, 8));
  CHECK(simulate_dlio(one, w, few + 1, 1, DlioHost{8}).bottleneck == "host readers");
  CHECK(many == storage);
  CHECK(simulate_dlio(one, w, many + 1, 1, DlioHost{256}).bottleneck == "client ports");
  // Without cores the host is not modelled: the old count, no host rate.
  CHECK(max_dlio_accelerators(one, w, 1, 1000, DlioHost{}) == storage);
  CHECK(simulate_dlio(one, w, 2, 1).host_bytes_per_s == 0);
}

TEST_CASE("DLIO hosts: busy reader cores per loader, block-wise over the hosts") {
  DlioWorkload unet = *find_dlio_workload("unet3d", "a100");  // npz: PyTorch workers
  unet.read_threads = 3;
  // 5 accelerators on 2 hosts: 3 and 2, so min(9, 8) + min(6, 8) = 14 busy cores.
  CHECK(dlio_reader_cores(unet, DlioHost{8}, 5, 2) == 14);
  CHECK(dlio_reader_cores(unet, DlioHost{}, 5, 2) == 0);
  // tfrecord: tf.data's pool spans the host's cores whatever the reader threads.
  DlioWorkload cosmo = *find_dlio_workload("cosmoflow", "h100");
  CHECK_FALSE(find_dlio_reader("tfrecord")->workers_per_thread);
  cosmo.read_threads = 1;
  CHECK(dlio_reader_cores(cosmo, DlioHost{8}, 5, 2) == 16);
  // Counted in 64 bits: 32 hosts of 2,147,483,647 cores wrapped an int into a negative rate (fuzz).
  CHECK(dlio_reader_cores(cosmo, DlioHost{2147483647}, 32, 32) == std::int64_t{32} * 2147483647);
  CHECK(simulate_dlio(filesystem(4), cosmo, 32, 32, DlioHost{2147483647}).host_bytes_per_s > 0);
  // The host rate is cores x the format's rate, or the given one.
  const FileSystemSpec fs = filesystem(4);
  const DlioResult r = simulate_dlio(fs, cosmo, 4, 2, DlioHost{8});
  CHECK(r.host_bytes_per_s == Approx(16 * find_dlio_reader("tfrecord")->bytes_per_core_s));
  CHECK(simulate_dlio(fs, cosmo, 4, 2, DlioHost{8, 0, 1e6}).host_bytes_per_s == Approx(16e6));
  for (const DlioWorkload& w : dlio_workloads()) CHECK(find_dlio_reader(w.format));
  CHECK_FALSE(find_dlio_reader("hdf5"));
}

TEST_CASE("DLIO hosts: a core's base clock scales its reader rate (bytes per cycle)") {
  const DlioWorkload cosmo = *find_dlio_workload("cosmoflow", "a100");
  const DlioReader tf = *find_dlio_reader("tfrecord");
  REQUIRE(tf.bytes_per_cycle > 0);
  // With a clock the rate is per cycle; without, the per-core rate (the cases' mean host).
  CHECK(dlio_core_rate(cosmo, DlioHost{8, 2e9}) == Approx(2e9 * tf.bytes_per_cycle));
  CHECK(dlio_core_rate(cosmo, DlioHost{8}) == Approx(tf.bytes_per_core_s));
  CHECK(dlio_core_rate(cosmo, DlioHost{}) == 0);
  CHECK(dlio_core_rate(cosmo, DlioHost{8, 3e9, 0, 1e-1}) == Approx(3e8));
  // A 3.1 GHz host passes more accelerators than a 2.0 GHz one of the same cores, in the clocks' ratio.
  const FileSystemSpec fs = filesystem(4);
  const int slow = max_dlio_accelerators(fs, cosmo, 1, 10000, DlioHost{16, 2.0e9});
  const int fast = max_dlio_accelerators(fs, cosmo, 1, 10000, DlioHost{16, 3.1e9});
  REQUIRE(slow > 0);
  CHECK(fast > slow);
  CHECK(static_cast<double>(fast) / slow == Approx(3.1 / 2.0).epsilon(0.1));
  CHECK(simulate_dlio(fs, cosmo, slow + 1, 1, DlioHost{16, 2.0e9}).bottleneck == "host readers");
}

TEST_CASE("DLIO small files: the opens bind when samples are small and the metadata servers' open rate low") {
  const DlioWorkload cosmo = *find_dlio_workload("cosmoflow", "h100");  // one 2.8 MB sample per file
  const DlioWorkload resnet = *find_dlio_workload("resnet50", "h100");  // 1,251 samples per file
  CHECK(cosmo.samples_per_file == 1);
  CHECK(resnet.samples_per_file == 1251);
  FileSystemSpec fs = filesystem(4);
  // Without an open rate the opens are not a limit.
  CHECK(simulate_dlio(fs, cosmo, 8, 1).open_bytes_per_s == 0);
  const int storage = max_dlio_accelerators(fs, cosmo, 1, 10000);
  // 2,100 opens per second of the one metadata server (one directory: DLIO's): 2,100 files of 2.8 MB per s.
  fs.metadata.open_ops_per_s = 2100;
  const DlioResult r = simulate_dlio(fs, cosmo, 100, 1);
  CHECK(r.open_bytes_per_s == Approx(2100 * cosmo.record_bytes).epsilon(1e-3));
  CHECK(r.bottleneck == "metadata opens");
  CHECK(r.bytes_per_s == Approx(2100 * cosmo.record_bytes).epsilon(1e-3));
  const int opens = max_dlio_accelerators(fs, cosmo, 1, 10000);
  CHECK(opens < storage);
  CHECK(opens == static_cast<int>(std::floor(2100 * cosmo.record_bytes / (cosmo.au_min * cosmo.asked_bytes_per_s()))));
  // One directory sits on one server: more servers do not help unless directories are sharded.
  fs.metadata.count = 4;
  CHECK(max_dlio_accelerators(fs, cosmo, 1, 10000) == opens);
  fs.metadata.shards_directories = true;
  CHECK(simulate_dlio(fs, cosmo, 100, 1).open_bytes_per_s == Approx(4 * 2100 * cosmo.record_bytes).epsilon(1e-3));
  // resnet50's files hold 1,251 samples: the same open rate is far from binding.
  fs.metadata.count = 1;
  fs.metadata.shards_directories = false;
  const DlioResult big = simulate_dlio(fs, resnet, 100, 1);
  CHECK(big.open_bytes_per_s == Approx(2100 * 1251 * resnet.record_bytes).epsilon(1e-3));
  CHECK(big.open_bytes_per_s > 10 * big.bytes_per_s);
  CHECK(big.bottleneck != "metadata opens");
}
