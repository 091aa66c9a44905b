#pragma once
// Thin RAII wrappers over the SQLite C API for the results store (private to analysis/): every error is a
// StoreError naming the file.
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "store/results_store.h"

namespace hpcsim::sqlite {

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbHandle = std::unique_ptr<sqlite3, DbCloser>;

// How long a connection has waited for the file's lock (wait_for_lock below).
struct LockWait {
  std::string path;
  std::chrono::steady_clock::time_point since;
  int notes = 0;  // progress notes printed during this wait
};

// The open database plus the file name every error must carry.
struct Connection {
  std::string path;
  std::unique_ptr<LockWait> lock_wait;  // on the heap, SQLite keeps its address; declared first, freed after the close
  DbHandle db;

  [[noreturn]] void fail(const std::string& context) const {
    const int code = sqlite3_errcode(db.get()) & 0xff;
    if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
      throw StoreDamaged(path, context + ": " + sqlite3_errmsg(db.get()) +
                                   " (the store is damaged: restore it from a copy, or use another --db)");
    if (code == SQLITE_BUSY)
      throw StoreError(path, context + ": " + sqlite3_errmsg(db.get()) +
                                 " (another process held the store past the wait; this change was not stored)");
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

}  // namespace hpcsim::sqlite
