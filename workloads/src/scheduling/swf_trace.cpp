#include "workloads/scheduling/swf_trace.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_map>

#include "configs/config_error.h"
#include "configs/input_limits.h"

namespace hpcsim {

namespace {

constexpr int kFields = 18;

// The value of a header line such as "; MaxProcs: 100", or -1.
std::int64_t header_value(const std::string& line, const std::string& key) {
  const std::size_t at = line.find(key + ":");
  if (at == std::string::npos) return -1;
  std::istringstream in(line.substr(at + key.size() + 1));
  std::int64_t v = -1;
  in >> v;
  return in.fail() ? -1 : v;
}

// The fields a job line's job is built from, inside what the simulator can hold: times in its range and
// not before the trace's start, counts and ids whole numbers an integer holds (-1 is SWF's "unknown").
void check_range(const double (&f)[kFields], const int (&column)[kFields], const std::string& file, int line) {
  auto refuse = [&](int field, const std::string& why) {
    throw ConfigError({file, line, column[field]},
                      "field " + std::to_string(field + 1) + " of an SWF job line " + why);
  };
  for (int field : {1, 3, 8}) {  // submit, run and requested time
    if (f[field] > input_limits::max_time_s) {
      refuse(field, "is a time of more than 1e9 s (about 31.7 years), the range hpcsim simulates");
    }
  }
  if (f[1] < 0) refuse(1, "(submit time) is negative: SWF times count from the trace's start, 0");
  for (int field : {0, 4, 7, 11}) {  // job id, processors allocated and requested, user id
    if (f[field] < -1 || f[field] > std::numeric_limits<std::int32_t>::max() || f[field] != std::floor(f[field])) {
      refuse(field, "is not a whole number from -1 to 2147483647");
    }
  }
}

}  // namespace

SwfTrace parse_swf(const std::string& text, const std::string& file, const SwfOptions& options) {
  SwfTrace trace;
  std::int64_t max_nodes = -1, max_procs = -1;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  struct Valid {
    BatchJob job;
    std::int64_t procs;
  };
  std::vector<Valid> valid;
  std::unordered_map<std::int64_t, int> account_of;  // user id -> index in trace.users
  while (std::getline(lines, line)) {
    ++number;
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    if (line[first] == ';') {
      if (const std::int64_t v = header_value(line, "MaxNodes"); v > 0) max_nodes = v;
      if (const std::int64_t v = header_value(line, "MaxProcs"); v > 0) max_procs = v;
      continue;
    }
    std::istringstream in(line);
    double f[kFields];
    int column[kFields];
    int count = 0;
    for (std::string token; in >> token;) {
      if (count == kFields) {
        throw ConfigError({file, number, 1}, "an SWF job line has 18 fields; this one has more");
      }
      char* end = nullptr;
      f[count] = std::strtod(token.c_str(), &end);
      if (end == token.c_str() || *end != '\0' || !std::isfinite(f[count])) {
        throw ConfigError({file, number, static_cast<int>(line.find(token)) + 1},
                          "field " + std::to_string(count + 1) + " of an SWF job line is not a number: '" + token + "'");
      }
      column[count] = static_cast<int>(in.tellg() == -1 ? line.size() : static_cast<std::size_t>(in.tellg())) -
                      static_cast<int>(token.size()) + 1;
      ++count;
    }
    if (count != kFields) {
      throw ConfigError({file, number, 1},
                        "an SWF job line has 18 fields; this one has " + std::to_string(count));
    }
    check_range(f, column, file, number);
    const double run = f[3];
    const std::int64_t procs = static_cast<std::int64_t>(f[4] != -1 ? f[4] : f[7]);
    if (run <= 0 || procs <= 0) {
      ++trace.skipped;
      continue;
    }
    BatchJob job;
    job.id = static_cast<std::int64_t>(f[0]);
    job.submit_s = f[1];
    job.run_s = run;
    job.estimate_s = f[8] == -1 || f[8] < run ? run : f[8];
    // Accounts in order of each user's first job line (the fair share of the priority policy).
    const std::int64_t user = static_cast<std::int64_t>(f[11]);
    const auto [known, added] = account_of.emplace(user, static_cast<int>(trace.users.size()));
    if (added) trace.users.push_back(user);
    job.account = known->second;
    valid.push_back({job, procs});
  }
  if (valid.empty() && trace.skipped == 0) {
    throw ConfigError({file, 0, 0}, text.empty() ? "the trace is empty: an SWF trace has one job per line"
                                                 : "no job lines: an SWF trace has one job per line of 18 fields "
                                                   "(lines starting with ';' are its header)");
  }
  trace.max_procs = std::max<std::int64_t>(0, max_procs > 0 ? max_procs : max_nodes);
  // The machine: --nodes when given, else the header's MaxNodes (or MaxProcs); unknown: no limit.
  const std::int64_t machine = options.machine_nodes > 0 ? options.machine_nodes
                               : max_nodes > 0           ? max_nodes
                                                         : trace.max_procs;
  for (Valid& v : valid) {
    const std::int64_t nodes =
        options.cores_per_node > 0 ? (v.procs + options.cores_per_node - 1) / options.cores_per_node : v.procs;
    if (machine > 0 && nodes > machine) {
      ++trace.skipped;
      ++trace.skipped_too_large;
      continue;
    }
    if (options.max_jobs > 0 && static_cast<std::int64_t>(trace.jobs.size()) == options.max_jobs) break;
    v.job.nodes = static_cast<int>(nodes);
    trace.jobs.push_back(v.job);
  }
  std::stable_sort(trace.jobs.begin(), trace.jobs.end(), [](const BatchJob& a, const BatchJob& b) {
    return a.submit_s != b.submit_s ? a.submit_s < b.submit_s : a.id < b.id;
  });
  return trace;
}

SwfTrace load_swf(const std::string& path, const SwfOptions& options) {
  std::ifstream in(path);
  if (!in) throw ConfigError({path, 0, 0}, "cannot read the SWF trace");
  check_trace_size(path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_swf(text.str(), path, options);
}

}  // namespace hpcsim
