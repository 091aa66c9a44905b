#pragma once
// Number and field formatting shared by the validation reports (private to analysis/).
#include <cmath>
#include <cstdio>
#include <string>

namespace hpcsim::report_format {

inline std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// Enough digits to compare, few enough to read: whole numbers from 100 up, 3 significant digits below.
inline std::string value(double v) { return std::abs(v) >= 100 ? format("%.0f", v) : format("%.3g", v); }

inline std::string percent(double fraction, bool sign) { return format(sign ? "%+.1f %%" : "%.1f %%", fraction * 100); }

inline std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// A JSON string literal: quotes and backslashes escaped, control characters as \u00XX.
inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace hpcsim::report_format
