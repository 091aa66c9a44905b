// How a store is opened: a reader never creates or initialises a file; a writer checks the file before any
// work and creates it only when it first writes.
#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "store/results_store.h"
#include "analysis/temp_path.h"

using hpcsim::ResultsStore;
using hpcsim::StoreAccess;
using hpcsim::StoreError;
using hpcsim::test::TempPath;

namespace {

hpcsim::RunRecord a_run() {
  hpcsim::RunRecord run;
  run.scenario_text = "x: 1\n";
  run.tool_version = "0.1.0";
  return run;
}

}  // namespace

TEST_CASE("a reader refuses a missing file and creates none", "[analysis][store][access]") {
  TempPath db("missing.db");
  CHECK_THROWS_WITH(ResultsStore(db.str(), StoreAccess::read), db.str() + ": no such file");
  CHECK_FALSE(std::filesystem::exists(db.str()));
}

TEST_CASE("a reader refuses an empty file and leaves it empty", "[analysis][store][access]") {
  TempPath db("empty-read.db");
  std::ofstream(db.str()).close();
  CHECK_THROWS_WITH(ResultsStore(db.str(), StoreAccess::read),
                    Catch::StartsWith(db.str() + ": ") && Catch::Contains("is empty"));
  CHECK(std::filesystem::file_size(db.str()) == 0);
}

TEST_CASE("a reader reads what a writer stored", "[analysis][store][access]") {
  TempPath db("read.db");
  ResultsStore(db.str()).record_run(a_run());
  CHECK(ResultsStore(db.str(), StoreAccess::read).runs().size() == 1);
}

TEST_CASE("a writer creates the file only when it first writes", "[analysis][store][access]") {
  TempPath db("lazy.db");
  ResultsStore store(db.str());
  CHECK_FALSE(std::filesystem::exists(db.str()));  // a command that fails before storing leaves nothing
  store.record_run(a_run());
  CHECK(std::filesystem::exists(db.str()));
  CHECK(ResultsStore(db.str(), StoreAccess::read).runs().size() == 1);
}

TEST_CASE("a writer refuses at once a file it could not write", "[analysis][store][access]") {
  TempPath dir("ro-dir");
  std::filesystem::create_directory(dir.str());
  const std::string missing = dir.str() + "/no/such/folder/results.db";
  CHECK_THROWS_WITH(ResultsStore(missing), Catch::StartsWith(missing + ": ") && Catch::Contains("no folder"));

  TempPath db("ro.db");
  ResultsStore(db.str()).record_run(a_run());
  REQUIRE(chmod(db.str().c_str(), 0444) == 0);
  if (access(db.str().c_str(), W_OK) == 0) return;  // root writes anyway: nothing to check
  CHECK_THROWS_WITH(ResultsStore(db.str()), Catch::StartsWith(db.str() + ": ") && Catch::Contains("read-only"));
  CHECK(ResultsStore(db.str(), StoreAccess::read).runs().size() == 1);  // still readable
}
