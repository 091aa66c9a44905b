// Reading datasets from storage models: sharing, striping, IOPS limits, queue depth and latency.
#include <catch2/catch.hpp>

#include "models/storage/dataset_read.h"

using namespace hpcsim;

namespace {

DeviceSpec device(double bandwidth, double iops, double latency_s = 0, int queue_depth = 1024) {
  DeviceSpec d;
  d.read_bandwidth = d.write_bandwidth = bandwidth;
  d.read_iops = d.write_iops = iops;
  d.latency_s = latency_s;
  d.queue_depth = queue_depth;
  return d;
}

NetworkSpec network(double bytes_per_s) {
  NetworkSpec n;
  n.name = "test-net";
  n.rate = bytes_per_s;
  n.encoding_efficiency = 1;
  n.mtu_bytes = 4096;
  return n;  // no headers and no latency: payload bandwidth is the rate
}

StorageSpec local(DeviceSpec d) {
  StorageSpec s;
  s.name = "test-local";
  s.kind = StorageKind::local;
  s.device = d;
  return s;
}

StorageSpec nfs(DeviceSpec server, double port_bytes_per_s) {
  StorageSpec s;
  s.name = "test-nfs";
  s.kind = StorageKind::nas;
  s.device = server;
  s.network = network(port_bytes_per_s);
  s.server_ports = 1;
  return s;
}

StorageSpec lustre(int targets, double target_bandwidth, double port_bytes_per_s) {
  StorageSpec s;
  s.name = "test-lustre";
  s.kind = StorageKind::pfs;
  s.device = device(target_bandwidth, 1e6);
  s.network = network(port_bytes_per_s);
  s.server_ports = 4;
  s.servers = targets;
  s.targets = targets;
  s.stripe_count = 1;
  s.stripe_size = 1 << 20;
  s.metadata = {1e12, 0};  // opens cost next to nothing unless a test says otherwise
  return s;
}

DatasetRead dataset(std::int64_t samples, double bytes, int readers, int nodes = 1) {
  DatasetRead job;
  job.samples = samples;
  job.sample_bytes = bytes;
  job.readers = readers;
  job.nodes = nodes;
  return job;
}

double utilisation(const DatasetReadResult& r, const std::string& name) {
  for (const ResourceUse& use : r.utilisation)
    if (use.name == name) return use.utilisation;
  FAIL("no resource kind " << name);
  return 0;
}

}  // namespace

TEST_CASE("one request alone costs max(bytes/bandwidth, 1/IOPS) after the access latency") {
  const double bw = 1e9, iops = 1000, latency = 50e-6;
  const StorageSpec nvme = local(device(bw, iops, latency));
  SECTION("a large read is bandwidth-bound") {
    const auto r = simulate_dataset_read(nvme, dataset(1, 100e6, 1));
    CHECK(r.time_s == Approx(latency + 100e6 / bw).epsilon(1e-9));
  }
  SECTION("a small read is IOPS-bound") {
    const auto r = simulate_dataset_read(nvme, dataset(1, 4096, 1));
    CHECK(r.time_s == Approx(latency + 1 / iops).epsilon(1e-9));
  }
}

TEST_CASE("N readers on one NFS server share its bandwidth") {
  const double server_bw = 1e9, sample = 64e6;
  const StorageSpec nas = nfs(device(server_bw, 1e6), 10e9);  // client ports far faster than the server
  for (int readers : {1, 2, 4, 8}) {
    CAPTURE(readers);
    // Each reader on its own node reads one sample at the same time: each gets 1/N of the server.
    const auto r = simulate_dataset_read(nas, dataset(readers, sample, readers, readers));
    CHECK(r.time_s == Approx(readers * sample / server_bw).epsilon(1e-6));
    CHECK(r.bytes_per_s == Approx(server_bw).epsilon(1e-6));
    CHECK(r.bottleneck == "server bandwidth");
  }
}

TEST_CASE("NFS readers on one client node are limited by its port, not the server") {
  const double port = 3e9;
  const StorageSpec nas = nfs(device(10e9, 1e6), port);
  const auto one_node = simulate_dataset_read(nas, dataset(64, 16e6, 8, 1));
  CHECK(one_node.bytes_per_s == Approx(port).epsilon(1e-6));
  CHECK(one_node.bottleneck == "client network");
  // Spread over 8 nodes the readers reach the server's own (single) port.
  const auto eight_nodes = simulate_dataset_read(nas, dataset(64, 16e6, 8, 8));
  CHECK(eight_nodes.bytes_per_s == Approx(port).epsilon(1e-6));
  CHECK(eight_nodes.bottleneck == "server network");
}

TEST_CASE("Lustre striping over k targets scales a read until the client network is the bottleneck") {
  const double target_bw = 1e9, port = 3.5e9;
  const double file = 840.0 * (1 << 20);  // 840 stripe chunks: an even share for every k up to 8
  const StorageSpec pfs = lustre(8, target_bw, port);
  for (int k = 1; k <= 8; ++k) {
    CAPTURE(k);
    DatasetRead job = dataset(1, file, 1);
    job.stripe_count = k;
    const auto r = simulate_dataset_read(pfs, job);
    CHECK(r.bytes_per_s == Approx(std::min(k * target_bw, port)).epsilon(1e-3));
    CHECK(r.bottleneck == (k * target_bw < port ? "target bandwidth" : "client network"));
  }
}

TEST_CASE("small files spread over every target even unstriped") {
  const StorageSpec pfs = lustre(8, 1e9, 100e9);
  const auto r = simulate_dataset_read(pfs, dataset(800, 64e6, 8));
  CHECK(r.bytes_per_s == Approx(8e9).epsilon(1e-6));
}

TEST_CASE("every file open costs the metadata server an operation") {
  StorageSpec pfs = lustre(8, 100e9, 100e9);
  pfs.metadata = {1000, 0};
  const auto r = simulate_dataset_read(pfs, dataset(2000, 4096, 64));
  CHECK(r.samples_per_s == Approx(1000).epsilon(0.01));
  CHECK(r.bottleneck == "metadata server");
}

TEST_CASE("IOPS limit small reads: bandwidth limits large ones") {
  const StorageSpec hdd = local(device(200e6, 200, 0, 32));
  const auto small = simulate_dataset_read(hdd, dataset(1000, 4096, 16));
  CHECK(small.samples_per_s == Approx(200).epsilon(1e-6));
  CHECK(small.bottleneck == "device IOPS");
  CHECK(utilisation(small, "device bandwidth") < 0.01);
  const auto large = simulate_dataset_read(hdd, dataset(100, 16e6, 16));
  CHECK(large.bytes_per_s == Approx(200e6).epsilon(1e-6));
  CHECK(large.bottleneck == "device bandwidth");
}

TEST_CASE("few readers are bound by the request latency (Little's law)") {
  const double latency = 100e-6, bw = 1e9;
  const StorageSpec nvme = local(device(bw, 1e9, latency));
  for (int readers : {1, 2, 4}) {
    CAPTURE(readers);
    const auto r = simulate_dataset_read(nvme, dataset(1000, 4096, readers));
    // Each reader has one request in flight; a request takes the latency plus its share of transfer.
    CHECK(r.samples_per_s == Approx(readers / (latency + readers * 4096 / bw)).epsilon(1e-3));
    CHECK(r.bottleneck == "request latency");
  }
}

TEST_CASE("requests beyond the queue depth wait their turn") {
  const double latency = 1e-3;
  const StorageSpec disk = local(device(1e12, 1e9, latency, 2));
  const auto r = simulate_dataset_read(disk, dataset(100, 1, 8));
  CHECK(r.samples_per_s == Approx(2 / latency).epsilon(1e-3));  // two in service at a time
  CHECK(r.bottleneck == "queue depth");
}

TEST_CASE("local devices scale with the client nodes") {
  const StorageSpec nvme = local(device(2e9, 1e6));
  const auto one = simulate_dataset_read(nvme, dataset(64, 8e6, 4, 1));
  const auto four = simulate_dataset_read(nvme, dataset(64, 8e6, 4, 4));
  CHECK(one.bytes_per_s == Approx(2e9).epsilon(1e-6));
  CHECK(four.bytes_per_s == Approx(8e9).epsilon(1e-6));
}

TEST_CASE("writes use the write bandwidth and IOPS") {
  DeviceSpec d = device(4e9, 1e6);
  d.write_bandwidth = 1e9;
  DatasetRead job = dataset(16, 64e6, 4);
  job.op = IoOp::write;
  CHECK(simulate_dataset_read(local(d), job).bytes_per_s == Approx(1e9).epsilon(1e-6));
}

TEST_CASE("the same read gives the same answer twice") {
  const StorageSpec pfs = lustre(8, 1e9, 3e9);
  DatasetRead job = dataset(5000, 300e3, 13, 3);
  job.stripe_count = 3;
  const auto a = simulate_dataset_read(pfs, job);
  const auto b = simulate_dataset_read(pfs, job);
  CHECK(a.time_s == b.time_s);
  CHECK(a.events == b.events);
  CHECK(a.bottleneck == b.bottleneck);
}

TEST_CASE("impossible reads are refused") {
  const StorageSpec nvme = local(device(1e9, 1e3));
  CHECK_THROWS_AS(simulate_dataset_read(nvme, dataset(0, 4096, 1)), std::invalid_argument);
  CHECK_THROWS_AS(simulate_dataset_read(nvme, dataset(1, 0, 1)), std::invalid_argument);
  CHECK_THROWS_AS(simulate_dataset_read(nvme, dataset(1, 4096, 0)), std::invalid_argument);
  CHECK_THROWS_AS(simulate_dataset_read(nvme, dataset(1, 4096, 1, 0)), std::invalid_argument);
  DatasetRead striped = dataset(1, 4096, 1);
  striped.stripe_count = 2;
  CHECK_THROWS_AS(simulate_dataset_read(nvme, striped), std::invalid_argument);
  striped.stripe_count = 9;
  CHECK_THROWS_AS(simulate_dataset_read(lustre(8, 1e9, 1e9), striped), std::invalid_argument);
}

TEST_CASE("files read one after another from different targets still saturate the targets") {
  const StorageSpec pfs = lustre(8, 1e9, 100e9);
  const auto r = simulate_dataset_read(pfs, dataset(8, 256e6, 1));  // file i lives on target i
  CHECK(r.bytes_per_s == Approx(1e9).epsilon(1e-6));
  CHECK(r.bottleneck == "target bandwidth");
  CHECK(utilisation(r, "target bandwidth") == Approx(1).epsilon(1e-6));
}
