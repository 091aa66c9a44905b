#include <catch2/catch.hpp>

#include "configs/config_test_support.h"

#include <filesystem>
#include <fstream>

#include "configs/config_error.h"
#include "configs/loader.h"

using namespace hpcsim;
using hpcsim::test::data;
using hpcsim::test::error_of;

TEST_CASE("parsed nodes carry 1-based file:line:column", "[configs][loader]") {
  ConfigNode root = parse_config_text("name: a\nmemory:\n  capacity: 80 GiB\nlist: [1, 2]\n", "t.yaml");
  REQUIRE(root.is_map());
  CHECK(root.loc().to_string() == "t.yaml:1:1");
  CHECK(root.at("memory").at("capacity").loc().to_string() == "t.yaml:3:13");
  CHECK(root.entries()[1].key_loc.to_string() == "t.yaml:2:1");
  CHECK(root.at("list").items()[1].loc().to_string() == "t.yaml:4:11");
  CHECK(root.at("list").items()[1].text() == "2");
}

TEST_CASE("map keys keep file order", "[configs][loader]") {
  ConfigNode root = parse_config_text("zeta: 1\nalpha: 2\nmid: 3\n", "t.yaml");
  std::vector<std::string> keys;
  for (const auto& entry : root.entries()) keys.push_back(entry.key);
  CHECK(keys == std::vector<std::string>{"zeta", "alpha", "mid"});
}

TEST_CASE("an empty value points at its key", "[configs][loader]") {
  ConfigNode root = parse_config_text("a:\nb: 1\n", "t.yaml");
  CHECK(root.at("a").is_null());
  CHECK(root.at("a").loc().to_string() == "t.yaml:1:1");
}

TEST_CASE("quoted scalars are remembered as quoted", "[configs][loader]") {
  ConfigNode root = parse_config_text("a: \"yes\"\nb: yes\n", "t.yaml");
  CHECK(root.at("a").quoted());
  CHECK_FALSE(root.at("b").quoted());
}

TEST_CASE("malformed YAML reports yaml-cpp's line and column", "[configs][loader][errors]") {
  std::string message = error_of([] { read_config_file(data("malformed.yaml")); });
  CHECK(message.rfind(data("malformed.yaml") + ":4:12: invalid YAML: ", 0) == 0);
  CHECK(message.find("end of sequence flow not found") != std::string::npos);

  message = error_of([] { read_config_file(data("bad_indent.yaml")); });
  CHECK(message == data("bad_indent.yaml") + ":2:6: invalid YAML: illegal map value");
}

TEST_CASE("a missing or unreadable file is an error naming it", "[configs][loader][errors]") {
  CHECK(error_of([] { read_config_file(data("no_such_file.yaml")); }) ==
        data("no_such_file.yaml") + ": file not found");
  CHECK(error_of([] { load_config_file(data("no_such_file.yaml")); }) ==
        data("no_such_file.yaml") + ": file not found");
  CHECK(error_of([] { read_config_file(data("sub")); }) ==
        data("sub") + ": is a directory, not a file");
  ConfigError error(SourceLoc{"x.yaml"}, "file not found");
  CHECK_FALSE(error.where().has_line());
  CHECK(error.message() == "file not found");
}

TEST_CASE("duplicate keys are rejected at the second one", "[configs][loader][errors]") {
  CHECK(error_of([] { parse_config_text("a: 1\nb: 2\na: 3\n", "t.yaml"); }) ==
        "t.yaml:3:1: duplicate key 'a' (first at t.yaml:1:1)");
}

TEST_CASE("non-string map keys are rejected", "[configs][loader][errors]") {
  CHECK(error_of([] { parse_config_text("? [1, 2]\n: x\n", "t.yaml"); }) ==
        "t.yaml:1:3: map keys must be plain strings");
}

TEST_CASE("more than one YAML document is rejected", "[configs][loader][errors]") {
  CHECK(error_of([] { parse_config_text("a: 1\n---\nb: 2\n", "t.yaml"); }) ==
        "t.yaml:3:1: expected a single YAML document, found 2");
}

TEST_CASE("an empty file is a null root", "[configs][loader]") {
  ConfigNode root = read_config_file(data("empty.yaml"));
  CHECK(root.is_null());
  CHECK(root.loc().file == data("empty.yaml"));
}

TEST_CASE("files written by the test itself load too", "[configs][loader]") {
  auto path = std::filesystem::temp_directory_path() / "hpcsim_configs_loader_test.yaml";
  {
    std::ofstream out(path);
    out << "sms: 132\n";
  }
  CHECK(read_config_file(path).get_int("sms") == 132);
  std::filesystem::remove(path);
}

TEST_CASE("an unreadable file is an error naming it", "[configs][loader][errors]") {
  auto path = std::filesystem::temp_directory_path() / "hpcsim_configs_unreadable.yaml";
  {
    std::ofstream out(path);
    out << "a: 1\n";
  }
  std::filesystem::permissions(path, std::filesystem::perms::none);
  // Root reads regardless of permissions; only check where the OS refuses.
  if (!std::ifstream(path)) {
    CHECK(error_of([&] { read_config_file(path); }) == path.generic_string() + ": cannot read file");
  } else {
    CHECK(read_config_file(path).get_int("a") == 1);
  }
  std::filesystem::remove(path);
}
