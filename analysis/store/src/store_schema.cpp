#include "store_schema.h"

#include <cctype>
#include <cstdint>
#include <map>
#include <iterator>
#include <string>

namespace hpcsim::sqlite {

namespace {

// Journal mode: SQLite's default rollback journal, not WAL. results.db often lives on a shared or
// network file system where WAL's shared-memory index is unsupported, a sweep commits only one small
// transaction per run, and the rollback journal keeps the store a single self-contained file.

constexpr int kApplicationId = 0x48504353;  // "HPCS": tells our files from other SQLite databases

// Version 1: runs and their metrics.
constexpr const char* kCreateVersion1 = R"sql(
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  scenario_name TEXT,
  scenario_text TEXT NOT NULL,
  scenario_hash TEXT NOT NULL,
  tool_version TEXT NOT NULL,
  started_at TEXT NOT NULL,
  wall_s REAL NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('ok','oom','error')),
  message TEXT);
CREATE TABLE metrics(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value REAL,
  unit TEXT NOT NULL,
  PRIMARY KEY(run_id, name));
CREATE INDEX runs_by_scenario_hash ON runs(scenario_hash);
)sql";

// Each step upgrades version N to N + 1; a new file is version 1 plus every step, so new and upgraded
// files have the same tables. Steps only add (columns with defaults, tables): old rows stay readable.
constexpr const char* kUpgrades[] = {
    // 1 -> 2: the scenario kind of each run (every run before kinds was a training step), and studies:
    // a base scenario run at several points, each point stored, with its run, as it completes.
    R"sql(
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'training';
CREATE TABLE studies(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  base_scenario_hash TEXT NOT NULL,
  parameters TEXT NOT NULL,
  created_at TEXT NOT NULL);
CREATE TABLE study_points(
  study_id INTEGER NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
  point_index INTEGER NOT NULL,
  parameter_values TEXT NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('pending','ok','oom','error')),
  run_id INTEGER REFERENCES runs(id),
  PRIMARY KEY(study_id, point_index));
)sql",
    // 2 -> 3: who runs a pending point (point_claimer.h) and since when (seconds since the epoch), so that two
    // sweeps of one study share its points; NULL: no one. The index finds the next point to claim without
    // reading the points done.
    R"sql(
ALTER TABLE study_points ADD COLUMN claimed_by TEXT;
ALTER TABLE study_points ADD COLUMN claimed_at REAL;
CREATE INDEX study_points_unclaimed ON study_points(study_id, point_index)
  WHERE status = 'pending' AND claimed_by IS NULL;
)sql",
};

constexpr int kSchemaVersion = 1 + static_cast<int>(std::size(kUpgrades));

struct Header {
  int application_id = 0;
  int user_version = 0;
  std::int64_t objects = 0;  // tables, indexes and the like in the file
};

// One statement, so one snapshot: read one by one, a store another process creates in between would show
// its tables without its application id, and be taken for a foreign database.
Header read_header(const Connection& conn) {
  Statement s(conn,
              "SELECT (SELECT application_id FROM pragma_application_id), "
              "(SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master)");
  if (!s.step("reading the file header (is it an SQLite database?)")) return {};
  return {static_cast<int>(s.int64(0)), static_cast<int>(s.int64(1)), s.int64(2)};
}

// The file's schema version: 0 for an empty file; StoreError for a file we must not touch.
int usable_version(const Connection& conn) {
  const Header h = read_header(conn);
  if (h.application_id != kApplicationId) {
    if (h.objects == 0) return 0;
    throw StoreError(conn.path, "is an SQLite database but not an hpcsim results store");
  }
  const int version = h.user_version;
  if (version > kSchemaVersion)
    throw StoreError(conn.path, "results store schema version " + std::to_string(version) +
                                    " is newer than this hpcsim supports (" + std::to_string(kSchemaVersion) +
                                    "); upgrade hpcsim");
  if (version < 1) throw StoreError(conn.path, "results store has an unknown schema version " + std::to_string(version));
  return version;
}

// One object of a schema as SQLite records it: its kind and table, and its SQL without whitespace (a store
// written by an older hpcsim laid the same statements out on other lines).
struct SchemaObject {
  std::string type, table, sql;
  bool operator==(const SchemaObject&) const = default;
};

std::map<std::string, SchemaObject> schema_objects(const Connection& conn) {
  Statement s(conn, "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master");
  ResetOnExit reset(s);
  std::map<std::string, SchemaObject> objects;
  while (s.step("reading the schema")) {
    std::string sql = s.text(3);
    std::erase_if(sql, [](unsigned char c) { return std::isspace(c) != 0; });
    objects[s.text(1)] = {s.text(0), s.text(2), std::move(sql)};
  }
  return objects;
}

// What this hpcsim's statements create (version 1 and every upgrade), in a private in-memory database, once.
const std::map<std::string, SchemaObject>& expected_objects() {
  static const std::map<std::string, SchemaObject> expected = [] {
    Connection mem;
    mem.path = ":memory:";
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nullptr);
    mem.db.reset(raw);
    if (rc != SQLITE_OK) mem.fail("building the expected schema");
    mem.exec(kCreateVersion1, "building the expected schema");
    for (const char* upgrade : kUpgrades) mem.exec(upgrade, "building the expected schema");
    return schema_objects(mem);
  }();
  return expected;
}

// A store whose tables were changed by hand or damaged in their definitions (a CHECK that no longer admits
// 'ok', a dropped column) would fail a run only when it is stored, after the simulation: refuse it on open.
// Objects the user added (an index or view of their own) are left alone.
void check_definitions(const Connection& conn) {
  const std::map<std::string, SchemaObject> found = schema_objects(conn);
  for (const auto& [name, want] : expected_objects()) {
    const auto it = found.find(name);
    if (it == found.end())
      throw StoreError(conn.path, "is an hpcsim results store without its " + want.type + " '" + name +
                                      "': damaged or edited by hand; not touched (use another --db)");
    if (!(it->second == want))
      throw StoreError(conn.path, "is an hpcsim results store whose " + want.type + " '" + name +
                                      "' is not as hpcsim defines it (edited by hand or damaged); not touched (use "
                                      "another --db)");
  }
}

// Checked after the version, so that a foreign read-only file is reported as foreign.
void check_writable(const Connection& conn) {
  if (sqlite3_db_readonly(conn.db.get(), "main") == 1)
    throw StoreError(conn.path, "is read-only: cannot store runs in it");
}

}  // namespace

void ensure_schema(const Connection& conn, StoreAccess access) {
  const int found = usable_version(conn);
  if (found == 0 && access == StoreAccess::read)
    throw StoreError(conn.path, "is empty: not an hpcsim results store (nothing was stored in it)");
  if (access == StoreAccess::write) check_writable(conn);
  if (found == kSchemaVersion) {
    check_definitions(conn);
    return;
  }
  // Look again under the write lock: another process may have created or upgraded the schema meanwhile.
  Transaction tx(conn, "preparing the schema");
  int version = usable_version(conn);
  if (version == kSchemaVersion) {
    check_definitions(conn);
    return;
  }
  if (version == 0) {
    conn.exec(kCreateVersion1, "creating the schema");
    version = 1;
  }
  for (; version < kSchemaVersion; ++version)
    conn.exec(kUpgrades[version - 1], "upgrading the schema from version " + std::to_string(version));
  const std::string stamp = "PRAGMA application_id = " + std::to_string(kApplicationId) +
                            "; PRAGMA user_version = " + std::to_string(kSchemaVersion) + ";";
  conn.exec(stamp.c_str(), "stamping the schema version");
  check_definitions(conn);  // an older store edited by hand: rolled back, not upgraded
  tx.commit("preparing the schema");
}

}  // namespace hpcsim::sqlite
