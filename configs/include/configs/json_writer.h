#pragma once
// The one JSON writer: every command, renderer and the store write JSON text through it. It lives with the
// other text formats (YAML in, YAML and JSON out) so that the store, below the renderers, can use it too.
// Values are text pieces the caller lays out; a value that cannot be JSON (NaN, infinity) is written as null.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hpcsim::json {

// A JSON string literal (RFC 8259 section 7): quote and backslash escaped, \n \r \t as such, every other
// control character as \u00XX.
std::string quote(std::string_view text);

// A number with `significant` significant digits (printf's %.*g): 17 round-trips a double, 10 compares
// runs and stays readable. NaN and infinities are null.
std::string number(double value, int significant = 10);
// The shortest text that reads back as the same double (std::to_chars); NaN and infinities are null.
std::string shortest(double value);
// A number with `decimals` digits after the point (printf's %.*f): stable bytes for timestamps.
std::string fixed(double value, int decimals);
// An empty optional is null.
std::string number(std::optional<double> value, int significant = 10);
std::string integer(std::int64_t value);
inline std::string boolean(bool value) { return value ? "true" : "false"; }

// Builds `{"k": v, ...}` or `[v, ...]` on one line, with the separators given (", " and ": " by default;
// "," and ":" for compact trace files). Keys are quoted here; values are JSON text already.
class Line {
 public:
  static Line object(std::string_view comma = ", ", std::string_view colon = ": ");
  static Line array(std::string_view comma = ", ");
  Line& field(std::string_view key, std::string_view json_value);
  Line& item(std::string_view json_value);
  std::string str() const;  // closed

 private:
  Line(char open, std::string_view comma, std::string_view colon);
  std::string text_;
  char close_;
  std::string comma_, colon_;
  bool empty_ = true;
};

}  // namespace hpcsim::json
