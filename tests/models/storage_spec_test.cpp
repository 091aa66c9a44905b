// Storage specs: the shipped ones parse; bad values are errors at file:line:column.
#include <catch2/catch.hpp>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "models/storage/storage_spec.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

StorageSpec parse(const std::string& text) {
  return parse_storage_spec(parse_config_text(text, "storage.yaml"), "test", catalog());
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kDevice =
    "  read_bandwidth: 1 GB/s\n  write_bandwidth: 1 GB/s\n  read_iops: 1000\n  write_iops: 1000\n"
    "  latency: 1 ms\n  queue_depth: 32\n";

const std::string kPfs =
    "kind: pfs\nnetwork: ib-hdr\nserver_ports: 1\nservers: 2\ntargets: 4\nstripe_count: 2\nstripe_size: 1 MiB\n"
    "metadata:\n  ops: 1000\n  latency: 0.1 ms\ntarget:\n" + kDevice;

}  // namespace

TEST_CASE("every shipped storage spec parses") {
  const auto names = catalog().names("storage");
  REQUIRE(names.size() >= 6);
  for (const std::string& name : names) {
    CAPTURE(name);
    const ConfigNode name_node = ConfigNode::make_scalar(name, SourceLoc{"test", 0, 0});
    const StorageSpec spec = parse_storage_spec(catalog().load("storage", name_node, "storage"), name, catalog());
    CHECK(spec.device.read_bandwidth > 0);
    CHECK(spec.device.read_iops > 0);
    CHECK((spec.kind == StorageKind::local) == !spec.network.has_value());
  }
}

TEST_CASE("a local device spec reads every field with its units") {
  const StorageSpec s = parse("kind: local\nmedia: hdd\ndevice:\n" + kDevice);
  CHECK(s.kind == StorageKind::local);
  CHECK(s.media == "hdd");
  CHECK(s.device.read_bandwidth == 1e9);
  CHECK(s.device.latency_s == Approx(1e-3));
  CHECK(s.device.queue_depth == 32);
}

TEST_CASE("a parallel file system spec loads its network and striping") {
  const StorageSpec s = parse(kPfs);
  CHECK(s.kind == StorageKind::pfs);
  REQUIRE(s.network);
  CHECK(s.network->name == "ib-hdr");
  CHECK(s.targets == 4);
  CHECK(s.stripe_count == 2);
  CHECK(s.stripe_size == 1 << 20);
  CHECK(s.metadata.ops_per_s == 1000);
}

TEST_CASE("bad storage specs are errors at the offending key") {
  CHECK_THAT(error_of("kind: local\nmedia: hdd\ndevice:\n" + kDevice + "  extra: 1\n"),
             Catch::Contains("storage.yaml:10:3:"));
  CHECK_THAT(error_of("kind: locl\n"), Catch::Contains("storage.yaml:1:7:") && Catch::Contains("did you mean 'local'"));
  CHECK_THAT(error_of("kind: local\nmedia: hdd\ndevice:\n  read_bandwidth: -1 GB/s\n" + kDevice.substr(kDevice.find("  write"))),
             Catch::Contains("storage.yaml:4:19:"));
  CHECK_THAT(error_of("kind: local\nmedia: hdd\ndevice:\n  read_bandwidth: 1 GB\n" + kDevice.substr(kDevice.find("  write"))),
             Catch::Contains("storage.yaml:4:19:"));
  CHECK_THAT(error_of("kind: local\nmedia: hdd\ndevice:\n" + kDevice + "stripe_count: 2\n"),
             Catch::Contains("storage.yaml:10:1:") && Catch::Contains("does not apply to a 'local'"));
  CHECK_THAT(error_of("kind: local\ndevice:\n" + kDevice), Catch::Contains("media"));
  CHECK_THAT(error_of("kind: nas\nnetwork: eth-100g-tc\nserver_ports: 2\nserver:\n" + kDevice),
             Catch::Contains("storage.yaml:2:10:") && Catch::Contains("did you mean 'eth-100g-tcp'"));
}

TEST_CASE("inconsistent parallel file system layouts are refused") {
  std::string too_wide = kPfs;
  too_wide.replace(too_wide.find("stripe_count: 2"), 15, "stripe_count: 5");
  CHECK_THAT(error_of(too_wide), Catch::Contains("storage.yaml:6:15:") && Catch::Contains("exceeds the 4 targets"));
  std::string uneven = kPfs;
  uneven.replace(uneven.find("servers: 2"), 10, "servers: 3");
  CHECK_THAT(error_of(uneven), Catch::Contains("storage.yaml:4:10:") && Catch::Contains("spread evenly"));
  std::string zero = kPfs;
  zero.replace(zero.find("targets: 4"), 10, "targets: 0");
  CHECK_THAT(error_of(zero), Catch::Contains("storage.yaml:5:10:"));
}
