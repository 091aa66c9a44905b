#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <stdexcept>
#include <string>

#include "store/results_store.h"
#include "report/show_results.h"
#include "store/study_runner.h"
#include "analysis/temp_path.h"

using hpcsim::PointStatus;
using hpcsim::ResultsStore;
using hpcsim::RunRecord;
using hpcsim::StoreError;
using hpcsim::Study;
using hpcsim::test::TempPath;

namespace {

// Three points varying parallelism.dp, as `run --scale 2,4,8` would on one node.
Study dp_study() {
  Study study;
  study.name = "gpt --scale 2,4,8";
  study.base_scenario_text = "name: gpt\n";
  for (const char* dp : {"2", "4", "8"}) study.points.push_back({{{"parallelism.dp", dp}}, PointStatus::pending, {}});
  study.parameters = hpcsim::varied_parameters(study.points);
  return study;
}

RunRecord point_run(std::size_t index, const std::string& status = "ok") {
  RunRecord r;
  r.report.scenario = "gpt @" + std::to_string(index) + " gpus";
  r.report.metrics = {{"step_time_s", 0.5 / static_cast<double>(index + 1), "s"}};
  r.scenario_text = "name: gpt\nparallelism: {dp: " + std::to_string(index) + "}\n";
  r.tool_version = "0.1.0";
  r.status = status;
  return r;
}

void exec(sqlite3* db, const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error ? error : "?";
    sqlite3_free(error);
    FAIL(message);
  }
}

// A results.db as hpcsim wrote it before scenario kinds and studies (schema version 1), with one run.
void write_version1_store(const std::string& path) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  exec(db, R"sql(
CREATE TABLE runs(id INTEGER PRIMARY KEY, scenario_name TEXT, scenario_text TEXT NOT NULL,
  scenario_hash TEXT NOT NULL, tool_version TEXT NOT NULL, started_at TEXT NOT NULL, wall_s REAL NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('ok','oom','error')), message TEXT);
CREATE TABLE metrics(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, name TEXT NOT NULL,
  value REAL, unit TEXT NOT NULL, PRIMARY KEY(run_id, name));
CREATE INDEX runs_by_scenario_hash ON runs(scenario_hash);
INSERT INTO runs VALUES(1, 'old-run', 'name: old-run', 'abc', '0.1.0', '2024-01-01T00:00:00Z', 1.5, 'ok', NULL);
INSERT INTO metrics VALUES(1, 'step_time_s', 0.25, 's');
PRAGMA application_id = 1213219667;
PRAGMA user_version = 1;
)sql");
  sqlite3_close(db);
}

}  // namespace

TEST_CASE("a study is stored with every point pending, then each point as it completes", "[analysis][store][study]") {
  TempPath db("study.db");
  ResultsStore store(db.str());
  const Study study = dp_study();
  const std::int64_t id = store.record_study(study);

  const auto studies = store.studies();
  REQUIRE(studies.size() == 1);
  CHECK(studies[0].id == id);
  CHECK(studies[0].name == "gpt --scale 2,4,8");
  CHECK(studies[0].base_scenario_hash == hpcsim::content_hash("name: gpt\n"));
  CHECK(studies[0].parameters_json == R"({"parallelism.dp": ["2", "4", "8"]})");
  CHECK(studies[0].created_at.size() == 20);  // YYYY-MM-DDTHH:MM:SSZ

  auto points = store.study_points(id);
  REQUIRE(points.size() == 3);
  for (const auto& p : points) {
    CHECK(p.status == PointStatus::pending);
    CHECK_FALSE(p.run_id.has_value());
  }
  CHECK(points[1].values_json == R"({"parallelism.dp": "4"})");

  const std::int64_t run0 = store.record_study_point(id, 0, point_run(0));
  const std::int64_t run1 = store.record_study_point(id, 1, point_run(1, "oom"));
  points = store.study_points(id);
  CHECK(points[0].status == PointStatus::ok);
  CHECK(points[0].run_id == run0);
  CHECK(points[1].status == PointStatus::oom);
  CHECK(points[1].run_id == run1);
  CHECK(points[2].status == PointStatus::pending);
  CHECK(store.runs().size() == 2);
  CHECK(store.metrics(run1).size() == 1);
}

TEST_CASE("storing a point that is not in the study stores nothing", "[analysis][store][study]") {
  TempPath db("study-bad-point.db");
  ResultsStore store(db.str());
  const std::int64_t id = store.record_study(dp_study());
  CHECK_THROWS_WITH(store.record_study_point(id, 7, point_run(7)),
                    Catch::StartsWith(db.str() + ": ") && Catch::Contains("point 7") && Catch::Contains("no such point"));
  CHECK_THROWS_AS(store.record_study_point(id + 1, 0, point_run(0)), StoreError);
  CHECK_THROWS_WITH(store.record_study_point(id, 0, point_run(0, "pending")), Catch::Contains("'pending'"));
  CHECK(store.runs().empty());  // the run rows were rolled back with the failed point
}

TEST_CASE("run_study stores each point before the next one runs", "[analysis][store][study]") {
  TempPath db("study-runner.db");
  ResultsStore store(db.str());
  Study study = dp_study();
  std::optional<std::int64_t> id;
  const auto run_point = [&](std::size_t index) {
    // Another connection sees every earlier point already committed, this one and later ones pending.
    if (index > 0) {
      const ResultsStore reader(db.str());
      const auto points = reader.study_points(reader.studies().at(0).id);
      for (std::size_t i = 0; i < points.size(); ++i)
        CHECK((points[i].status == PointStatus::pending) == (i >= index));
    }
    return point_run(index);
  };
  id = hpcsim::run_study(study, &store, run_point);
  REQUIRE(id.has_value());
  for (const auto& p : store.study_points(*id)) {
    CHECK(p.status == PointStatus::ok);
    REQUIRE(p.run_id.has_value());
  }
  for (const auto& p : study.points) CHECK(p.run_id.has_value());
}

TEST_CASE("a study cut short keeps the points it finished", "[analysis][store][study]") {
  TempPath db("study-cut.db");
  {
    ResultsStore store(db.str());
    Study study = dp_study();
    const auto run_point = [](std::size_t index) -> RunRecord {
      if (index == 2) throw std::runtime_error("interrupted");
      return point_run(index, index == 1 ? "error" : "ok");
    };
    CHECK_THROWS_WITH(hpcsim::run_study(study, &store, run_point), "interrupted");
  }
  const ResultsStore reopened(db.str());
  const auto points = reopened.study_points(reopened.studies().at(0).id);
  REQUIRE(points.size() == 3);
  CHECK(points[0].status == PointStatus::ok);
  CHECK(points[1].status == PointStatus::error);
  CHECK(points[1].run_id.has_value());
  CHECK(points[2].status == PointStatus::pending);
  CHECK(reopened.runs().size() == 2);
}

TEST_CASE("run_study without a store runs every point and stores nothing", "[analysis][study]") {
  Study study = dp_study();
  std::size_t calls = 0;
  const auto id = hpcsim::run_study(study, nullptr, [&](std::size_t index) {
    ++calls;
    return point_run(index, index == 0 ? "oom" : "ok");
  });
  CHECK_FALSE(id.has_value());
  CHECK(calls == 3);
  CHECK(study.points[0].status == PointStatus::oom);
  CHECK(study.points[2].status == PointStatus::ok);
  CHECK_FALSE(study.points[2].run_id.has_value());
}

TEST_CASE("runs record their scenario kind", "[analysis][store]") {
  TempPath db("kind.db");
  ResultsStore store(db.str());
  RunRecord run = point_run(0);
  run.report.kind = "serve";
  const std::int64_t id = store.record_run(run);
  const auto runs = store.runs();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].kind == "serve");
  const hpcsim::Report report = store.report(runs[0]);
  CHECK(report.scenario == run.report.scenario);
  CHECK(report.kind == "serve");
  CHECK(report.metrics.size() == 1);
  CHECK(store.metrics(id).size() == 1);
}

TEST_CASE("a store written before kinds and studies opens, reads and takes studies", "[analysis][store][study]") {
  TempPath db("version1.db");
  write_version1_store(db.str());
  {
    ResultsStore store(db.str());
    const auto runs = store.runs();
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].scenario_name == "old-run");
    CHECK(runs[0].kind == "training");  // every run before kinds trained a model
    CHECK(store.metrics(1).at(0).value == 0.25);
    CHECK(store.studies().empty());
    const std::int64_t id = store.record_study(dp_study());
    store.record_study_point(id, 0, point_run(0));
  }
  const ResultsStore reopened(db.str());
  CHECK(reopened.runs().size() == 2);
  CHECK(reopened.study_points(reopened.studies().at(0).id).at(0).status == PointStatus::ok);
}

TEST_CASE("show lists studies with their points after the runs", "[analysis][show][study]") {
  TempPath db("show-study.db");
  ResultsStore store(db.str());
  const std::int64_t id = store.record_study(dp_study());
  store.record_study_point(id, 0, point_run(0));
  const std::string table = hpcsim::format_runs_table(store);
  CHECK_THAT(table, Catch::Contains("1 study\n"));
  CHECK_THAT(table, Catch::Contains("gpt --scale 2,4,8"));
  CHECK_THAT(table, Catch::Contains(R"({"parallelism.dp": ["2", "4", "8"]})"));
  CHECK_THAT(table, Catch::Contains("    point  status   run  values"));
  CHECK_THAT(table, Catch::Contains("        0  ok         1  {\"parallelism.dp\": \"2\"}\n"));
  CHECK_THAT(table, Catch::Contains("        2  pending    -  {\"parallelism.dp\": \"8\"}\n"));
  CHECK(table.find("1 study") > table.find("gpt @0 gpus"));  // after the runs
}
