// The schedule's Gantt chart (--gantt): trace-event JSON read back with a strict parser; every job on each of
// its nodes at its times, one named row per node, a window of rows, errors.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "report/schedule_gantt.h"
#include "json_reader.h"
#include "workloads/scheduling/batch_queue.h"
#include "workloads/scheduling/synthetic_trace.h"

using namespace hpcsim;

namespace {

std::vector<QueueRun> small_schedule(int nodes) {
  SyntheticTraceOptions options;
  options.jobs = 300;
  options.machine_nodes = nodes;
  options.max_job_fraction = 0.5;
  options.max_run_s = 3600;
  options.seed = 5;
  std::vector<BatchJob> jobs = synthetic_trace(options);
  jobs[7].run_s = jobs[7].estimate_s + 100;  // one killed job
  return simulate_batch_queue(jobs, nodes, QueuePolicy::easy);
}

struct Event {
  std::string name, cat;
  double ts_us, dur_us;
  double id, nodes, wait_s;
  bool killed;
};

// (job id, node) -> its event; rows: tid -> name. Fails the test on anything not in the documented shape.
void read_back(const std::string& json, std::map<std::pair<long, int>, Event>& events, std::map<int, std::string>& rows,
               std::size_t& event_count) {
  const test_json::Value doc = test_json::parse(json);
  REQUIRE(doc.at("displayTimeUnit").string == "ms");
  event_count = 0;
  for (const test_json::Value& e : doc.at("traceEvents").array) {
    REQUIRE(e.at("pid").number == 0);
    const int tid = static_cast<int>(e.at("tid").number);
    const std::string& ph = e.at("ph").string;
    if (ph == "M") {
      if (e.at("name").string == "thread_name") rows[tid] = e.at("args").at("name").string;
      if (e.at("name").string == "thread_sort_index") REQUIRE(e.at("args").at("sort_index").number == tid);
      continue;
    }
    REQUIRE(ph == "X");
    ++event_count;
    const test_json::Value& args = e.at("args");
    const Event ev{e.at("name").string,         e.at("cat").string,        e.at("ts").number,
                   e.at("dur").number,          args.at("id").number,      args.at("nodes").number,
                   args.at("wait_s").number,    args.at("killed").boolean};
    REQUIRE(events.emplace(std::make_pair(static_cast<long>(ev.id), tid), ev).second);  // once per node
  }
}

}  // namespace

TEST_CASE("schedule_gantt_json: every job on each of its nodes at its times, one row per node", "[gantt]") {
  const int nodes = 16;
  const std::vector<QueueRun> runs = small_schedule(nodes);
  const std::string json = schedule_gantt_json(runs, nodes, {"KTH \"test\"", 0, -1});
  std::map<std::pair<long, int>, Event> events;
  std::map<int, std::string> rows;
  std::size_t count = 0;
  read_back(json, events, rows, count);

  REQUIRE(rows.size() == static_cast<std::size_t>(nodes));
  for (int n = 0; n < nodes; ++n) CHECK(rows[n] == "node " + std::to_string(n));
  CHECK_THAT(json, Catch::Contains("\"args\":{\"name\":\"KTH \\\"test\\\"\"}"));

  std::size_t pairs = 0;
  int killed = 0;
  for (const QueueRun& r : runs) {
    const ScheduledJob& s = r.scheduled;
    killed += s.killed;
    for (const int n : r.node_ids) {
      ++pairs;
      INFO("job " << s.job.id << " node " << n);
      const auto it = events.find({static_cast<long>(s.job.id), n});
      REQUIRE(it != events.end());
      const Event& e = it->second;
      CHECK(e.name == "job " + std::to_string(s.job.id));
      CHECK(e.cat == (s.killed ? "killed" : "job"));
      CHECK(e.ts_us == Approx(s.start_s * 1e6).margin(1e-3));
      CHECK(e.dur_us == Approx((s.end_s - s.start_s) * 1e6).margin(1e-3));
      CHECK(e.nodes == static_cast<double>(r.node_ids.size()));
      CHECK(e.wait_s == s.wait_s());
      CHECK(e.killed == s.killed);
    }
  }
  CHECK(killed == 1);
  CHECK(count == pairs);  // nothing else
  CHECK(json == schedule_gantt_json(runs, nodes, {"KTH \"test\"", 0, -1}));
}

TEST_CASE("schedule_gantt_json: a window of rows draws only those nodes", "[gantt]") {
  const int nodes = 16;
  const std::vector<QueueRun> runs = small_schedule(nodes);
  std::map<std::pair<long, int>, Event> events;
  std::map<int, std::string> rows;
  std::size_t count = 0;
  read_back(schedule_gantt_json(runs, nodes, {"w", 4, 3}), events, rows, count);
  CHECK(rows == std::map<int, std::string>{{4, "node 4"}, {5, "node 5"}, {6, "node 6"}});
  std::size_t expected = 0;
  for (const QueueRun& r : runs) {
    for (const int n : r.node_ids) expected += n >= 4 && n < 7;
  }
  CHECK(count == expected);
  CHECK(expected > 0);
  for (const auto& [key, event] : events) {
    CHECK(key.second >= 4);
    CHECK(key.second < 7);
  }
}

TEST_CASE("schedule_gantt_json: nodes outside the cluster or the window are errors", "[gantt][errors]") {
  std::vector<QueueRun> runs = small_schedule(16);
  CHECK_THROWS_WITH(schedule_gantt_json(runs, 16, {"x", 10, 7}), Catch::Contains("not nodes of a 16-node cluster"));
  CHECK_THROWS_WITH(schedule_gantt_json(runs, 16, {"x", -1, 2}), Catch::Contains("not nodes"));
  runs[3].node_ids.push_back(16);
  CHECK_THROWS_WITH(schedule_gantt_json(runs, 16), Catch::Contains("ran on node 16 of a 16-node cluster"));
  CHECK(schedule_gantt_json({}, 0) ==
        "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"hpcsim schedule\"}}\n]}\n");
}
