#include "configs/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace hpcsim::json {

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string number(double value, int significant) {
  if (!std::isfinite(value)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", significant, value);
  return buf;
}

std::string shortest(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
  return std::string(buf, end);
}

std::string fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "null";
  char buf[400];  // %f of 1e308 has 309 digits before the point
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string number(std::optional<double> value, int significant) {
  return value ? number(*value, significant) : "null";
}

std::string integer(std::int64_t value) { return std::to_string(value); }

Line::Line(char open, std::string_view comma, std::string_view colon)
    : text_(1, open), close_(open == '{' ? '}' : ']'), comma_(comma), colon_(colon) {}

Line Line::object(std::string_view comma, std::string_view colon) { return Line('{', comma, colon); }
Line Line::array(std::string_view comma) { return Line('[', comma, ""); }

Line& Line::field(std::string_view key, std::string_view json_value) {
  if (!empty_) text_ += comma_;
  text_ += quote(key);
  text_ += colon_;
  text_ += json_value;
  empty_ = false;
  return *this;
}

Line& Line::item(std::string_view json_value) {
  if (!empty_) text_ += comma_;
  text_ += json_value;
  empty_ = false;
  return *this;
}

std::string Line::str() const { return text_ + close_; }

}  // namespace hpcsim::json
