// Claims on study points: sweeps of one study at once share its points, and a killed sweep's claims are
// taken over by the next one.
#include <catch2/catch.hpp>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "store/results_store.h"
#include "analysis/temp_path.h"

using hpcsim::PointStatus;
using hpcsim::ResultsStore;
using hpcsim::Study;
using hpcsim::test::TempPath;

namespace {

Study study_of(std::size_t points) {
  Study study;
  study.name = "claims";
  study.base_scenario_text = "name: claims\n";
  for (std::size_t i = 0; i < points; ++i) study.points.push_back({{{"cluster.nodes", std::to_string(i + 1)}}, {}, {}});
  study.parameters = hpcsim::varied_parameters(study.points);
  return study;
}

hpcsim::RunRecord point_run(std::size_t index) {
  hpcsim::RunRecord r;
  r.report.scenario = "claims @" + std::to_string(index);
  r.scenario_text = "name: claims\ncluster: {nodes: " + std::to_string(index + 1) + "}\n";
  r.tool_version = "0.1.0";
  return r;
}

// Sets the claim of point `index` as another process would have written it.
void set_claim(const std::string& db, std::int64_t study, std::size_t index, const std::string& claimer,
               double claimed_at_s) {
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &raw) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(raw, "UPDATE study_points SET claimed_by = ?1, claimed_at = ?2 "
                                  "WHERE study_id = ?3 AND point_index = ?4", -1, &s, nullptr) == SQLITE_OK);
  sqlite3_bind_text(s, 1, claimer.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(s, 2, claimed_at_s);
  sqlite3_bind_int64(s, 3, study);
  sqlite3_bind_int64(s, 4, static_cast<sqlite3_int64>(index));
  CHECK(sqlite3_step(s) == SQLITE_DONE);
  sqlite3_finalize(s);
  sqlite3_close(raw);
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string host() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// A pid no process has any more: a child that exited and was reaped.
pid_t dead_pid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

}  // namespace

TEST_CASE("a point claimed by a live process is left to it", "[analysis][store][claims]") {
  TempPath db("claims-live.db");
  ResultsStore a(db.str()), b(db.str());
  const std::int64_t id = a.record_study(study_of(3));
  CHECK(a.claim_study_points(id, 1) == std::vector<std::size_t>{0});
  CHECK(b.claim_study_points(id, 5) == std::vector<std::size_t>{1, 2});  // 0 is this (live) process's
  CHECK(a.claim_study_points(id, 5).empty());
  CHECK_FALSE(a.study_points(id).at(0).claimed_by.empty());
  a.record_study_point(id, 0, point_run(0));
  CHECK(a.study_points(id).at(0).claimed_by.empty());  // a stored point keeps no claim
}

TEST_CASE("a resume takes over the claims of a process that is gone", "[analysis][store][claims]") {
  TempPath db("claims-gone.db");
  ResultsStore store(db.str());
  const std::int64_t id = store.record_study(study_of(5));
  for (std::size_t i = 0; i < 5; ++i) store.claim_study_points(id, 1);
  set_claim(db.str(), id, 0, host() + " " + std::to_string(dead_pid()) + " 1", now_s());  // killed
  // This process's pid with another start time: the pid was reused by a new process.
  set_claim(db.str(), id, 1, host() + " " + std::to_string(getpid()) + " 1", now_s());
  set_claim(db.str(), id, 2, "another-host 4242 1", now_s());         // cannot be checked: still its own
  set_claim(db.str(), id, 3, "another-host 4242 1", now_s() - 7200);  // abandoned long ago
  set_claim(db.str(), id, 4, "garbage", now_s());                     // not a claim hpcsim wrote
  CHECK(store.claim_study_points(id, 10) == std::vector<std::size_t>{0, 1, 3, 4});
  CHECK(store.claim_study_points(id, 10).empty());
}

TEST_CASE("a point stored twice is PointStoredAlready and writes nothing", "[analysis][store][claims]") {
  TempPath db("claims-twice.db");
  ResultsStore store(db.str());
  const std::int64_t id = store.record_study(study_of(1));
  const std::int64_t run = store.record_study_point(id, 0, point_run(0));
  CHECK_THROWS_AS(store.record_study_point(id, 0, point_run(0)), hpcsim::PointStoredAlready);
  CHECK_THROWS_AS(store.link_study_point(id, 0, run, PointStatus::ok), hpcsim::PointStoredAlready);
  CHECK(store.runs().size() == 1);
}

TEST_CASE("processes claiming at once store every point exactly once", "[analysis][store][claims]") {
  TempPath db("claims-concurrent.db");
  constexpr std::size_t kPoints = 60;
  const std::int64_t id = ResultsStore(db.str()).record_study(study_of(kPoints));
  std::vector<pid_t> workers;
  for (int w = 0; w < 3; ++w) {
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      int code = 0;
      try {
        ResultsStore store(db.str());
        for (;;) {
          const std::vector<std::size_t> claimed = store.claim_study_points(id, 1);
          if (claimed.empty()) break;
          store.record_study_point(id, claimed.front(), point_run(claimed.front()));
        }
      } catch (...) {
        code = 1;
      }
      _exit(code);
    }
    workers.push_back(child);
  }
  for (const pid_t w : workers) {
    int status = 0;
    waitpid(w, &status, 0);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
  const ResultsStore store(db.str(), hpcsim::StoreAccess::read);
  std::set<std::int64_t> runs;
  for (const auto& p : store.study_points(id)) {
    CHECK(p.status == PointStatus::ok);
    REQUIRE(p.run_id.has_value());
    runs.insert(*p.run_id);
  }
  CHECK(runs.size() == kPoints);
  CHECK(store.runs().size() == kPoints);
}
