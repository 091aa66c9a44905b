#include "store/results_store.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <filesystem>
#include <map>
#include <utility>

#include "point_claimer.h"
#include "sqlite_connection.h"
#include "store_schema.h"

namespace hpcsim {

using sqlite::Connection;
using sqlite::DbHandle;
using sqlite::ResetOnExit;
using sqlite::Statement;
using sqlite::Transaction;

namespace {

DbHandle open_database(const std::string& path, StoreAccess access) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))  // sqlite3 would only say "unable to open"
    throw StoreError(path, "cannot open: is a directory, not a results file");
  // A reader must not create an empty store where the user mistyped a name.
  if (access == StoreAccess::read && !std::filesystem::exists(path, ignored)) throw StoreError(path, "no such file");
  const int flags = SQLITE_OPEN_READWRITE | (access == StoreAccess::write ? SQLITE_OPEN_CREATE : 0);
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
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
                       "started_at, wall_s, status, message, kind) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"};
  Statement insert_metric{conn, "INSERT INTO metrics(run_id, name, value, unit) VALUES(?1, ?2, ?3, ?4)"};
  Statement select_runs{conn,
                        "SELECT id, scenario_name, scenario_text, scenario_hash, tool_version, started_at, "
                        "wall_s, status, message, kind FROM runs ORDER BY id"};
  Statement select_metrics{conn, "SELECT name, value, unit FROM metrics WHERE run_id = ?1 ORDER BY rowid"};
  Statement select_by_hash{conn,
                           "SELECT id FROM runs WHERE scenario_hash = ?1 AND status = 'ok' "
                           "ORDER BY id DESC LIMIT 1"};
  Statement insert_study{conn,
                         "INSERT INTO studies(name, base_scenario_hash, parameters, created_at) "
                         "VALUES(?1, ?2, ?3, ?4)"};
  Statement insert_point{conn,
                         "INSERT INTO study_points(study_id, point_index, parameter_values, status, run_id) "
                         "VALUES(?1, ?2, ?3, ?4, ?5)"};
  Statement complete_point{conn,
                           "UPDATE study_points SET status = ?3, run_id = ?4, claimed_by = NULL, claimed_at = NULL "
                           "WHERE study_id = ?1 AND point_index = ?2 AND run_id IS NULL"};
  Statement select_point_run{conn, "SELECT run_id FROM study_points WHERE study_id = ?1 AND point_index = ?2"};
  // Its WHERE is the study_points_unclaimed index's, so the next point is found without reading the done ones.
  Statement select_unclaimed{conn,
                             "SELECT point_index FROM study_points WHERE study_id = ?1 AND status = 'pending' "
                             "AND claimed_by IS NULL ORDER BY point_index LIMIT ?2"};
  Statement select_claimed{conn,
                           "SELECT point_index, claimed_by, claimed_at FROM study_points WHERE study_id = ?1 "
                           "AND status = 'pending' AND claimed_by IS NOT NULL ORDER BY point_index"};
  Statement claim_point{conn,
                        "UPDATE study_points SET claimed_by = ?3, claimed_at = ?4 "
                        "WHERE study_id = ?1 AND point_index = ?2"};
  Statement select_study{conn,
                         "SELECT id FROM studies WHERE base_scenario_hash = ?1 AND parameters = ?2 "
                         "ORDER BY id DESC LIMIT 1"};
  Statement select_studies{conn,
                           "SELECT id, name, base_scenario_hash, parameters, created_at FROM studies ORDER BY id"};
  Statement select_points{conn,
                          "SELECT point_index, parameter_values, status, run_id, claimed_by FROM study_points "
                          "WHERE study_id = ?1 ORDER BY point_index"};
  std::function<void(std::size_t)> metric_written_hook;

  explicit Impl(Connection c) : conn(std::move(c)) {}
};

namespace {
Connection connect(const std::string& path, StoreAccess access) {
  Connection conn{path, nullptr, open_database(path, access)};
  sqlite3_extended_result_codes(conn.db.get(), 1);
  sqlite::wait_for_lock(conn);
  sqlite::ensure_schema(conn, access);
  conn.exec("PRAGMA foreign_keys = ON", "enabling foreign keys");
  return conn;
}
}  // namespace

// A writer that finds no file checks that it could make one, and makes it at its first use: a command that
// finds bad input only while simulating leaves no empty store behind.
ResultsStore::ResultsStore(const std::string& path, StoreAccess access) : path_(path) {
  std::error_code ec;
  if (access == StoreAccess::read || std::filesystem::exists(path, ec)) {
    impl_ = std::make_unique<Impl>(connect(path, access));
    return;
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::string folder = parent.empty() ? std::string(".") : parent.string();
  if (!std::filesystem::is_directory(folder, ec)) throw StoreError(path, "cannot open: there is no folder " + folder);
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw StoreError(path, "cannot open: the folder " + folder + " is not writable");
}

ResultsStore::Impl& ResultsStore::impl() const {
  if (!impl_) impl_ = std::make_unique<Impl>(connect(path_, StoreAccess::write));
  return *impl_;
}
ResultsStore::~ResultsStore() = default;
ResultsStore::ResultsStore(ResultsStore&&) noexcept = default;
ResultsStore& ResultsStore::operator=(ResultsStore&&) noexcept = default;

const std::string& ResultsStore::path() const { return path_; }

std::string ResultsStore::run_context(const RunRecord& run) const {
  return "recording run of '" + run.report.scenario + "'";
}

// The run row and its metric rows, inside the caller's transaction.
std::int64_t ResultsStore::insert_run(const RunRecord& run) {
  const std::string& file = impl().conn.path;
  const std::string context = run_context(run);
  check_finite(file, run.wall_s, context + ": wall_s");
  for (const Metric& m : run.report.metrics)
    if (m.value) check_finite(file, *m.value, context + ": metric '" + m.name + "'");

  Statement& ins = impl().insert_run;
  {
    ResetOnExit r(ins);
    ins.bind(1, run.report.scenario);
    ins.bind(2, run.scenario_text);
    ins.bind(3, content_hash(run.scenario_text));
    ins.bind(4, run.tool_version);
    ins.bind(5, run.started_at.empty() ? iso8601_utc_now() : run.started_at);
    ins.bind(6, run.wall_s);
    ins.bind(7, run.status);
    if (run.message.empty()) ins.bind_null(8); else ins.bind(8, run.message);
    ins.bind(9, run.report.kind);
    ins.step(context);
  }
  const std::int64_t id = sqlite3_last_insert_rowid(impl().conn.db.get());

  Statement& met = impl().insert_metric;
  std::size_t written = 0;
  for (const Metric& m : run.report.metrics) {
    {
      ResetOnExit r(met);
      met.bind(1, id);
      met.bind(2, m.name);
      if (m.value) met.bind(3, *m.value); else met.bind_null(3);
      met.bind(4, m.unit);
      met.step(context + ": metric '" + m.name + "'");
    }
    ++written;
    if (impl().metric_written_hook) impl().metric_written_hook(written);
  }
  return id;
}

std::int64_t ResultsStore::record_run(const RunRecord& run) {
  const std::string context = run_context(run);
  Transaction tx(impl().conn, context);
  const std::int64_t id = insert_run(run);
  tx.commit(context);
  return id;
}

// The study row and its points, inside the caller's transaction.
std::int64_t ResultsStore::insert_study(const Study& study, const std::string& context) {
  Statement& ins = impl().insert_study;
  {
    ResetOnExit r(ins);
    ins.bind(1, study.name);
    ins.bind(2, content_hash(study.base_scenario_text));
    ins.bind(3, parameters_json(study.parameters));
    ins.bind(4, iso8601_utc_now());
    ins.step(context);
  }
  const std::int64_t id = sqlite3_last_insert_rowid(impl().conn.db.get());
  Statement& point = impl().insert_point;
  for (std::size_t i = 0; i < study.points.size(); ++i) {
    ResetOnExit r(point);
    point.bind(1, id);
    point.bind(2, static_cast<std::int64_t>(i));
    point.bind(3, point_values_json(study.points[i]));
    point.bind(4, to_string(study.points[i].status));
    if (study.points[i].run_id) point.bind(5, *study.points[i].run_id); else point.bind_null(5);
    point.step(context + ": point " + std::to_string(i));
  }
  return id;
}

std::int64_t ResultsStore::record_study(const Study& study) {
  const std::string context = "recording study '" + study.name + "'";
  Transaction tx(impl().conn, context);
  const std::int64_t id = insert_study(study, context);
  tx.commit(context);
  return id;
}

std::int64_t ResultsStore::find_or_record_study(const Study& study) {
  const std::string context = "finding or recording study '" + study.name + "'";
  Transaction tx(impl().conn, context);
  if (const std::optional<std::int64_t> found =
          find_study(content_hash(study.base_scenario_text), parameters_json(study.parameters)))
    return *found;  // the transaction only read
  const std::int64_t id = insert_study(study, context);
  tx.commit(context);
  return id;
}

std::int64_t ResultsStore::record_study_point(std::int64_t study_id, std::size_t index, const RunRecord& run) {
  const std::string context =
      "recording point " + std::to_string(index) + " of study " + std::to_string(study_id);
  const std::optional<PointStatus> status = point_status_from(run.status);
  if (!status || *status == PointStatus::pending)
    throw StoreError(impl().conn.path, context + ": run status '" + run.status + "' is not a completed point's");
  Transaction tx(impl().conn, context);
  const std::int64_t run_id = insert_run(run);
  Statement& update = impl().complete_point;
  {
    ResetOnExit r(update);
    update.bind(1, study_id);
    update.bind(2, static_cast<std::int64_t>(index));
    update.bind(3, to_string(*status));
    update.bind(4, run_id);
    update.step(context);
  }
  if (sqlite3_changes(impl().conn.db.get()) != 1) point_not_completed(study_id, index, context);
  tx.commit(context);
  return run_id;
}

void ResultsStore::link_study_point(std::int64_t study_id, std::size_t index, std::int64_t run_id, PointStatus status) {
  const std::string context = "linking point " + std::to_string(index) + " of study " + std::to_string(study_id) +
                              " to run " + std::to_string(run_id);
  Transaction tx(impl().conn, context);
  Statement& update = impl().complete_point;
  {
    ResetOnExit r(update);
    update.bind(1, study_id);
    update.bind(2, static_cast<std::int64_t>(index));
    update.bind(3, to_string(status));
    update.bind(4, run_id);
    update.step(context);
  }
  if (sqlite3_changes(impl().conn.db.get()) != 1) point_not_completed(study_id, index, context);
  tx.commit(context);
}

void ResultsStore::point_not_completed(std::int64_t study_id, std::size_t index, const std::string& context) const {
  Statement& s = impl().select_point_run;
  bool stored = false;
  {
    ResetOnExit r(s);
    s.bind(1, study_id);
    s.bind(2, static_cast<std::int64_t>(index));
    if (!s.step(context)) throw StoreError(impl().conn.path, context + ": no such point");
    stored = !s.is_null(0);
  }
  if (stored) throw PointStoredAlready(impl().conn.path, context + ": the point is stored already");
  throw StoreError(impl().conn.path, context + ": the point could not be completed");
}

std::vector<std::size_t> ResultsStore::claim_study_points(std::int64_t study_id, std::size_t most) {
  const std::string context = "claiming points of study " + std::to_string(study_id);
  Transaction tx(impl().conn, context);
  std::vector<std::size_t> claimed;
  {
    Statement& s = impl().select_unclaimed;
    ResetOnExit r(s);
    s.bind(1, study_id);
    s.bind(2, static_cast<std::int64_t>(std::min<std::size_t>(most, INT64_MAX)));
    while (s.step(context)) claimed.push_back(static_cast<std::size_t>(s.int64(0)));
  }
  const double now_s = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (claimed.size() < most) {  // then the points of claimers that are gone
    std::map<std::pair<std::string, double>, bool> gone;  // one check per claim (an MPI sweep claims many at once)
    Statement& s = impl().select_claimed;
    ResetOnExit r(s);
    s.bind(1, study_id);
    while (claimed.size() < most && s.step(context)) {
      const std::pair<std::string, double> claim{s.text(1), s.real(2)};
      auto it = gone.find(claim);
      if (it == gone.end()) it = gone.emplace(claim, store::claimer_gone(claim.first, claim.second, now_s)).first;
      if (it->second) claimed.push_back(static_cast<std::size_t>(s.int64(0)));
    }
  }
  const std::string me = store::current_claimer();
  Statement& update = impl().claim_point;
  for (const std::size_t index : claimed) {
    ResetOnExit r(update);
    update.bind(1, study_id);
    update.bind(2, static_cast<std::int64_t>(index));
    update.bind(3, me);
    update.bind(4, now_s);
    update.step(context);
  }
  tx.commit(context);
  return claimed;
}

std::optional<std::int64_t> ResultsStore::find_study(std::string_view base_scenario_hash,
                                                     std::string_view parameters_json) const {
  Statement& s = impl().select_study;
  ResetOnExit r(s);
  s.bind(1, std::string(base_scenario_hash));
  s.bind(2, std::string(parameters_json));
  if (!s.step("finding a study")) return std::nullopt;
  return s.int64(0);
}

std::vector<StoredRun> ResultsStore::runs() const {
  Statement& s = impl().select_runs;
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
    run.kind = s.text(9);
    out.push_back(std::move(run));
  }
  return out;
}

std::vector<Metric> ResultsStore::metrics(std::int64_t run_id) const {
  Statement& s = impl().select_metrics;
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

Report ResultsStore::report(const StoredRun& run) const {
  return Report{run.scenario_name, run.kind, metrics(run.id), std::nullopt};
}

std::vector<StoredStudy> ResultsStore::studies() const {
  Statement& s = impl().select_studies;
  ResetOnExit r(s);
  std::vector<StoredStudy> out;
  while (s.step("listing studies")) out.push_back({s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4)});
  return out;
}

std::vector<StoredStudyPoint> ResultsStore::study_points(std::int64_t study_id) const {
  Statement& s = impl().select_points;
  ResetOnExit r(s);
  s.bind(1, study_id);
  std::vector<StoredStudyPoint> out;
  const std::string context = "listing the points of study " + std::to_string(study_id);
  while (s.step(context)) {
    StoredStudyPoint point;
    point.index = s.int64(0);
    point.values_json = s.text(1);
    // The table's CHECK admits only known names.
    point.status = point_status_from(s.text(2)).value_or(PointStatus::error);
    if (!s.is_null(3)) point.run_id = s.int64(3);
    point.claimed_by = s.text(4);
    out.push_back(std::move(point));
  }
  return out;
}

std::optional<std::int64_t> ResultsStore::find_by_hash(std::string_view scenario_hash) const {
  Statement& s = impl().select_by_hash;
  ResetOnExit r(s);
  s.bind(1, scenario_hash);
  if (!s.step("finding scenario hash " + std::string(scenario_hash))) return std::nullopt;
  return s.int64(0);
}

void ResultsStore::set_metric_written_hook(std::function<void(std::size_t)> hook) {
  impl().metric_written_hook = std::move(hook);
}

}  // namespace hpcsim
