// File systems as hardware and the IO500 phases: the slowest stage sets the rate, locks and metadata
// placement act as their designs say, and hostile specs are errors at file:line:column.
#include <catch2/catch.hpp>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "models/storage/io500.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

// 4 data servers on EDR, each with `devices` SATA SSDs (520 MB/s writes), 2 metadata servers.
std::string spec_text(const std::string& type, int devices, int stripe_count = 1, const std::string& extra = "") {
  return "type: " + type + "\nnetwork: ib-edr\ndata_servers:\n  count: 4\n  ports: 1\n  devices: " +
         std::to_string(devices) + "\n  device: ssd-sata-pm883\n  targets: " + std::to_string(devices) +
         "\nmetadata_servers:\n  count: 2\n  ops: 20000\n  latency: 100 us\n  distributes_directories: true\n"
         "client:\n  rpc_size: 1 MiB\n  rpcs_in_flight: 8\nstriping:\n  count: " +
         std::to_string(stripe_count) + "\n  size: 1 MiB\n" + extra;
}

FileSystemSpec parse(const std::string& text) {
  return parse_filesystem_spec(parse_config_text(text, "fs.yaml"), "test", catalog());
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("ior-easy: the slowest stage sets the rate") {
  // 2 SSDs per server: 4 x 2 x 520 MB/s = 4.16 GB/s of devices, far below the servers' EDR ports.
  const FileSystemSpec slow = parse(spec_text("beegfs", 2));
  const Io500PhaseResult r = simulate_io500(slow, {8, 64}).at(Io500Phase::ior_easy_write);
  CHECK(r.bottleneck == "devices");
  CHECK(r.rate == Approx(4 * 2 * 520e6).epsilon(1e-3));
  // 24 SSDs per server: 12.5 GB/s of devices per server; the one EDR port per server (12.1 GB/s payload) is
  // slower, so the 4 server ports set the rate once 8 clients can fill them.
  const FileSystemSpec fast = parse(spec_text("beegfs", 24));
  const Io500PhaseResult f = simulate_io500(fast, {8, 64}).at(Io500Phase::ior_easy_write);
  CHECK(f.bottleneck == "server ports");
  CHECK(f.rate == Approx(4 * fast.server_port_bandwidth()).epsilon(1e-3));
  // Two clients: their own ports are the narrowest stage.
  const Io500PhaseResult two = simulate_io500(fast, {2, 16}).at(Io500Phase::ior_easy_write);
  CHECK(two.bottleneck == "client ports");
  CHECK(two.rate == Approx(2 * fast.network.payload_bandwidth()).epsilon(1e-3));
}

TEST_CASE("replicated writes store every byte on `replicas` servers, reads read one copy") {
  // 2 SSDs per server bind (4.16 GB/s of devices): 3 copies leave a third of it to the clients' bytes.
  std::string three = spec_text("cephfs", 2);
  three.insert(three.find("  targets:"), "  replicas: 3\n");
  const FileSystemSpec once = parse(spec_text("cephfs", 2));
  const FileSystemSpec thrice = parse(three);
  CHECK(thrice.data.replicas == 3);
  const Io500PhaseResult w1 = simulate_io500(once, {8, 64}).at(Io500Phase::ior_easy_write);
  const Io500PhaseResult w3 = simulate_io500(thrice, {8, 64}).at(Io500Phase::ior_easy_write);
  CHECK(w3.bottleneck == "devices");
  CHECK(w3.rate == Approx(w1.rate / 3).epsilon(1e-3));
  CHECK(simulate_io500(thrice, {8, 64}).at(Io500Phase::ior_easy_read).rate ==
        Approx(simulate_io500(once, {8, 64}).at(Io500Phase::ior_easy_read).rate).epsilon(1e-9));
  // 24 SSDs per server: the server ports bind, each carrying the client's byte and two forwarded copies.
  std::string ports = spec_text("cephfs", 24);
  ports.insert(ports.find("  targets:"), "  replicas: 3\n");
  const FileSystemSpec wide = parse(ports);
  const Io500PhaseResult p3 = simulate_io500(wide, {8, 64}).at(Io500Phase::ior_easy_write);
  CHECK(p3.bottleneck == "server ports");
  CHECK(p3.rate == Approx(4 * wide.server_port_bandwidth() / 3).epsilon(1e-3));
  // More copies than servers is an error at the key.
  std::string five = spec_text("cephfs", 2);
  five.insert(five.find("  targets:"), "  replicas: 5\n");
  CHECK(error_of(five).find("fs.yaml:8:13: 5 replicas need as many servers; there are 4") != std::string::npos);
}

TEST_CASE("a checkpoint's time is its bytes over the slowest stage") {
  const FileSystemSpec fs = parse(spec_text("lustre", 2));
  const CheckpointResult c = simulate_checkpoint(fs, {4, 32}, 2e9, IoOp::write);
  CHECK(c.rate.bottleneck == "devices");
  // 64 GB over 4.16 GB/s, plus one request's latency before the data moves.
  CHECK(c.time_s == Approx(32 * 2e9 / (4 * 2 * 520e6)).epsilon(1e-3));
  for (const StageUse& s : c.rate.stages) CHECK(s.utilisation <= 1.0 + 1e-9);
}

TEST_CASE("ior-hard: extent locks bind only locking types across nodes") {
  const std::string lock = "lock_handoff: 10 ms\n";
  const FileSystemSpec lustre = parse(spec_text("lustre", 24, 1, lock));
  const FileSystemSpec beegfs = parse(spec_text("beegfs", 24));
  const double locked = simulate_io500(lustre, {8, 64}).at(Io500Phase::ior_hard_write).rate;
  const double free = simulate_io500(beegfs, {8, 64}).at(Io500Phase::ior_hard_write).rate;
  CHECK(simulate_io500(lustre, {8, 64}).at(Io500Phase::ior_hard_write).bottleneck == "extent locks");
  CHECK(locked < free);
  // Lock-bound: 96 targets hand a lock over 100 times a second; a handoff every 8 records (8 ranks a node).
  CHECK(locked == Approx(96 * 100.0 * 8 * kIorHardRecordBytes).epsilon(1e-3));
  // One client node never hands a lock to another.
  CHECK(simulate_io500(lustre, {1, 8}).at(Io500Phase::ior_hard_write).bottleneck != "extent locks");
  CHECK(error_of(spec_text("beegfs", 24, 1, lock)).find("fs.yaml:20:15: lock_handoff: a 'beegfs' file system takes no "
                                                         "shared-file locks") != std::string::npos);
}

TEST_CASE("mdtest: directories spread over metadata servers as the design places them") {
  const FileSystemSpec fs = parse(spec_text("beegfs", 2));
  const Io500Result r = simulate_io500(fs, {8, 64});
  // A directory per process, placed on the 2 servers in turn: both servers' 20,000 ops/s.
  CHECK(r.at(Io500Phase::mdtest_easy_create).rate == Approx(40000).epsilon(1e-3));
  // One shared directory, not sharded: one server.
  CHECK(r.at(Io500Phase::mdtest_hard_create).rate == Approx(20000).epsilon(1e-3));
}

TEST_CASE("alike servers stand for each other: ior-hard and a sharded directory at a million servers") {
  // Every process of ior-hard spreads over every data server, and of mdtest-hard over every metadata server
  // of a sharded directory: one server stands for all, its flows counted once per server. A million
  // metadata servers took past ten minutes when each was its own resource and share.
  auto with_servers = [](int data, int metadata) {
    std::string t = spec_text("beegfs", 2);
    t.replace(t.find("count: 4"), 8, "count: " + std::to_string(data));
    t.replace(t.find("count: 2"), 8, "count: " + std::to_string(metadata));
    t.insert(t.find("client:"), "  shards_directories: true\n");
    return parse(t);
  };
  // Device-bound ior-hard: 2 SSDs per server, one operation per 47,008-byte record; twice the servers, twice
  // the rate.
  const double four = simulate_io500(with_servers(4, 2), {8, 64}).at(Io500Phase::ior_hard_write).rate;
  const double eight = simulate_io500(with_servers(8, 2), {8, 64}).at(Io500Phase::ior_hard_write).rate;
  CHECK(eight == Approx(2 * four).epsilon(1e-4));  // (the first request's latency is not doubled)
  // Sharded: 2 servers double one server's 20,000 creates/s; a million leave the 64 processes' own pace,
  // one operation a round trip at a time.
  CHECK(simulate_io500(with_servers(4, 2), {8, 64}).at(Io500Phase::mdtest_hard_create).rate ==
        Approx(40000).epsilon(1e-3));
  const FileSystemSpec million = with_servers(4, 1000000);
  std::uint64_t events = 0;
  const Io500PhaseResult m = simulate_io500_phase(million, {8, 64}, Io500Phase::mdtest_hard_create, events);
  CHECK(m.bottleneck == "client requests");
  CHECK(m.rate < 64 / million.metadata.latency_s);
  CHECK(m.rate > 0.5 * 64 / million.metadata.latency_s);
}

TEST_CASE("hostile file-system specs are errors at file:line:column") {
  CHECK(error_of(spec_text("lustre", 4, 17)).find("fs.yaml:18:10: stripe count 17 exceeds the 16 targets") !=
        std::string::npos);
  CHECK(error_of(spec_text("lustre", 0)).find("fs.yaml:6:12:") != std::string::npos);
  CHECK(error_of(spec_text("zfs", 4)).find("fs.yaml:1:7:") != std::string::npos);
  std::string no_servers = spec_text("lustre", 4);
  no_servers.replace(no_servers.find("count: 4"), 8, "count: -2");
  CHECK(error_of(no_servers).find("fs.yaml:4:10:") != std::string::npos);
  CHECK(error_of(spec_text("lustre", 4) + "").find("no error") != std::string::npos);
  std::string nas = spec_text("lustre", 4);
  nas.replace(nas.find("ssd-sata-pm883"), 14, "nfs-2x25g");
  CHECK(error_of(nas).find("fs.yaml:7:11: 'nfs-2x25g' is a nas storage system") != std::string::npos);
  CHECK_THROWS_AS(simulate_io500(parse(spec_text("lustre", 4)), {4, 3}), std::invalid_argument);
  // The open rate (the readers' small-file cost) is optional and positive.
  std::string opens = spec_text("lustre", 4);
  opens.replace(opens.find("  latency: 100 us"), 17, "  latency: 100 us\n  open_ops: 0");
  CHECK(error_of(opens).find("fs.yaml:13:13:") != std::string::npos);
  opens.replace(opens.find("open_ops: 0"), 11, "open_ops: 30000");
  CHECK(parse(opens).metadata.open_ops_per_s == 30000);
  CHECK(parse(spec_text("lustre", 4)).metadata.open_ops_per_s == 0);
}
