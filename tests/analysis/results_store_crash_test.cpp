#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>

#include "store/results_store.h"
#include "analysis/temp_path.h"

using hpcsim::ResultsStore;
using hpcsim::RunRecord;
using hpcsim::test::TempPath;

namespace {

// Enough metric rows (with long names) to overflow SQLite's page cache, so the killed transaction
// has really written pages into the database file and only the hot journal can undo them.
constexpr std::size_t kMetrics = 30000;
constexpr std::size_t kKilledAfter = 25000;

RunRecord big_run(const std::string& name) {
  RunRecord r;
  r.report.scenario = name;
  r.scenario_text = "name: " + name + "\n";
  r.tool_version = "0.1.0";
  r.wall_s = 2.0;
  for (std::size_t i = 0; i < kMetrics; ++i)
    r.report.metrics.push_back({"layer_" + std::to_string(i) + "_forward_backward_time_including_comm_s",
                         static_cast<double>(i), "s"});
  return r;
}

// In a child process: die by SIGKILL in the middle of recording a run.
[[noreturn]] void die_while_recording(const std::string& path) {
  try {
    ResultsStore store(path);
    store.set_metric_written_hook([](std::size_t written) {
      if (written == kKilledAfter) std::raise(SIGKILL);
    });
    store.record_run(big_run("killed"));
  } catch (...) {
    _exit(3);
  }
  _exit(2);  // the kill never came
}

}  // namespace

TEST_CASE("a writer killed midway leaves only complete runs", "[analysis][store][crash]") {
  TempPath db("killed.db");
  {
    ResultsStore store(db.str());  // closed before the fork: a child must not inherit a connection
    store.record_run(big_run("complete"));
  }
  const auto complete_size = std::filesystem::file_size(db.str());

  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) die_while_recording(db.str());

  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(WTERMSIG(status) == SIGKILL);
  // The kill left a hot journal: the half-written run reached the file and must be undone.
  REQUIRE(std::filesystem::exists(db.str() + "-journal"));
  REQUIRE(std::filesystem::file_size(db.str()) > complete_size);

  ResultsStore store(db.str());
  CHECK(std::filesystem::file_size(db.str()) == complete_size);  // the journal put the file back
  const auto runs = store.runs();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].scenario_name == "complete");
  const auto metrics = store.metrics(runs[0].id);
  REQUIRE(metrics.size() == kMetrics);
  CHECK(metrics.back().value == static_cast<double>(kMetrics - 1));
  // No orphan metric rows under the id the killed run had taken.
  CHECK(store.metrics(runs[0].id + 1).empty());

  const auto next = store.record_run(big_run("after"));
  CHECK(store.metrics(next).size() == kMetrics);
  CHECK(store.runs().size() == 2);
}
