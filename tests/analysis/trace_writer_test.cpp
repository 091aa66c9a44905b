// The --trace writer (Chrome trace-event JSON) and the --scale rows: escaping, lanes, units, efficiency.
#include <catch2/catch.hpp>

#include <string>

#include "configs/config_error.h"
#include "driver/scaling.h"
#include "report/scaling_report.h"
#include "report/trace_writer.h"

using namespace hpcsim;

TEST_CASE("chrome_trace_json: one tid per lane, microseconds, escaped strings", "[trace]") {
  const std::vector<TimelineOp> ops = {
      {"fwd \"a\"\\b", "stage 0 compute", "compute", 0.0, 1.5e-6},
      {"all\nreduce\x01", "stage 0 data-parallel", "communication", 1e-6, 3e-6},
      {"bwd", "stage 0 compute", "compute", 2e-6, 2e-6},
  };
  const std::string json = chrome_trace_json("run \"x\"", ops);
  CHECK_THAT(json, Catch::StartsWith("{\"displayTimeUnit\":\"ns\",\"traceEvents\":["));
  CHECK_THAT(json, Catch::Contains("\"args\":{\"name\":\"run \\\"x\\\"\"}"));
  CHECK_THAT(json, Catch::Contains("\"tid\":0,\"args\":{\"name\":\"stage 0 compute\"}"));
  CHECK_THAT(json, Catch::Contains("\"tid\":1,\"args\":{\"name\":\"stage 0 data-parallel\"}"));
  CHECK_THAT(json, Catch::Contains("{\"name\":\"fwd \\\"a\\\"\\\\b\",\"cat\":\"compute\",\"ph\":\"X\",\"ts\":0.000,"
                                   "\"dur\":1.500,\"pid\":0,\"tid\":0,\"args\":{\"category\":\"compute\"}}"));
  CHECK_THAT(json, Catch::Contains("\"name\":\"all\\nreduce\\u0001\""));
  CHECK_THAT(json, Catch::Contains("\"name\":\"bwd\",\"cat\":\"compute\",\"ph\":\"X\",\"ts\":2.000,\"dur\":0.000,"));
  CHECK(json.find("thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":2") == std::string::npos);  // two lanes only
  CHECK(json == chrome_trace_json("run \"x\"", ops));
  CHECK(chrome_trace_json("empty", {}) ==
        "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"empty\"}}\n]}\n");
}

TEST_CASE("scaling rows: speed-up and efficiency against the first count", "[scaling]") {
  std::vector<ScalingPoint> points(3);
  points[0].gpus = 8, points[0].nodes = 1, points[0].result.samples_per_s = 100, points[0].result.step_time_s = 1;
  points[1].gpus = 16, points[1].nodes = 2, points[1].result.samples_per_s = 180, points[1].result.step_time_s = 1.1;
  points[2].gpus = 64, points[2].nodes = 8, points[2].result.samples_per_s = 400, points[2].result.step_time_s = 1.6;
  const std::vector<ScalingRow> rows = scaling_rows(points);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].speedup == 1);
  CHECK(rows[0].efficiency == 1);
  CHECK(rows[1].speedup == Approx(1.8));
  CHECK(rows[1].efficiency == Approx(0.9));
  CHECK(rows[2].efficiency == Approx(0.5));
  CHECK_THAT(scaling_to_json(rows), Catch::Contains("{\"gpus\": 16, \"nodes\": 2, \"step_time_s\": 1.1, "
                                                    "\"samples_per_s\": 180, \"tokens_per_s\": null, "
                                                    "\"step_time_interval_s\": null, \"speedup\": 1.8, \"efficiency\": 0.9}"));
  CHECK_THAT(scaling_to_csv(rows), Catch::Contains("\n64,8,1.6,400,,4,0.5\n"));
  CHECK_THAT(scaling_to_table("s", rows), Catch::Contains("0.500"));
}

TEST_CASE("parse_gpu_counts: positive integers or an error naming the flag", "[scaling]") {
  CHECK(parse_gpu_counts("1,2, 4,8", "--scale x") == std::vector<int>{1, 2, 4, 8});
  for (const std::string bad : {"", "0", "x", "1,,2", "-4", "2.5", "8,", "2,2", "8,16, 8"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_gpu_counts(bad, "--scale " + bad), Catch::StartsWith("--scale " + bad + ": "));
  }
}
