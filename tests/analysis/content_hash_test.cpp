#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "store/results_store.h"

using hpcsim::content_hash;

TEST_CASE("content_hash matches the published 64-bit FNV-1a vectors", "[analysis][hash]") {
  CHECK(content_hash("") == "cbf29ce484222325");
  CHECK(content_hash("a") == "af63dc4c8601ec8c");
  CHECK(content_hash("foobar") == "85944171f73967e8");
}

TEST_CASE("content_hash is deterministic and tells texts apart", "[analysis][hash]") {
  const std::string yaml = "name: gpt-small\nmodel: {layers: 12, hidden: 768}\nbatch: 32\n";
  std::string edited = yaml;
  edited[edited.size() - 2] = '3';  // batch: 33

  CHECK(content_hash(yaml) == content_hash(std::string(yaml)));
  CHECK(content_hash(yaml) != content_hash(edited));
  CHECK(content_hash("a") != content_hash("b"));
  // Bytes after an embedded NUL still count.
  CHECK(content_hash(std::string_view("x\0y", 3)) != content_hash(std::string_view("x\0z", 3)));

  const std::regex hex16("[0-9a-f]{16}");
  CHECK(std::regex_match(content_hash(yaml), hex16));
  CHECK(std::regex_match(content_hash(""), hex16));
}

TEST_CASE("iso8601_utc_now gives a UTC timestamp", "[analysis][time]") {
  const std::string now = hpcsim::iso8601_utc_now();
  CHECK(std::regex_match(now, std::regex(R"(20\d\d-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-6]\dZ)")));
}
