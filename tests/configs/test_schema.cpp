#include <catch2/catch.hpp>

#include "configs/config_test_support.h"

#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/schema.h"

using namespace hpcsim;
using hpcsim::test::data;
using hpcsim::test::error_of;

namespace {

// The shape later issues will use for GPU specs: compact and declarative.
Schema gpu_schema() {
  Schema link = Schema::map({
      required("kind", Schema::one_of({"nvlink", "pcie", "infiniband"})),
      required("bandwidth", Schema::quantity(Dimension::bandwidth).positive()),
      optional("count", Schema::integer().at_least(1)),
  });
  return Schema::map({
      required("name", Schema::string()),
      required("sms", Schema::integer().at_least(1)),
      required("clock", Schema::quantity(Dimension::frequency).positive()),
      required("memory", Schema::map({
                             required("capacity", Schema::quantity(Dimension::bytes).positive()),
                             required("bandwidth", Schema::quantity(Dimension::bandwidth).positive()),
                         })),
      required("peak", Schema::map_of(Schema::quantity(Dimension::compute_rate).positive()).non_empty()),
      optional("tdp", Schema::quantity(Dimension::power).positive().at_most(2000)),
      optional("launch_latency", Schema::quantity(Dimension::time, "us").at_least(0)),
      optional("links", Schema::list(link)),
      optional("mig", Schema::boolean()),
      optional("efficiency", Schema::number().at_least(0).at_most(1)),
  });
}

const char* const valid_gpu =
    "name: g\n"
    "sms: 132\n"
    "clock: 1.98 GHz\n"
    "memory:\n"
    "  capacity: 80 GiB\n"
    "  bandwidth: 3.35 TB/s\n"
    "peak: {fp16: 989 TFLOP/s}\n";

std::string gpu_error(const std::string& extra_or_replacement, bool replace = false) {
  std::string text = replace ? extra_or_replacement : valid_gpu + extra_or_replacement;
  return error_of([&] { gpu_schema().validate(parse_config_text(text, "gpu.yaml")); });
}

}  // namespace

TEST_CASE("a full example spec validates", "[configs][schema]") {
  ConfigNode spec = load_config_file(HPCSIM_TEST_DATA_DIR "/configs/h100_like.yaml");
  CHECK_NOTHROW(gpu_schema().validate(spec));
  CHECK(gpu_error("") == "no error");
  CHECK(gpu_error("launch_latency: 4\nmig: true\nefficiency: 0.8\n") == "no error");
}

TEST_CASE("unknown keys are rejected with a suggestion", "[configs][schema][errors]") {
  CHECK(gpu_error("tpd: 700 W\n") == "gpu.yaml:8:1: unknown key 'tpd'; did you mean 'tdp'?");
  std::string typo = std::string(valid_gpu) + "links: [{kind: nvlink, bandwith: 1 GB/s}]\n";
  CHECK(gpu_error(typo, true) == "gpu.yaml:8:24: unknown key 'bandwith'; did you mean 'bandwidth'?");
  CHECK(gpu_error("xyzzy: 1\n") ==
        "gpu.yaml:8:1: unknown key 'xyzzy'; valid keys: name, sms, clock, memory, peak, tdp, "
        "launch_latency, links, mig, efficiency");
}

TEST_CASE("wrong types are rejected at the node", "[configs][schema][errors]") {
  CHECK(gpu_error("name: g\nsms: abc\n", true) == "gpu.yaml:2:6: expected an integer, got 'abc'");
  CHECK(gpu_error("mig: maybe\n") == "gpu.yaml:8:6: expected true or false, got 'maybe'");
  CHECK(gpu_error("efficiency: high\n") == "gpu.yaml:8:13: expected a number, got 'high'");
  CHECK(gpu_error("name: [a]\n", true) == "gpu.yaml:1:7: expected a string, got a list");
  CHECK(gpu_error("links: {a: 1}\n") == "gpu.yaml:8:8: expected a list, got a map");
  CHECK(gpu_error("name: g\nsms: 1\nclock: 1 GHz\nmemory: 5\n", true) ==
        "gpu.yaml:4:9: expected a map, got '5'");
  CHECK(gpu_error("peak: [1]\n", true).find("gpu.yaml:1:7: expected a map, got a list") == 0);
  CHECK(gpu_error("links:\n  - {kind: ethernet, bandwidth: 1 GB/s}\n") ==
        "gpu.yaml:9:12: expected one of 'nvlink', 'pcie', 'infiniband', got 'ethernet'");
  CHECK(gpu_error("links:\n  - {kind: nvlnk, bandwidth: 1 GB/s}\n") ==
        "gpu.yaml:9:12: expected one of 'nvlink', 'pcie', 'infiniband', got 'nvlnk'; did you mean 'nvlink'?");
  CHECK(gpu_error("links:\n  - {kind: [x], bandwidth: 1 GB/s}\n") ==
        "gpu.yaml:9:12: expected one of 'nvlink', 'pcie', 'infiniband', got a list");
  CHECK(gpu_error("tdp:\n") == "gpu.yaml:8:1: expected a power, got an empty value");
  CHECK(gpu_error("", true) == "gpu.yaml:1:1: expected a map, got an empty value");
}

TEST_CASE("quantities need the right units", "[configs][schema][errors]") {
  CHECK(gpu_error("tdp: 700\n") == "gpu.yaml:8:6: missing unit: expected a power like '700 W'");
  CHECK(gpu_error("tdp: 700 furlongs\n") == "gpu.yaml:8:6: unknown unit 'furlongs' for a power; valid units: W, kW, MW");
  CHECK(gpu_error("links:\n  - {kind: pcie, bandwidth: 80 GiB}\n") ==
        "gpu.yaml:9:29: 'GiB' is a unit of bytes, but a bandwidth is expected (like '100 Gb/s')");
}

TEST_CASE("impossible values are rejected", "[configs][schema][errors]") {
  CHECK(gpu_error("links:\n  - {kind: pcie, bandwidth: -5 GB/s}\n") == "gpu.yaml:9:29: must be > 0, got -5 GB/s");
  CHECK(gpu_error("name: g\nsms: 0\n", true) == "gpu.yaml:2:6: must be >= 1, got 0");
  CHECK(gpu_error("links:\n  - {kind: pcie, bandwidth: 1 GB/s, count: 0}\n") == "gpu.yaml:9:44: must be >= 1, got 0");
  CHECK(gpu_error("tdp: 3 kW\n") == "gpu.yaml:8:6: must be <= 2 kW, got 3 kW");
  CHECK(gpu_error("efficiency: 1.5\n") == "gpu.yaml:8:13: must be <= 1, got 1.5");
  CHECK(gpu_error("launch_latency: -1 us\n") == "gpu.yaml:8:17: must be >= 0 s, got -1 us");
  CHECK(gpu_error("name: g\nsms: 1\nclock: 1 GHz\nmemory: {capacity: 1 GB, bandwidth: 1 GB/s}\npeak: {}\n", true) ==
        "gpu.yaml:5:7: must not be empty");
  Schema layers = Schema::list(Schema::string()).non_empty();
  CHECK(error_of([&] { layers.validate(parse_config_text("[]", "l.yaml")); }) == "l.yaml:1:1: must not be empty");
  CHECK(error_of([&] { layers.validate(parse_config_text("[a, {b: 1}]", "l.yaml")); }) ==
        "l.yaml:1:5: expected a string, got a map");
}

TEST_CASE("a missing required key is reported at the parent map", "[configs][schema][errors]") {
  CHECK(gpu_error("name: g\nsms: 1\nclock: 1 GHz\nmemory:\n  capacity: 1 GB\npeak: {x: 1 FLOP/s}\n", true) ==
        "gpu.yaml:5:3: missing required key 'bandwidth'");
  CHECK(gpu_error("name: g\n", true) == "gpu.yaml:1:1: missing required key 'sms'");
}

TEST_CASE("misdeclared schemas fail loudly", "[configs][schema][errors]") {
  CHECK_THROWS_AS(Schema::string().positive(), std::logic_error);
  CHECK_THROWS_AS(Schema::boolean().at_least(1), std::logic_error);
  CHECK_THROWS_AS(Schema::map({}).at_most(1), std::logic_error);
  CHECK_THROWS_AS(Schema::integer().non_empty(), std::logic_error);
  CHECK_THROWS_AS(Schema::one_of({}), std::logic_error);
  CHECK_THROWS_AS(Schema::quantity(Dimension::time, "parsec"), UnitError);
}

TEST_CASE("schemas expose their fields for documentation", "[configs][schema]") {
  Schema schema = gpu_schema();
  CHECK(schema.type() == Schema::Type::map);
  REQUIRE(schema.fields().size() == 10);
  CHECK(schema.fields()[0].key == "name");
  CHECK(schema.fields()[0].required);
  CHECK_FALSE(schema.fields()[5].required);
}
