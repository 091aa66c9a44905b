#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <sqlite3.h>

#include "store/results_store.h"
#include "analysis/temp_path.h"

using hpcsim::ResultsStore;
using hpcsim::StoreError;
using hpcsim::test::TempPath;

namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// SQLite keeps user_version at byte 60 and application_id at byte 68 of the header, big-endian.
void patch_header_int(const std::string& path, std::streamoff offset, std::uint32_t value) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  REQUIRE(f);
  f.seekp(offset);
  const char bytes[4] = {static_cast<char>(value >> 24), static_cast<char>(value >> 16),
                         static_cast<char>(value >> 8), static_cast<char>(value)};
  f.write(bytes, 4);
  REQUIRE(f);
}

void make_store(const std::string& path) {
  ResultsStore store(path);
  hpcsim::RunRecord run;
  run.scenario_text = "x: 1\n";
  run.tool_version = "0.1.0";
  store.record_run(run);
}

void exec_sql(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  CHECK(message.empty());
  REQUIRE(rc == SQLITE_OK);
}

}  // namespace

TEST_CASE("a store whose tables were edited is refused on open, before a run is simulated and lost",
          "[analysis][store][errors]") {
  TempPath db("edited.db");
  make_store(db.str());
  SECTION("a CHECK that no longer admits 'ok' (fuzz seed 1207102: the run failed only when stored, exit 1)") {
    exec_sql(db.str(),
             "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, '''ok''', '''k''') WHERE name = "
             "'runs'; PRAGMA writable_schema = OFF;");
    CHECK_THROWS_WITH(ResultsStore(db.str()), Catch::StartsWith(db.str() + ": ") && Catch::Contains("table 'runs'") &&
                                                  Catch::Contains("not as hpcsim defines it"));
  }
  SECTION("a dropped index") {
    exec_sql(db.str(), "DROP INDEX runs_by_scenario_hash;");
    CHECK_THROWS_WITH(ResultsStore(db.str()), Catch::Contains("without its index 'runs_by_scenario_hash'"));
  }
  SECTION("what a user adds (an index, a view) is left alone") {
    exec_sql(db.str(), "CREATE INDEX my_index ON metrics(name); CREATE VIEW my_view AS SELECT id FROM runs;");
    CHECK(ResultsStore(db.str()).runs().size() == 1);
    make_store(db.str());
    CHECK(ResultsStore(db.str()).runs().size() == 2);
  }
}


TEST_CASE("a text file is not opened as a store", "[analysis][store][errors]") {
  TempPath file("notes.txt");
  const std::string text = "these are notes, not a database\n";
  write_file(file.str(), text);
  CHECK_THROWS_WITH(ResultsStore(file.str()),
                    Catch::StartsWith(file.str() + ": ") && Catch::Contains("not a database"));
  // Refusing must not damage the file.
  std::ifstream in(file.str());
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == text);
}

TEST_CASE("a directory or an unreachable path is refused", "[analysis][store][errors]") {
  TempPath dir("dir.db");
  std::filesystem::create_directory(dir.str());
  CHECK_THROWS_WITH(ResultsStore(dir.str()),
                    Catch::StartsWith(dir.str() + ": ") && Catch::Contains("is a directory"));

  const std::string missing_parent = dir.str() + "/no/such/dir/results.db";
  CHECK_THROWS_WITH(ResultsStore(missing_parent),
                    Catch::StartsWith(missing_parent + ": ") && Catch::Contains("cannot open"));
}

TEST_CASE("another application's SQLite database is refused", "[analysis][store][errors]") {
  TempPath db("foreign.db");
  make_store(db.str());
  patch_header_int(db.str(), 68, 0x12345678);
  CHECK_THROWS_WITH(ResultsStore(db.str()),
                    Catch::StartsWith(db.str() + ": ") && Catch::Contains("not an hpcsim results store"));
}

TEST_CASE("a store from a newer hpcsim is refused, not rewritten", "[analysis][store][errors]") {
  TempPath db("future.db");
  make_store(db.str());
  patch_header_int(db.str(), 60, 99);
  CHECK_THROWS_WITH(ResultsStore(db.str()), Catch::StartsWith(db.str() + ": ") &&
                                                Catch::Contains("version 99") && Catch::Contains("newer"));
  // Still refused the second time: nothing was "fixed up" on the way out.
  CHECK_THROWS_AS(ResultsStore(db.str()), StoreError);
}

TEST_CASE("a store with version 0 but our application id is refused", "[analysis][store][errors]") {
  TempPath db("v0.db");
  make_store(db.str());
  patch_header_int(db.str(), 60, 0);
  CHECK_THROWS_WITH(ResultsStore(db.str()), Catch::Contains("unknown schema version"));
}

TEST_CASE("an empty existing file becomes a store", "[analysis][store]") {
  TempPath db("empty.db");
  write_file(db.str(), "");
  {
    ResultsStore store(db.str());
    CHECK(store.runs().empty());
  }
  make_store(db.str());
  CHECK(ResultsStore(db.str()).runs().size() == 1);
}

// Writers that meet a new file at once: one creates the schema while the others read the header. Read one field
// at a time, a header could show the new tables without the application id written in the same commit, and the
// store was refused as another application's database (seen as a flaky concurrent-sweeps check).
TEST_CASE("writers that open a new store at once all store their runs", "[analysis][store][concurrency]") {
  constexpr int kWriters = 6;
  for (int round = 0; round < 25; ++round) {
    TempPath db("racing.db");
    std::atomic<int> ready{0};
    std::vector<std::string> errors(kWriters);
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] {
        ++ready;
        while (ready.load() < kWriters) std::this_thread::yield();  // start together
        try {
          make_store(db.str());
        } catch (const std::exception& e) {
          errors[w] = e.what();
        }
      });
    }
    for (std::thread& t : writers) t.join();
    for (const std::string& e : errors) CHECK(e.empty());
    REQUIRE(ResultsStore(db.str()).runs().size() == kWriters);
  }
}
