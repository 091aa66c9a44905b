#include "analysis/results_store.h"

#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <utility>

namespace hpcsim {

namespace {

// Journal mode: SQLite's default rollback journal, not WAL. results.db often lives on a shared or
// network file system where WAL's shared-memory index is unsupported, a sweep commits only one small
// transaction per run, and the rollback journal keeps the store a single self-contained file.

constexpr int kSchemaVersion = 1;
constexpr int kApplicationId = 0x48504353;  // "HPCS": tells our files from other SQLite databases
constexpr int kBusyTimeoutMs = 10000;       // concurrent sweeps wait for each other this long

constexpr const char* kCreateSchema = R"sql(
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

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbHandle = std::unique_ptr<sqlite3, DbCloser>;

// The open database plus the file name every error must carry.
struct Connection {
  std::string path;
  DbHandle db;

  [[noreturn]] void fail(const std::string& context) const {
    throw StoreError(path, context + ": " + sqlite3_errmsg(db.get()));
  }
  void exec(const char* sql, const std::string& context) const {
    if (sqlite3_exec(db.get(), sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(context);
  }
};

// A prepared statement; reset() after every use so no read lock outlives a call.
class Statement {
 public:
  Statement(const Connection& conn, const char* sql) : conn_(&conn) {
    if (sqlite3_prepare_v2(conn.db.get(), sql, -1, &stmt_, nullptr) != SQLITE_OK)
      conn.fail(std::string("preparing \"") + sql + "\"");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int i, std::string_view text) {
    check(sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
  }
  void bind(int i, double value) { check(sqlite3_bind_double(stmt_, i, value)); }
  void bind(int i, std::int64_t value) { check(sqlite3_bind_int64(stmt_, i, value)); }
  void bind_null(int i) { check(sqlite3_bind_null(stmt_, i)); }

  // True while a row is available; throws StoreError naming `context` on failure.
  bool step(const std::string& context) {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    conn_->fail(context);
  }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  std::int64_t int64(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
  }

 private:
  void check(int rc) const {
    if (rc != SQLITE_OK) conn_->fail("binding a parameter");
  }
  const Connection* conn_;
  sqlite3_stmt* stmt_ = nullptr;
};

class ResetOnExit {
 public:
  explicit ResetOnExit(Statement& s) : s_(s) {}
  ~ResetOnExit() { s_.reset(); }
  ResetOnExit(const ResetOnExit&) = delete;
  ResetOnExit& operator=(const ResetOnExit&) = delete;

 private:
  Statement& s_;
};

// BEGIN IMMEDIATE takes the write lock up front, so two writers queue on the busy timeout
// instead of deadlocking on a lock upgrade. Anything but commit() rolls back.
class Transaction {
 public:
  Transaction(const Connection& conn, const std::string& context) : conn_(conn) {
    conn_.exec("BEGIN IMMEDIATE", context + ": starting a transaction");
  }
  ~Transaction() {
    if (!committed_) sqlite3_exec(conn_.db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit(const std::string& context) {
    conn_.exec("COMMIT", context + ": committing");
    committed_ = true;
  }

 private:
  const Connection& conn_;
  bool committed_ = false;
};

enum class SchemaState { Empty, Current, Newer, Older, Foreign };

int pragma_int(const Connection& conn, const char* sql) {
  Statement s(conn, sql);
  if (!s.step("reading the file header (is it an SQLite database?)")) return 0;
  return static_cast<int>(s.int64(0));
}

SchemaState inspect_schema(const Connection& conn) {
  const int app_id = pragma_int(conn, "PRAGMA application_id");
  const int version = pragma_int(conn, "PRAGMA user_version");
  if (app_id != kApplicationId) {
    const int objects = pragma_int(conn, "SELECT count(*) FROM sqlite_master");
    return objects == 0 ? SchemaState::Empty : SchemaState::Foreign;
  }
  if (version > kSchemaVersion) return SchemaState::Newer;
  return version == kSchemaVersion ? SchemaState::Current : SchemaState::Older;
}

[[noreturn]] void reject(const Connection& conn, SchemaState state) {
  if (state == SchemaState::Foreign)
    throw StoreError(conn.path, "is an SQLite database but not an hpcsim results store");
  if (state == SchemaState::Newer)
    throw StoreError(conn.path, "results store schema version " +
                                    std::to_string(pragma_int(conn, "PRAGMA user_version")) +
                                    " is newer than this hpcsim supports (" +
                                    std::to_string(kSchemaVersion) + "); upgrade hpcsim");
  throw StoreError(conn.path, "results store has an unknown schema version 0");
}

void ensure_schema(const Connection& conn) {
  SchemaState state = inspect_schema(conn);
  if (state == SchemaState::Current) return;
  if (state != SchemaState::Empty) reject(conn, state);
  // Look again under the write lock: another process may have created the schema meanwhile.
  Transaction tx(conn, "creating the schema");
  state = inspect_schema(conn);
  if (state == SchemaState::Current) return;
  if (state != SchemaState::Empty) reject(conn, state);
  conn.exec(kCreateSchema, "creating the schema");
  const std::string stamp = "PRAGMA application_id = " + std::to_string(kApplicationId) +
                            "; PRAGMA user_version = " + std::to_string(kSchemaVersion) + ";";
  conn.exec(stamp.c_str(), "stamping the schema version");
  tx.commit("creating the schema");
}

DbHandle open_database(const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))  // sqlite3 would only say "unable to open"
    throw StoreError(path, "cannot open: is a directory, not a results file");
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  DbHandle db(raw);  // sqlite3 hands out a handle even on failure; it must still be closed
  if (rc != SQLITE_OK)
    throw StoreError(path, std::string("cannot open: ") + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  return db;
}

void check_finite(const std::string& path, double value, const std::string& what) {
  if (std::isnan(value)) throw StoreError(path, what + " is NaN (leave a metric value empty for 'undefined')");
}

}  // namespace

StoreError::StoreError(const std::string& file, const std::string& message)
    : std::runtime_error(file + ": " + message) {}

struct ResultsStore::Impl {
  Connection conn;  // declared first so every statement is finalized before the close
  Statement insert_run{conn,
                       "INSERT INTO runs(scenario_name, scenario_text, scenario_hash, tool_version, "
                       "started_at, wall_s, status, message) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"};
  Statement insert_metric{conn, "INSERT INTO metrics(run_id, name, value, unit) VALUES(?1, ?2, ?3, ?4)"};
  Statement select_runs{conn,
                        "SELECT id, scenario_name, scenario_text, scenario_hash, tool_version, started_at, "
                        "wall_s, status, message FROM runs ORDER BY id"};
  Statement select_metrics{conn, "SELECT name, value, unit FROM metrics WHERE run_id = ?1 ORDER BY rowid"};
  Statement select_by_hash{conn,
                           "SELECT id FROM runs WHERE scenario_hash = ?1 AND status = 'ok' "
                           "ORDER BY id DESC LIMIT 1"};
  std::function<void(std::size_t)> metric_written_hook;

  explicit Impl(Connection c) : conn(std::move(c)) {}
};

namespace {
Connection connect(const std::string& path) {
  Connection conn{path, open_database(path)};
  sqlite3_extended_result_codes(conn.db.get(), 1);
  sqlite3_busy_timeout(conn.db.get(), kBusyTimeoutMs);
  ensure_schema(conn);
  conn.exec("PRAGMA foreign_keys = ON", "enabling foreign keys");
  return conn;
}
}  // namespace

ResultsStore::ResultsStore(const std::string& path) : impl_(std::make_unique<Impl>(connect(path))) {}
ResultsStore::~ResultsStore() = default;
ResultsStore::ResultsStore(ResultsStore&&) noexcept = default;
ResultsStore& ResultsStore::operator=(ResultsStore&&) noexcept = default;

const std::string& ResultsStore::path() const { return impl_->conn.path; }

std::int64_t ResultsStore::record_run(const RunRecord& run) {
  const std::string& file = impl_->conn.path;
  const std::string context = "recording run of '" + run.scenario_name + "'";
  check_finite(file, run.wall_s, context + ": wall_s");
  for (const Metric& m : run.metrics)
    if (m.value) check_finite(file, *m.value, context + ": metric '" + m.name + "'");

  Transaction tx(impl_->conn, context);
  Statement& ins = impl_->insert_run;
  {
    ResetOnExit r(ins);
    ins.bind(1, run.scenario_name);
    ins.bind(2, run.scenario_text);
    ins.bind(3, content_hash(run.scenario_text));
    ins.bind(4, run.tool_version);
    ins.bind(5, run.started_at.empty() ? iso8601_utc_now() : run.started_at);
    ins.bind(6, run.wall_s);
    ins.bind(7, run.status);
    if (run.message.empty()) ins.bind_null(8); else ins.bind(8, run.message);
    ins.step(context);
  }
  const std::int64_t id = sqlite3_last_insert_rowid(impl_->conn.db.get());

  Statement& met = impl_->insert_metric;
  std::size_t written = 0;
  for (const Metric& m : run.metrics) {
    {
      ResetOnExit r(met);
      met.bind(1, id);
      met.bind(2, m.name);
      if (m.value) met.bind(3, *m.value); else met.bind_null(3);
      met.bind(4, m.unit);
      met.step(context + ": metric '" + m.name + "'");
    }
    ++written;
    if (impl_->metric_written_hook) impl_->metric_written_hook(written);
  }
  tx.commit(context);
  return id;
}

std::vector<StoredRun> ResultsStore::runs() const {
  Statement& s = impl_->select_runs;
  ResetOnExit r(s);
  std::vector<StoredRun> out;
  while (s.step("listing runs")) {
    StoredRun run;
    run.id = s.int64(0);
    run.scenario_name = s.text(1);
    run.scenario_text = s.text(2);
    run.scenario_hash = s.text(3);
    run.tool_version = s.text(4);
    run.started_at = s.text(5);
    run.wall_s = s.real(6);
    run.status = s.text(7);
    run.message = s.text(8);
    out.push_back(std::move(run));
  }
  return out;
}

std::vector<Metric> ResultsStore::metrics(std::int64_t run_id) const {
  Statement& s = impl_->select_metrics;
  ResetOnExit r(s);
  s.bind(1, run_id);
  std::vector<Metric> out;
  while (s.step("listing metrics of run " + std::to_string(run_id))) {
    Metric m{s.text(0), std::nullopt, s.text(2)};
    if (!s.is_null(1)) m.value = s.real(1);
    out.push_back(std::move(m));
  }
  return out;
}

std::optional<std::int64_t> ResultsStore::find_by_hash(std::string_view scenario_hash) const {
  Statement& s = impl_->select_by_hash;
  ResetOnExit r(s);
  s.bind(1, scenario_hash);
  if (!s.step("finding scenario hash " + std::string(scenario_hash))) return std::nullopt;
  return s.int64(0);
}

void ResultsStore::set_metric_written_hook(std::function<void(std::size_t)> hook) {
  impl_->metric_written_hook = std::move(hook);
}

}  // namespace hpcsim
