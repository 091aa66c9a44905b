#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <regex>
#include <stdexcept>
#include <string>

#include "store/results_store.h"
#include "analysis/temp_path.h"

using hpcsim::Metric;
using hpcsim::ResultsStore;
using hpcsim::RunRecord;
using hpcsim::StoreError;
using hpcsim::test::TempPath;

namespace {

RunRecord sample_run(const std::string& name = "gpt-small") {
  RunRecord r;
  r.report.scenario = name;
  r.scenario_text = "name: " + name + "\nbatch: 32\n";
  r.tool_version = "0.1.0";
  r.started_at = "2024-05-01T12:00:00Z";
  r.wall_s = 1.25;
  r.status = "ok";
  r.report.metrics = {{"step_time_s", 0.0123456789, "s"},
               {"tokens_per_s", std::nullopt, "tokens/s"},
               {"hbm_peak_bytes", 7.5e10, "B"}};
  return r;
}

std::uint64_t bits(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

}  // namespace

TEST_CASE("a run and its metrics survive a reopen unchanged", "[analysis][store]") {
  TempPath db("roundtrip.db");
  RunRecord run = sample_run();
  run.status = "oom";
  run.message = "needs 92 GiB, device has 80 GiB";
  std::int64_t id = 0;
  {
    ResultsStore store(db.str());
    id = store.record_run(run);
  }
  ResultsStore store(db.str());
  const auto runs = store.runs();
  REQUIRE(runs.size() == 1);
  const auto& r = runs[0];
  CHECK(r.id == id);
  CHECK(r.scenario_name == run.report.scenario);
  CHECK(r.scenario_text == run.scenario_text);
  CHECK(r.scenario_hash == hpcsim::content_hash(run.scenario_text));
  CHECK(r.tool_version == "0.1.0");
  CHECK(r.started_at == "2024-05-01T12:00:00Z");
  CHECK(r.wall_s == 1.25);
  CHECK(r.status == "oom");
  CHECK(r.message == run.message);

  const auto metrics = store.metrics(id);
  REQUIRE(metrics.size() == 3);  // in recorded order, not alphabetical
  CHECK(metrics[0].name == "step_time_s");
  CHECK(metrics[0].value == 0.0123456789);
  CHECK(metrics[0].unit == "s");
  CHECK(metrics[1].name == "tokens_per_s");
  CHECK_FALSE(metrics[1].value.has_value());
  CHECK(metrics[1].unit == "tokens/s");
  CHECK(metrics[2].name == "hbm_peak_bytes");
  CHECK(metrics[2].value == 7.5e10);
}

TEST_CASE("metric values come back bit for bit", "[analysis][store]") {
  TempPath db("bits.db");
  ResultsStore store(db.str());
  RunRecord run = sample_run();
  const double values[] = {0.1 + 0.2, -1.0 / 3.0, 1e308, std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::infinity()};
  run.report.metrics.clear();
  for (std::size_t i = 0; i < std::size(values); ++i) run.report.metrics.push_back({"m" + std::to_string(i), values[i], "1"});
  const auto back = store.metrics(store.record_run(run));
  REQUIRE(back.size() == std::size(values));
  for (std::size_t i = 0; i < std::size(values); ++i) {
    REQUIRE(back[i].value.has_value());
    CHECK(bits(*back[i].value) == bits(values[i]));
  }
}

TEST_CASE("negative zero reads back as zero", "[analysis][store]") {
  // SQLite stores integral REALs as integers, which drops the sign of zero; the value still compares equal.
  TempPath db("negzero.db");
  ResultsStore store(db.str());
  RunRecord run = sample_run();
  run.report.metrics = {{"delta", -0.0, "s"}};
  const auto back = store.metrics(store.record_run(run));
  REQUIRE(back.size() == 1);
  CHECK(back[0].value == 0.0);
}

TEST_CASE("runs are listed by id and an empty message or start time is handled", "[analysis][store]") {
  TempPath db("listing.db");
  ResultsStore store(db.str());
  RunRecord first = sample_run("first");
  first.started_at.clear();  // means "now"
  const auto id1 = store.record_run(first);
  const auto id2 = store.record_run(sample_run("second"));
  CHECK(id2 > id1);
  const auto runs = store.runs();
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].scenario_name == "first");
  CHECK(runs[1].scenario_name == "second");
  CHECK(runs[0].message.empty());
  CHECK(std::regex_match(runs[0].started_at, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  CHECK(store.metrics(id1).size() == 3);
  CHECK(store.metrics(9999).empty());
}

TEST_CASE("find_by_hash returns the latest ok run of a scenario", "[analysis][store]") {
  TempPath db("hash.db");
  ResultsStore store(db.str());
  RunRecord run = sample_run();
  const std::string hash = hpcsim::content_hash(run.scenario_text);
  CHECK_FALSE(store.find_by_hash(hash).has_value());

  const auto ok1 = store.record_run(run);
  const auto ok2 = store.record_run(run);
  run.status = "error";
  run.message = "simulator threw";
  store.record_run(run);  // a later failure does not count as done
  store.record_run(sample_run("other"));

  REQUIRE(store.find_by_hash(hash).has_value());
  CHECK(*store.find_by_hash(hash) == ok2);
  CHECK(ok2 > ok1);
  CHECK_FALSE(store.find_by_hash("0000000000000000").has_value());
}

TEST_CASE("a duplicate metric name fails the whole run and leaves no row", "[analysis][store][errors]") {
  TempPath db("dup.db");
  ResultsStore store(db.str());
  RunRecord run = sample_run();
  run.report.metrics.push_back({"step_time_s", 2.0, "s"});
  try {
    store.record_run(run);
    FAIL("expected a StoreError");
  } catch (const StoreError& e) {
    const std::string what = e.what();
    CHECK(what.rfind(db.str() + ": ", 0) == 0);
    CHECK(what.find("step_time_s") != std::string::npos);
    CHECK(what.find("UNIQUE") != std::string::npos);
  }
  CHECK(store.runs().empty());

  // The rolled-back run leaves neither orphan metrics nor a stuck transaction behind.
  const auto id = store.record_run(sample_run());
  CHECK(store.metrics(id).size() == 3);
  CHECK(store.runs().size() == 1);
}

TEST_CASE("bad run fields are refused before anything is written", "[analysis][store][errors]") {
  TempPath db("bad.db");
  ResultsStore store(db.str());

  SECTION("unknown status") {
    RunRecord run = sample_run();
    run.status = "crashed";
    CHECK_THROWS_WITH(store.record_run(run), Catch::Contains(db.str()) && Catch::Contains("CHECK constraint"));
  }
  SECTION("NaN metric value") {
    RunRecord run = sample_run();
    run.report.metrics.push_back({"mfu", std::nan(""), "1"});
    CHECK_THROWS_WITH(store.record_run(run), Catch::Contains(db.str()) && Catch::Contains("'mfu'") &&
                                                 Catch::Contains("NaN"));
  }
  SECTION("NaN wall time") {
    RunRecord run = sample_run();
    run.wall_s = std::nan("");
    CHECK_THROWS_AS(store.record_run(run), StoreError);
  }
  CHECK(store.runs().empty());
}

TEST_CASE("an exception thrown midway through a write rolls the run back", "[analysis][store][errors]") {
  TempPath db("midway.db");
  ResultsStore store(db.str());
  store.set_metric_written_hook([](std::size_t written) {
    if (written == 2) throw std::runtime_error("interrupted");
  });
  CHECK_THROWS_WITH(store.record_run(sample_run()), "interrupted");
  CHECK(store.runs().empty());

  store.set_metric_written_hook(nullptr);
  const auto id = store.record_run(sample_run());
  CHECK(store.metrics(id).size() == 3);
}

TEST_CASE("two handles on one file see each other's runs", "[analysis][store]") {
  TempPath db("shared.db");
  ResultsStore writer(db.str());
  ResultsStore reader(db.str());
  const auto id = writer.record_run(sample_run());
  REQUIRE(reader.runs().size() == 1);
  CHECK(reader.metrics(id).size() == 3);

  ResultsStore moved = std::move(reader);
  CHECK(moved.path() == db.str());
  CHECK(moved.runs().size() == 1);
}
