#pragma once
// Pieces of Chrome trace-event JSON shared by the step trace (`run --trace`) and the schedule's Gantt
// chart (private to analysis/): string literals, microsecond stamps, metadata events.
#include <cstdio>
#include <string>

namespace hpcsim::trace_json {

// JSON string literal: quotes, backslashes and control characters escaped (RFC 8259 section 7).
inline std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
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

// Microseconds with nanosecond resolution: fixed notation keeps the bytes stable and readable.
inline std::string micros(double seconds) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", seconds * 1e6);
  return buf;
}

// A metadata event ("ph": "M") of pid 0; `args` is the inside of its args object.
inline std::string metadata(const char* name, int tid, const std::string& args) {
  return std::string("{\"name\":\"") + name + "\",\"ph\":\"M\",\"pid\":0,\"tid\":" + std::to_string(tid) +
         ",\"args\":{" + args + "}}";
}

}  // namespace hpcsim::trace_json
