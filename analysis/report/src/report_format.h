#pragma once
// Number and field formatting shared by the text and CSV renderers (private to report/; JSON goes through
// configs/json_writer.h).
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

}  // namespace hpcsim::report_format
