#include "analysis/trace_writer.h"

#include <cstdio>
#include <map>

namespace hpcsim {

namespace {

// JSON string literal: quotes, backslashes and control characters escaped (RFC 8259 section 7).
std::string quoted(const std::string& s) {
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
std::string micros(double seconds) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", seconds * 1e6);
  return buf;
}

std::string metadata(const char* name, int tid, const std::string& args) {
  return std::string("{\"name\":\"") + name + "\",\"ph\":\"M\",\"pid\":0,\"tid\":" + std::to_string(tid) +
         ",\"args\":{" + args + "}}";
}

}  // namespace

std::string chrome_trace_json(const std::string& process, const std::vector<TimelineOp>& timeline) {
  std::map<std::string, int> tids;
  std::vector<const std::string*> lanes;  // by tid
  for (const TimelineOp& op : timeline) {
    if (tids.emplace(op.lane, static_cast<int>(lanes.size())).second) lanes.push_back(&op.lane);
  }

  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  out += metadata("process_name", 0, "\"name\":" + quoted(process));
  for (std::size_t tid = 0; tid < lanes.size(); ++tid) {
    const int t = static_cast<int>(tid);
    out += ",\n" + metadata("thread_name", t, "\"name\":" + quoted(*lanes[tid]));
    out += ",\n" + metadata("thread_sort_index", t, "\"sort_index\":" + std::to_string(t));
  }
  for (const TimelineOp& op : timeline) {
    const double duration = op.end_s > op.start_s ? op.end_s - op.start_s : 0.0;
    out += ",\n{\"name\":" + quoted(op.name) + ",\"cat\":" + quoted(op.category) + ",\"ph\":\"X\",\"ts\":" +
           micros(op.start_s) + ",\"dur\":" + micros(duration) + ",\"pid\":0,\"tid\":" +
           std::to_string(tids.at(op.lane)) + ",\"args\":{\"category\":" + quoted(op.category) + "}}";
  }
  out += "\n]}\n";
  return out;
}

}  // namespace hpcsim
