#include "report/trace_writer.h"

#include <map>

#include "trace_json.h"

namespace hpcsim {

using trace_json::metadata;
using trace_json::micros;

std::string chrome_trace_json(const std::string& process, const std::vector<TimelineOp>& timeline) {
  std::map<std::string, int> tids;
  std::vector<const std::string*> lanes;  // by tid
  for (const TimelineOp& op : timeline) {
    if (tids.emplace(op.lane, static_cast<int>(lanes.size())).second) lanes.push_back(&op.lane);
  }

  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  out += metadata("process_name", 0, "\"name\":" + json::quote(process));
  for (std::size_t tid = 0; tid < lanes.size(); ++tid) {
    const int t = static_cast<int>(tid);
    out += ",\n" + metadata("thread_name", t, "\"name\":" + json::quote(*lanes[tid]));
    out += ",\n" + metadata("thread_sort_index", t, "\"sort_index\":" + std::to_string(t));
  }
  for (const TimelineOp& op : timeline) {
    const double duration = op.end_s > op.start_s ? op.end_s - op.start_s : 0.0;
    out += ",\n{\"name\":" + json::quote(op.name) + ",\"cat\":" + json::quote(op.category) + ",\"ph\":\"X\",\"ts\":" +
           micros(op.start_s) + ",\"dur\":" + micros(duration) + ",\"pid\":0,\"tid\":" +
           std::to_string(tids.at(op.lane)) + ",\"args\":{\"category\":" + json::quote(op.category) + "}}";
  }
  out += "\n]}\n";
  return out;
}

}  // namespace hpcsim
