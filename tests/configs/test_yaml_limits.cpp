// Hostile YAML: aliases that contain themselves, alias bombs, deep nesting and oversized inputs are refused
// at their place (file:line:column) instead of crashing or taking the machine's memory.
#include <catch2/catch.hpp>

#include "configs/config_test_support.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "configs/config_error.h"
#include "configs/input_limits.h"
#include "configs/loader.h"
#include "configs/overrides.h"

using namespace hpcsim;
using hpcsim::test::error_of;

namespace {

std::string parse_error(const std::string& text) {
  return error_of([&] { parse_config_text(text, "t.yaml"); });
}

// "billion laughs": each level's list holds ten aliases of the level before, 10^levels strings in all.
std::string alias_bomb(int levels) {
  std::string text = "a0: &a0 [lol]\n";
  for (int level = 1; level <= levels; ++level) {
    const std::string before = "*a" + std::to_string(level - 1);
    text += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) text += (i ? ", " : "") + before;
    text += "]\n";
  }
  return text;
}

}  // namespace

TEST_CASE("a list holding an alias of itself is refused at the alias", "[configs][loader][limits]") {
  CHECK(parse_error("a: &a [*a]\n") ==
        "t.yaml:1:8: alias *a stands inside the value it names (anchored at t.yaml:1:4): "
        "a YAML alias may not contain itself");
  CHECK(parse_error("a: &x\n  - 1\n  - [2, *x]\n").rfind("t.yaml:3:9: alias *x stands inside", 0) == 0);
}

TEST_CASE("a map holding an alias of itself is refused at the alias", "[configs][loader][limits]") {
  CHECK(parse_error("a: &m\n  b: 1\n  c: *m\n").rfind("t.yaml:3:6: alias *m stands inside the value it names", 0) ==
        0);
  CHECK(parse_error("&root {a: *root}\n").rfind("t.yaml:1:11: alias *root stands inside", 0) == 0);
}

TEST_CASE("a --set value holding an alias of itself names the flag", "[configs][overrides][limits]") {
  ConfigNode root = parse_config_text("a: 1\n", "t.yaml");
  CHECK(error_of([&] { apply_override(root, "a=&x [*x]"); }) ==
        "--set a=&x [*x]: alias *x stands inside the value it names: a YAML alias may not contain itself");
}

TEST_CASE("aliases of finished values are copies", "[configs][loader][limits]") {
  ConfigNode root = parse_config_text("base: &b {x: 1, y: [2, 3]}\nother: *b\nname: &n hi\nkeyed: {*n : 4}\n",
                                      "t.yaml");
  CHECK(root.at("other").at("y").items()[1].text() == "3");
  CHECK(root.at("other").at("x").loc().to_string() == "t.yaml:1:14");  // where the anchored value is written
  CHECK(root.at("keyed").at("hi").text() == "4");
}

TEST_CASE("an alias bomb is refused at the alias past the expansion budget", "[configs][loader][limits]") {
  const std::string bomb = alias_bomb(9);
  REQUIRE(bomb.size() < 600);
  // Levels 1-4 add 10 + 100 + 1,000 + 10,000 strings (and lists); level 5's aliases cross 100,000.
  const std::string message = parse_error(bomb);
  CHECK(message.rfind("t.yaml:6:", 0) == 0);
  CHECK(message.find("aliases expand to more than 100000 values") != std::string::npos);
  // Four levels stay within the budget.
  CHECK(parse_config_text(alias_bomb(4), "t.yaml").at("a4").items().size() == 10);
}

TEST_CASE("nesting deeper than the limit is refused where it goes too deep", "[configs][loader][limits]") {
  const std::size_t depth = input_limits::max_yaml_depth;
  CHECK_NOTHROW(parse_config_text(std::string(depth, '[') + std::string(depth, ']'), "t.yaml"));
  CHECK(parse_error(std::string(depth + 1, '[') + std::string(depth + 1, ']')) ==
        "t.yaml:1:" + std::to_string(depth + 1) + ": maps and lists nested deeper than 64 levels");
  // Far deeper than yaml-cpp's own recursion guard: still an error with a place, not a crash.
  CHECK(parse_error("a: " + std::string(100000, '[') + std::string(100000, ']')) ==
        "t.yaml:1:" + std::to_string(depth + 3) + ": maps and lists nested deeper than 64 levels");
  CHECK(parse_error("a: 1\n---\n" + std::string(100000, '[') + std::string(100000, ']'))
            .find(": maps and lists nested deeper than 64 levels") != std::string::npos);
}

TEST_CASE("inputs past the size limits are refused", "[configs][loader][limits]") {
  const std::string big(input_limits::max_file_bytes + 1, '#');
  CHECK(parse_error(big) == "t.yaml:1:1: " + std::to_string(big.size()) +
                                " bytes, more than the 64 MiB hpcsim reads from one YAML input");

  std::string many_values = "[";
  for (std::size_t i = 0; i < input_limits::max_yaml_values; ++i) many_values += "1,";
  CHECK(parse_error(many_values + "]").rfind("t.yaml:1:2000000: more than 1000000 values in one YAML input", 0) == 0);

  std::string many_keys = "{";
  for (std::size_t i = 0; i <= input_limits::max_map_keys; ++i) many_keys += "k" + std::to_string(i) + ": 1, ";
  many_keys += "}";
  CHECK(parse_error(many_keys).find("more than 10000 keys in one map") != std::string::npos);
}

TEST_CASE("files past the size limits are refused before they are read", "[configs][loader][limits]") {
  // Sparse files: their size costs no disk and, refused before reading, no memory.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "hpcsim-yaml-limits-test";
  std::filesystem::create_directories(dir);
  const std::filesystem::path yaml = dir / "huge.yaml", trace = dir / "huge.swf";
  std::ofstream(yaml).put('#');
  std::filesystem::resize_file(yaml, input_limits::max_file_bytes + 1);
  CHECK(error_of([&] { load_config_file(yaml); }) ==
        yaml.generic_string() + ": " + std::to_string(input_limits::max_file_bytes + 1) +
            " bytes, more than the 64 MiB hpcsim reads from one YAML input");
  std::ofstream(trace).put(';');
  std::filesystem::resize_file(trace, input_limits::max_trace_bytes + 1);
  CHECK(error_of([&] { check_trace_size(trace.string()); }) ==
        trace.string() + ": " + std::to_string(input_limits::max_trace_bytes + 1) +
            " bytes, more than the 1 GiB hpcsim reads from one trace");
  std::filesystem::resize_file(trace, 10);
  CHECK(error_of([&] { check_trace_size(trace.string()); }) == "no error");
  std::filesystem::remove_all(dir);
}

TEST_CASE("errors still come in document order after the limits", "[configs][loader][limits]") {
  // A syntax error anywhere wins over a problem found while building, as yaml-cpp reads the whole text first.
  CHECK(parse_error("a: &a [*a]\nb: [\n").find("invalid YAML") != std::string::npos);
  CHECK(parse_error("a: 1\na: 2\n---\nb: 1\n") == "t.yaml:4:1: expected a single YAML document, found 2");
  CHECK(parse_error("a: 1\na: &a [*a]\n") == "t.yaml:2:1: duplicate key 'a' (first at t.yaml:1:1)");
}

TEST_CASE("a stray ',' where a value starts is an error, not an endless stream of documents", "[configs][loader][limits]") {
  CHECK(parse_error(",") == "t.yaml:1:1: invalid YAML: unexpected ','");
  CHECK(parse_error(",{}][a]:") == "t.yaml:1:1: invalid YAML: unexpected ','");
  CHECK(parse_error("---\n---\n") == "t.yaml:3:1: expected a single YAML document, found 2");
}

TEST_CASE("a long --set value's label is cut: its values do not each hold the whole flag", "[configs][overrides][limits]") {
  // A list of n items from one flag held n copies of the flag's text: 20,000 items (60 KB) took 2.3 GB.
  std::string list = "[1";
  for (int i = 1; i < 20'000; ++i) list += ", 1";
  list += "]";
  ConfigNode root = parse_config_text("a: 1\n", "t.yaml");
  apply_override(root, "a=" + list);
  const std::vector<ConfigNode>& items = root.at("a").items();
  REQUIRE(items.size() == 20'000);
  const std::string label = items.back().loc().file;
  CHECK(label == "--set a=" + list.substr(0, 118) + "... (" + std::to_string(list.size() + 2) + " characters)");
  CHECK(from_flag(items.back().loc()));
  // A short flag keeps its whole text; errors read the cut label.
  CHECK(flag_label("a=1", "--vary") == "--vary a=1");
  CHECK(error_of([&] { apply_override(root, "a=" + list + ", x"); }).rfind("--set a=[1, 1, 1", 0) == 0);
  CHECK(error_of([&] { apply_override(root, "a=" + list + ", x"); }).find(" characters)") != std::string::npos);
}
