#include "configs/json_writer.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

using namespace hpcsim;

TEST_CASE("json::quote escapes quotes, backslashes and every control character") {
  CHECK(json::quote("plain") == "\"plain\"");
  CHECK(json::quote("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json::quote("line\nnext\ttab\rcr") == "\"line\\nnext\\ttab\\rcr\"");
  CHECK(json::quote(std::string("nul\0bell\x07", 9)) == "\"nul\\u0000bell\\u0007\"");
  CHECK(json::quote("\x1f") == "\"\\u001f\"");
  CHECK(json::quote("caf\xc3\xa9") == "\"caf\xc3\xa9\"");  // UTF-8 passes through
}

TEST_CASE("json numbers: the digits asked for, null for what JSON cannot hold") {
  CHECK(json::number(0.1, 10) == "0.1");
  CHECK(json::number(1.0 / 3.0, 17) == "0.33333333333333331");
  CHECK(json::number(123456789012.0, 6) == "1.23457e+11");
  CHECK(json::fixed(1.23456, 3) == "1.235");
  CHECK(json::fixed(1e308, 0).size() == 309);
  CHECK(json::shortest(0.1) == "0.1");
  CHECK(json::number(std::numeric_limits<double>::quiet_NaN()) == "null");
  CHECK(json::number(std::numeric_limits<double>::infinity()) == "null");
  CHECK(json::fixed(-std::numeric_limits<double>::infinity(), 2) == "null");
  CHECK(json::shortest(std::nan("")) == "null");
  CHECK(json::number(std::optional<double>{}) == "null");
  CHECK(json::integer(-42) == "-42");
  CHECK(json::boolean(true) == "true");
}

TEST_CASE("json::Line lays out an object or an array on one line with quoted keys") {
  CHECK(json::Line::object().str() == "{}");
  CHECK(json::Line::object().field("a", "1").field("b\"", json::quote("x")).str() == "{\"a\": 1, \"b\\\"\": \"x\"}");
  CHECK(json::Line::object(",", ":").field("ph", "\"X\"").field("ts", "0.000").str() == "{\"ph\":\"X\",\"ts\":0.000}");
  CHECK(json::Line::array().item("1").item("null").str() == "[1, null]");
}
