#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "store/results_store.h"
#include "report/show_results.h"
#include "analysis/temp_path.h"

using hpcsim::ResultsStore;
using hpcsim::RunRecord;
using hpcsim::test::TempPath;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

const std::string* find_line_starting(const std::vector<std::string>& lines, const std::string& prefix) {
  for (const auto& l : lines)
    if (l.rfind(prefix, 0) == 0) return &l;
  return nullptr;
}

RunRecord run_named(const std::string& name, const std::string& status) {
  RunRecord r;
  r.report.scenario = name;
  r.scenario_text = "name: " + name + "\n";
  r.tool_version = "0.1.0";
  r.started_at = "2024-05-01T12:00:00Z";
  r.wall_s = 12.3456789;
  r.status = status;
  return r;
}

}  // namespace

TEST_CASE("format_runs_table lists each run with its aligned metrics", "[analysis][show]") {
  TempPath db("show.db");
  ResultsStore store(db.str());
  RunRecord ok = run_named("gpt-small", "ok");
  ok.report.metrics = {{"step_time_s", 0.123456789, "s"},
                {"tokens_per_s", std::nullopt, "tokens/s"},
                {"hbm_peak_bytes", 75000000000.0, "B"}};
  store.record_run(ok);
  RunRecord oom = run_named("gpt-huge", "oom");
  oom.message = "needs 92 GiB";
  store.record_run(oom);

  const std::string table = hpcsim::format_runs_table(store);
  const auto lines = lines_of(table);
  CHECK(lines.at(0) == db.str() + ": 2 runs");

  const std::string* run1 = find_line_starting(lines, " 1  ");
  REQUIRE(run1 != nullptr);
  CHECK(run1->find("2024-05-01T12:00:00Z") != std::string::npos);
  CHECK(run1->find("gpt-small") != std::string::npos);
  CHECK(run1->find(hpcsim::content_hash(ok.scenario_text)) != std::string::npos);
  CHECK(run1->find("12.3457") != std::string::npos);  // %.6g
  const std::string* run2 = find_line_starting(lines, " 2  ");
  REQUIRE(run2 != nullptr);
  CHECK(run2->find("oom") != std::string::npos);
  CHECK(run2->find("needs 92 GiB") != std::string::npos);
  CHECK(run1->find("gpt-small") == run2->find("gpt-huge"));  // same column

  const std::string* step = find_line_starting(lines, "    step_time_s ");
  const std::string* tokens = find_line_starting(lines, "    tokens_per_s ");
  const std::string* hbm = find_line_starting(lines, "    hbm_peak_bytes ");
  REQUIRE(step != nullptr);
  REQUIRE(tokens != nullptr);
  REQUIRE(hbm != nullptr);
  CHECK(step->find(" 0.123457  s") != std::string::npos);
  CHECK(tokens->find(" null  tokens/s") != std::string::npos);
  CHECK(hbm->find(" 7.5e+10  B") != std::string::npos);
  // Values are right-aligned, so the unit column starts at the same place on every metric line.
  CHECK(step->rfind("  s") == tokens->rfind("  tokens/s"));
  CHECK(step->size() == hbm->size());
  for (const auto& l : lines) CHECK((l.empty() || l.back() != ' '));
}

TEST_CASE("format_runs_table of an empty store says so", "[analysis][show]") {
  TempPath db("show-empty.db");
  ResultsStore store(db.str());
  CHECK(hpcsim::format_runs_table(store) == db.str() + ": 0 runs\n");
}
