#include <catch2/catch.hpp>

#include "configs/config_test_support.h"

#include "configs/config_error.h"
#include "configs/loader.h"

using namespace hpcsim;
using hpcsim::test::data;
using hpcsim::test::error_of;

namespace {

ConfigNode gpu() {
  return parse_config_text(
      "name: g\n"
      "sms: 132\n"
      "hbm_bandwidth: 3.35 TB/s\n"
      "ratio: 0.5\n"
      "fast: yes\n"
      "memory: {capacity: 80 GiB}\n"
      "bad_int: abc\n"
      "capacity: 80 GiB\n"
      "list: [1]\n",
      "gpu.yaml");
}

}  // namespace

TEST_CASE("typed getters convert values", "[configs][node]") {
  ConfigNode node = gpu();
  CHECK(node.get_string("name") == "g");
  CHECK(node.get_int("sms") == 132);
  CHECK(node.get_number("ratio") == 0.5);
  CHECK(node.get_bool("fast"));
  CHECK(node.get_quantity("hbm_bandwidth", Dimension::bandwidth) == 3.35e12);
  CHECK(node.at("memory").get_quantity("capacity", Dimension::bytes) == 80.0 * (1ull << 30));
  CHECK(node.get_quantity("sms", Dimension::count) == 132);
  CHECK(node.has("sms"));
  CHECK_FALSE(node.has("nope"));
  CHECK(node.find("nope") == nullptr);
}

TEST_CASE("optional getters fall back only when the key is absent", "[configs][node]") {
  ConfigNode node = gpu();
  CHECK(node.get_int_or("missing", 7) == 7);
  CHECK(node.get_int_or("sms", 7) == 132);
  CHECK(node.get_string_or("missing", "x") == "x");
  CHECK_FALSE(node.get_bool_or("missing", false));
  CHECK(node.get_number_or("missing", 1.5) == 1.5);
  CHECK(node.get_quantity_or("missing", Dimension::time, 2.0) == 2.0);
  CHECK(node.get_quantity_or("missing_time", Dimension::time, 0, "s") == 0);
  CHECK(error_of([&] { node.get_int_or("bad_int", 1); }) == "gpu.yaml:7:10: expected an integer, got 'abc'");
}

TEST_CASE("typed getters report the offending node's location", "[configs][node][errors]") {
  ConfigNode node = gpu();
  CHECK(error_of([&] { node.get_int("bad_int"); }) == "gpu.yaml:7:10: expected an integer, got 'abc'");
  CHECK(error_of([&] { node.get_int("ratio"); }) == "gpu.yaml:4:8: expected an integer, got '0.5'");
  CHECK(error_of([&] { node.get_number("name"); }) == "gpu.yaml:1:7: expected a number, got 'g'");
  CHECK(error_of([&] { node.get_bool("name"); }) == "gpu.yaml:1:7: expected true or false, got 'g'");
  CHECK(error_of([&] { node.get_string("memory"); }) == "gpu.yaml:6:9: expected a string, got a map");
  CHECK(error_of([&] { node.get_quantity("capacity", Dimension::bandwidth); }) ==
        "gpu.yaml:8:11: 'GiB' is a unit of bytes, but a bandwidth is expected (like '100 Gb/s')");
  CHECK(error_of([&] { node.get_quantity("list", Dimension::bandwidth); }) ==
        "gpu.yaml:9:7: expected a bandwidth, got a list");
  CHECK(error_of([&] { node.get_int("nope"); }) == "gpu.yaml:1:1: missing required key 'nope'");
  CHECK(error_of([&] { node.at("list").at("x"); }) == "gpu.yaml:9:7: expected a map, got a list");
  CHECK(error_of([&] { node.at("memory").items(); }) == "gpu.yaml:6:9: expected a list, got a map");
  CHECK(error_of([&] { node.at("memory").text(); }) == "gpu.yaml:6:9: expected a single value, got a map");
  CHECK(error_of([] { parse_config_text("n: 99999999999999999999", "t.yaml").get_int("n"); }) ==
        "t.yaml:1:4: integer out of range: '99999999999999999999'");
}

TEST_CASE("set replaces in place and erase removes", "[configs][node]") {
  ConfigNode node = parse_config_text("a: 1\nb: 2\n", "t.yaml");
  node.set("a", ConfigNode::make_scalar("9", SourceLoc{"x"}));
  node.set("c", ConfigNode::make_scalar("3", SourceLoc{"x"}));
  CHECK(node.entries()[0].key == "a");
  CHECK(node.get_int("a") == 9);
  CHECK(node.entries()[2].key == "c");
  CHECK(node.erase("b"));
  CHECK_FALSE(node.erase("b"));
  CHECK(node.entries().size() == 2);
  ConfigNode list = ConfigNode::make_sequence(SourceLoc{"x"});
  list.push_back(ConfigNode::make_scalar("1", SourceLoc{"x"}));
  CHECK(list.items().size() == 1);
  CHECK(error_of([&] { list.set("k", ConfigNode()); }) == "x: expected a map, got a list");
}

TEST_CASE("booleans accept the usual YAML spellings", "[configs][node]") {
  for (const char* text : {"true", "True", "yes", "on"})
    CHECK(ConfigNode::make_scalar(text, SourceLoc{"t"}).as_bool());
  for (const char* text : {"false", "FALSE", "no", "off"})
    CHECK_FALSE(ConfigNode::make_scalar(text, SourceLoc{"t"}).as_bool());
}

TEST_CASE("ConfigError formats with and without a line", "[configs][node][errors]") {
  CHECK(std::string(ConfigError(SourceLoc{"f.yaml", 3, 7}, "bad").what()) == "f.yaml:3:7: bad");
  CHECK(std::string(ConfigError(SourceLoc{"f.yaml"}, "bad").what()) == "f.yaml: bad");
  CHECK(std::string(ConfigError(SourceLoc{}, "bad").what()) == "bad");
}
