// Whole-file reads on a file system described as hardware (a training data loader's workers): a small file
// is one request touching only the chunks it covers after its open, a large one streams; the slowest stage,
// the readers' own pace or the metadata servers' opens set the rate.
#include <catch2/catch.hpp>

#include "configs/loader.h"
#include "models/storage/io500.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

// 4 data servers on EDR, each with 20 7,200 rpm disks as two RAID-6 8+2 targets (170 read IOPS each),
// 2 metadata servers; `extra` appends keys (an open rate).
FileSystemSpec disk_fs(const std::string& metadata_extra = "") {
  const std::string text =
      "type: lustre\nnetwork: ib-edr\ndata_servers:\n  count: 4\n  ports: 1\n  devices: 20\n  device: hdd-7200rpm\n"
      "  targets: 2\n  protection: {data: 8, parity: 2}\nmetadata_servers:\n  count: 2\n  ops: 20000\n  latency: 100 us\n" +
      metadata_extra + "client:\n  rpc_size: 1 MiB\n  rpcs_in_flight: 8\nstriping:\n  count: 1\n  size: 1 MiB\n";
  return parse_filesystem_spec(parse_config_text(text, "fs.yaml"), "disk", catalog());
}

constexpr double kDiskIops = 4 * 20 * 170.0;  // every disk of every server

}  // namespace

TEST_CASE("a small file is one positioning of one disk, an RPC-sized one touches every data disk") {
  const FileSystemSpec fs = disk_fs();
  // 110 KiB (an ImageNet JPEG) lies within one 128 KiB chunk of the 1 MiB stripe: one disk operation.
  const FileReadsResult small = simulate_file_reads(fs, {16, 512}, 110 * 1024.0);
  CHECK(small.bottleneck == "device IOPS");
  CHECK(small.bytes_per_s == Approx(kDiskIops * 110 * 1024.0).epsilon(1e-3));
  // 1 MiB covers the 8 data chunks of the stripe: eight operations per file.
  const FileReadsResult whole = simulate_file_reads(fs, {16, 512}, 1024 * 1024.0);
  CHECK(whole.bottleneck == "device IOPS");
  CHECK(whole.bytes_per_s == Approx(kDiskIops / 8 * 1024 * 1024.0).epsilon(1e-3));
  CHECK(small.open_bytes_per_s == 0);  // no open rate in the spec: opens are not a limit
}

TEST_CASE("one reader reads at its own pace: the open, then the file's request") {
  const FileSystemSpec fs = disk_fs();
  const double file = 110 * 1024.0;
  const FileReadsResult one = simulate_file_reads(fs, {1, 1}, file);
  CHECK(one.bottleneck == "client requests");
  const double round_trip = 2 * (fs.network.software_latency_s + fs.network.switch_latency_s);
  const double open = round_trip + fs.metadata.latency_s;
  const double read = round_trip + fs.data.device.latency_s + file / fs.network.payload_bandwidth();
  CHECK(one.bytes_per_s == Approx(file / (open + read)).epsilon(1e-3));
}

TEST_CASE("a large file streams through the client's RPC pipeline, as a checkpoint read does") {
  const FileSystemSpec fs = disk_fs();
  const double big = 64.0 * 1024 * 1024 * 1024;  // the open is negligible against 64 GiB
  const FileReadsResult streamed = simulate_file_reads(fs, {2, 2}, big);
  // Both rates are a phase's bytes over its time, the first requests' latency included: compare like for like
  // (1 GiB per reader, what the file reads simulate).
  const CheckpointResult checkpoint = simulate_checkpoint(fs, {2, 2}, 1024.0 * 1024 * 1024, IoOp::read);
  CHECK(streamed.bytes_per_s == Approx(checkpoint.rate.rate).epsilon(1e-3));
  CHECK(streamed.bottleneck == checkpoint.rate.bottleneck);
}

TEST_CASE("given an open rate, tiny files are bound by the metadata servers' opens") {
  // 4 KiB files: the disks could serve 13,600 files/s; 1,000 opens/s on the one server holding the shared
  // directory (no sharding) allow 1,000.
  const FileSystemSpec fs = disk_fs("  open_ops: 1000\n");
  const FileReadsResult r = simulate_file_reads(fs, {16, 512}, 4096);
  CHECK(r.bottleneck == "metadata opens");
  CHECK(r.bytes_per_s == Approx(1000 * 4096.0).epsilon(1e-3));
  CHECK(r.open_bytes_per_s == Approx(1000 * 4096.0).epsilon(1e-3));
  CHECK_THROWS_AS(simulate_file_reads(fs, {1, 1}, 0), std::invalid_argument);
}
