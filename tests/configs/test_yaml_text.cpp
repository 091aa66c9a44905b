#include <catch2/catch.hpp>

#include "configs/loader.h"
#include "configs/overrides.h"
#include "configs/yaml_text.h"

using namespace hpcsim;

TEST_CASE("to_yaml_text emits the tree in stored key order", "[configs][yaml_text]") {
  ConfigNode root = parse_config_text(
      "zeta: 1\nalpha:\n  b: [x, y]\n  a: ~\nquoted: \"yes\"\nempty_list: []\nempty_map: {}\n", "t.yaml");
  CHECK(to_yaml_text(root) ==
        "zeta: 1\n"
        "alpha:\n"
        "  b:\n"
        "    - x\n"
        "    - y\n"
        "  a: ~\n"
        "quoted: \"yes\"\n"
        "empty_list:\n"
        "  []\n"
        "empty_map:\n"
        "  {}\n");
}

TEST_CASE("to_yaml_text is deterministic and reads back to the same text", "[configs][yaml_text]") {
  ConfigNode root = load_config(HPCSIM_TEST_DATA_DIR "/configs/multi_extends.yaml", {"extra.k=[1, 2]"});
  std::string first = to_yaml_text(root);
  CHECK(first == to_yaml_text(load_config(HPCSIM_TEST_DATA_DIR "/configs/multi_extends.yaml",
                                          {"extra.k=[1, 2]"})));
  ConfigNode reread = parse_config_text(first, "resolved.yaml");
  CHECK(to_yaml_text(reread) == first);
  CHECK(reread.at("extra").at("k").items()[1].as_int() == 2);
  CHECK(first.find("extends") == std::string::npos);
}

TEST_CASE("to_yaml_text of a lone scalar and of null", "[configs][yaml_text]") {
  CHECK(to_yaml_text(parse_config_text("42", "t.yaml")) == "42\n");
  CHECK(to_yaml_text(ConfigNode()) == "~\n");
}
