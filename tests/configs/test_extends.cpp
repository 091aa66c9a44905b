#include <catch2/catch.hpp>

#include "configs/config_test_support.h"

#include <filesystem>

#include "configs/config_error.h"
#include "configs/loader.h"

using namespace hpcsim;
using hpcsim::test::data;
using hpcsim::test::error_of;

namespace {

std::vector<std::string> keys_of(const ConfigNode& map) {
  std::vector<std::string> keys;
  for (const auto& entry : map.entries()) keys.push_back(entry.key);
  return keys;
}

}  // namespace

TEST_CASE("extends deep-merges maps with the child winning", "[configs][extends]") {
  ConfigNode root = load_config_file(data("child_gpu.yaml"));
  CHECK_FALSE(root.has("extends"));
  CHECK(root.get_string("name") == "child");
  CHECK(root.get_int("sms") == 100);                                     // inherited
  CHECK(root.at("memory").get_string("capacity") == "80 GiB");           // inherited inside a merged map
  CHECK(root.at("memory").get_string("bandwidth") == "3.35 TB/s");       // overridden
  REQUIRE(root.at("memory").at("levels").items().size() == 1);           // sequences replace
  CHECK(root.at("memory").at("levels").items()[0].text() == "l2");
  CHECK(root.get_string("power") == "700 W");                            // new in the child
  // Base keys keep their order; the child's new keys follow.
  CHECK(keys_of(root) == std::vector<std::string>{"name", "sms", "memory", "clocks", "power"});
}

TEST_CASE("merged nodes keep the location of the file they came from", "[configs][extends]") {
  ConfigNode root = load_config_file(data("child_gpu.yaml"));
  CHECK(root.at("sms").loc().to_string() == data("base_gpu.yaml") + ":3:6");
  CHECK(root.at("memory").at("capacity").loc().to_string() == data("base_gpu.yaml") + ":5:13");
  CHECK(root.at("memory").at("bandwidth").loc().to_string() == data("child_gpu.yaml") + ":4:14");
  CHECK(root.loc().file == data("child_gpu.yaml"));
}

TEST_CASE("extends paths are relative to the including file, recursively", "[configs][extends]") {
  ConfigNode root = load_config_file(data("sub/nested_child.yaml"));
  CHECK(root.get_int("sms") == 132);
  CHECK(root.get_string("name") == "child");
  CHECK(root.at("clocks").get_string("boost") == "1.5 GHz");
}

TEST_CASE("a list of bases merges in order before the child", "[configs][extends]") {
  ConfigNode root = load_config_file(data("multi_extends.yaml"));
  CHECK(root.get_string("name") == "multi");
  CHECK(root.get_int("sms") == 120);  // the later base wins over the earlier
  CHECK(root.at("clocks").get_string("boost") == "1.7 GHz");
  CHECK(root.at("clocks").get_string("base") == "1.1 GHz");
  CHECK(root.at("memory").get_string("capacity") == "80 GiB");
}

TEST_CASE("read_config_file leaves extends unresolved", "[configs][extends]") {
  ConfigNode root = read_config_file(data("child_gpu.yaml"));
  CHECK(root.get_string("extends") == "base_gpu.yaml");
  CHECK_FALSE(root.has("sms"));
}

TEST_CASE("an extends cycle is an error naming the chain", "[configs][extends][errors]") {
  CHECK(error_of([] { load_config_file(data("cycle_a.yaml")); }) ==
        data("cycle_b.yaml") + ":2:10: extends cycle: " + data("cycle_a.yaml") + " -> " +
            data("cycle_b.yaml") + " -> " + data("cycle_a.yaml"));
  CHECK(error_of([] { load_config_file(data("self_cycle.yaml")); }) ==
        data("self_cycle.yaml") + ":1:10: extends cycle: " + data("self_cycle.yaml") + " -> " +
            data("self_cycle.yaml"));
}

TEST_CASE("extending a missing file names the including file's location", "[configs][extends][errors]") {
  CHECK(error_of([] { load_config_file(data("missing_base.yaml")); }) ==
        data("missing_base.yaml") + ":3:12: cannot extend '" + data("does_not_exist.yaml") +
            "': file not found");
}

TEST_CASE("extends must name files holding maps", "[configs][extends][errors]") {
  CHECK(error_of([] { load_config_file(data("extends_non_map.yaml")); }) ==
        data("extends_non_map.yaml") +
            ":1:10: cannot extend 'extends_list_base.yaml': it holds a list, not a map");
  auto write = [](const std::string& text) {
    auto path = std::filesystem::temp_directory_path() / "hpcsim_configs_extends_test.yaml";
    std::FILE* file = std::fopen(path.c_str(), "w");
    std::fputs(text.c_str(), file);
    std::fclose(file);
    return path;
  };
  auto path = write("extends: {a: 1}\n");
  CHECK(error_of([&] { load_config_file(path); }) ==
        path.generic_string() + ":1:10: extends: expected a file name or a list of file names, got a map");
  path = write("extends: [\"\"]\n");
  CHECK(error_of([&] { load_config_file(path); }) ==
        path.generic_string() + ":1:11: extends: expected a file name, got ''");
  std::filesystem::remove(path);
}

TEST_CASE("merge_configs replaces non-maps and merges maps", "[configs][extends]") {
  ConfigNode base = parse_config_text("a: {x: 1, y: 2}\nb: [1, 2]\n", "base.yaml");
  ConfigNode over = parse_config_text("a: {y: 3}\nb: [9]\nc: ~\n", "over.yaml");
  ConfigNode merged = merge_configs(base, over);
  CHECK(merged.at("a").get_int("x") == 1);
  CHECK(merged.at("a").get_int("y") == 3);
  CHECK(merged.at("b").items().size() == 1);
  CHECK(merged.at("c").is_null());
  CHECK(merge_configs(base, parse_config_text("7", "s.yaml")).text() == "7");
}
