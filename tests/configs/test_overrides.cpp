#include <catch2/catch.hpp>

#include "configs/config_test_support.h"

#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/overrides.h"
#include "configs/schema.h"

using namespace hpcsim;
using hpcsim::test::data;
using hpcsim::test::error_of;

namespace {

ConfigNode sample() {
  return parse_config_text("gpu:\n  sms: 132\n  memory: {bandwidth: 3 TB/s}\nlinks: [a, b]\n", "s.yaml");
}

}  // namespace

TEST_CASE("overrides replace nested keys", "[configs][overrides]") {
  ConfigNode root = sample();
  apply_override(root, "gpu.sms=100");
  CHECK(root.at("gpu").get_int("sms") == 100);
  CHECK(root.at("gpu").at("sms").loc().to_string() == "--set gpu.sms=100");
  apply_override(root, "gpu.memory.bandwidth = 4 TB/s");
  CHECK(root.at("gpu").at("memory").get_string("bandwidth") == "4 TB/s");
}

TEST_CASE("overrides create new nested keys", "[configs][overrides]") {
  ConfigNode root = sample();
  apply_override(root, "gpu.cache.l2=50 MB");
  CHECK(root.at("gpu").at("cache").get_string("l2") == "50 MB");
  apply_override(root, "scenario.seed=7");
  CHECK(root.at("scenario").get_int("seed") == 7);
  ConfigNode empty;
  apply_override(empty, "a.b=1");
  CHECK(empty.at("a").get_int("b") == 1);
}

TEST_CASE("override values are parsed as YAML flow", "[configs][overrides]") {
  ConfigNode root = sample();
  apply_override(root, "x=[1,2]");
  REQUIRE(root.at("x").is_sequence());
  CHECK(root.at("x").items().size() == 2);
  CHECK(root.at("x").items()[1].as_int() == 2);
  apply_override(root, "y={a: 1}");
  CHECK(root.at("y").get_int("a") == 1);
  apply_override(root, "z=\"yes\"");
  CHECK(root.at("z").quoted());
  apply_override(root, "gpu.memory=");
  CHECK(root.at("gpu").at("memory").is_null());
}

TEST_CASE("numeric path segments index existing lists", "[configs][overrides]") {
  ConfigNode root = sample();
  apply_override(root, "links.1=c");
  CHECK(root.at("links").items()[1].text() == "c");
  CHECK(error_of([&] { apply_override(root, "links.2=d"); }) ==
        "--set links.2=d: '2' is not an index of 'links', a list of 2 items at s.yaml:4:8");
  CHECK(error_of([&] { apply_override(root, "links.x=d"); }) ==
        "--set links.x=d: 'x' is not an index of 'links', a list of 2 items at s.yaml:4:8");
}

TEST_CASE("malformed overrides name the flag", "[configs][overrides][errors]") {
  ConfigNode root = sample();
  CHECK(error_of([&] { apply_override(root, "gpu.sms"); }) == "--set gpu.sms: expected key.path=value");
  CHECK(error_of([&] { apply_override(root, "=5"); }) == "--set =5: empty key path before '='");
  CHECK(error_of([&] { apply_override(root, "gpu..sms=5"); }) ==
        "--set gpu..sms=5: empty key in path 'gpu..sms'");
  CHECK(error_of([&] { apply_override(root, "gpu.sms.x=5"); }) ==
        "--set gpu.sms.x=5: cannot set 'x' inside 'gpu.sms', which is '132' at s.yaml:2:8");
  std::string bad_yaml = error_of([&] { apply_override(root, "x=[1,"); });
  CHECK(bad_yaml.rfind("--set x=[1,: invalid YAML: ", 0) == 0);
  ConfigNode scalar_root = parse_config_text("5", "s.yaml");
  CHECK(error_of([&] { apply_override(scalar_root, "a=1"); }) ==
        "--set a=1: cannot set 'a' inside the root, which is '5' at s.yaml:1:1");
}

TEST_CASE("schema errors on overridden values name the flag", "[configs][overrides][errors]") {
  ConfigNode root = sample();
  apply_override(root, "gpu.sms=0");
  Schema sms = Schema::integer().at_least(1);
  CHECK(error_of([&] { sms.validate(root.at("gpu").at("sms")); }) == "--set gpu.sms=0: must be >= 1, got 0");
}

TEST_CASE("load_config applies overrides after extends", "[configs][overrides]") {
  ConfigNode root = load_config(HPCSIM_TEST_DATA_DIR "/configs/child_gpu.yaml",
                                {"sms=140", "memory.capacity=96 GiB"});
  CHECK(root.get_int("sms") == 140);
  CHECK(root.at("memory").get_string("capacity") == "96 GiB");
  CHECK(root.at("memory").get_string("bandwidth") == "3.35 TB/s");
}

TEST_CASE("a sweep's values name --vary, not --set", "[configs][overrides][errors]") {
  ConfigNode root = sample();
  apply_override(root, "gpu.sms=0", "--vary");
  Schema sms = Schema::integer().at_least(1);
  CHECK(error_of([&] { sms.validate(root.at("gpu").at("sms")); }) == "--vary gpu.sms=0: must be >= 1, got 0");
  const ConfigNode varied = load_config(HPCSIM_TEST_DATA_DIR "/configs/child_gpu.yaml", {"sms=140"}, "--vary");
  CHECK(varied.at("sms").loc().file == "--vary sms=140");
}

TEST_CASE("a check over several values blames the one a flag gave", "[configs][overrides][errors]") {
  ConfigNode root = sample();
  const ConfigNode& gpu = root.at("gpu");
  CHECK_FALSE(from_flag(gpu.at("sms").loc()));
  // No flag: the check's own place.
  CHECK(blame(gpu.loc(), {&gpu.at("sms"), gpu.find("nothing")}).to_string() == "s.yaml:2:3");
  apply_override(root, "gpu.memory.bandwidth=1 TB/s");
  const ConfigNode& bandwidth = root.at("gpu").at("memory").at("bandwidth");
  CHECK(from_flag(bandwidth.loc()));
  CHECK(blame(root.at("gpu").loc(), {&root.at("gpu").at("sms"), &bandwidth}).to_string() ==
        "--set gpu.memory.bandwidth=1 TB/s");
}
